"""Temporary re-exports while the tests and question files move to the subject modules."""

from __future__ import annotations

from solutions.quantization import (
    E4M3_MAX,
    E5M2_MAX,
    asymmetric_zero_point,
    block_fp4_bits,
    fp8_scale,
    group_bits_per_weight,
    int4_weight_bytes,
    round_half_away,
    symmetric_quantize,
    symmetric_scale,
)

__all__ = [
    "E4M3_MAX",
    "E5M2_MAX",
    "asymmetric_zero_point",
    "block_fp4_bits",
    "fp8_scale",
    "group_bits_per_weight",
    "int4_weight_bytes",
    "round_half_away",
    "symmetric_quantize",
    "symmetric_scale",
]
