"""Temporary re-exports while the tests and question files move to the subject modules."""

from __future__ import annotations

from solutions.floating_point import FP8_MANTISSA_BITS, FP8_MIN_NORMAL_EXP, fp8_spacing
from solutions.kv_cache import kv_token_capacity, mla_equivalent_kv_heads
from solutions.latency import e2e_ttft_share
from solutions.quantization import (
    block_fp4_storage_per_element,
    group_storage_per_weight,
    quantize_dequantize,
    round_half_away,
)
from solutions.serving import pd_link_bandwidth
from solutions.speculative import spec_break_even_draft_cost

__all__ = [
    "FP8_MANTISSA_BITS",
    "FP8_MIN_NORMAL_EXP",
    "block_fp4_storage_per_element",
    "e2e_ttft_share",
    "fp8_spacing",
    "group_storage_per_weight",
    "kv_token_capacity",
    "mla_equivalent_kv_heads",
    "pd_link_bandwidth",
    "quantize_dequantize",
    "round_half_away",
    "spec_break_even_draft_cost",
]
