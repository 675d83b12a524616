"""Temporary re-exports while the tests and question files move to the subject modules."""

from __future__ import annotations

from solutions.kv_cache import (
    multi_turn_prefill_saving,
    paged_fragmentation_bytes,
    prefix_cache_saved_bytes,
    tp_kv_bytes_per_gpu_token,
)
from solutions.moe import ep_expert_bytes_per_gpu, expert_params, moe_decode_expert_bytes
from solutions.quantization import (
    BF16_BITS,
    kivi_compression,
    smoothquant_factor,
    w4a16_weight_bytes,
)
from solutions.serving import (
    burst_mean_ttft,
    chunked_prefill_steps,
    continuous_vs_static_ratio,
    littles_law_concurrency,
    pd_decode_instances,
    pp_decode_throughput,
    prefill_stall_ratio,
)
from solutions.speculative import spec_alpha_for_speedup, spec_mean_accept_length

__all__ = [
    "BF16_BITS",
    "burst_mean_ttft",
    "chunked_prefill_steps",
    "continuous_vs_static_ratio",
    "ep_expert_bytes_per_gpu",
    "expert_params",
    "kivi_compression",
    "littles_law_concurrency",
    "moe_decode_expert_bytes",
    "multi_turn_prefill_saving",
    "paged_fragmentation_bytes",
    "pd_decode_instances",
    "pp_decode_throughput",
    "prefill_stall_ratio",
    "prefix_cache_saved_bytes",
    "smoothquant_factor",
    "spec_alpha_for_speedup",
    "spec_mean_accept_length",
    "tp_kv_bytes_per_gpu_token",
    "w4a16_weight_bytes",
]
