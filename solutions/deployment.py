"""Temporary re-exports while the tests and question files move to the subject modules."""

from __future__ import annotations

from solutions.data_structures import bplus_tree_levels
from solutions.distributed_systems import consistent_hash_keys_moved, raft_fault_tolerance
from solutions.kernels import tile_search_space
from solutions.latency import decode_batching_speedup
from solutions.quantization import int8_engine_weight_bytes
from solutions.vision import conv_bn_folded_bias

__all__ = [
    "bplus_tree_levels",
    "consistent_hash_keys_moved",
    "conv_bn_folded_bias",
    "decode_batching_speedup",
    "int8_engine_weight_bytes",
    "raft_fault_tolerance",
    "tile_search_space",
]
