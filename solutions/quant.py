"""Quantization arithmetic: scales, zero-points, bits per weight, low-bit float ranges."""

from __future__ import annotations

import math
from typing import Any

E4M3_MAX = 448.0
"""Largest finite FP8 E4M3 value (OCP FP8: S.1111.110 = 1.75 x 2^8)."""
E5M2_MAX = 57344.0
"""Largest finite FP8 E5M2 value (1.75 x 2^15)."""


def round_half_away(value: float) -> int:
    """Round to nearest, halves away from zero (what quantization kernels do; Python's
    round() sends halves to even)."""
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


def symmetric_scale(absmax: float, bits: int) -> dict[str, float]:
    """Symmetric per-tensor scale: absmax / qmax, qmax = 2^(bits-1) - 1."""
    qmax = 2 ** (bits - 1) - 1
    return {"answer": absmax / qmax, "qmax": qmax}


def symmetric_quantize(x: float, absmax: float, bits: int) -> dict[str, float]:
    """q = round(x / scale), clamped to [-qmax, qmax]."""
    qmax = 2 ** (bits - 1) - 1
    scale = absmax / qmax
    q = max(-qmax, min(qmax, round_half_away(x / scale)))
    return {
        "answer": q,
        "scale": scale,
        "qmax": qmax,
        "dequant": q * scale,
    }


def asymmetric_zero_point(x_min: float, x_max: float, bits: int) -> dict[str, float]:
    """Unsigned asymmetric: scale = (max - min) / (2^bits - 1), zero_point = round(-min / scale)
    clamped to [0, 2^bits - 1] (a range that excludes 0 pins it to an end)."""
    levels = 2**bits - 1
    scale = (x_max - x_min) / levels
    zero_point = max(0, min(levels, round_half_away(-x_min / scale)))
    return {"answer": zero_point, "scale": scale, "levels": levels}


def group_bits_per_weight(
    bits: int, group_size: int, scale_bits: int, zero_bits: int
) -> dict[str, float]:
    """Effective storage per weight with one scale (and optional zero-point) per group."""
    overhead = (scale_bits + zero_bits) / group_size
    return {"answer": bits + overhead, "overhead": overhead}


def int4_weight_bytes(model: Any, group_size: int) -> dict[str, float]:
    """Weight-only INT4 with one FP16 scale per group of `group_size` weights."""
    bits = 4 + 16 / group_size
    return {"answer": model.params * bits / 8, "bits": bits}


def fp8_scale(absmax: float, fmt: str) -> dict[str, float]:
    """Per-tensor FP8 scale that maps absmax to the format's largest finite value."""
    top = E4M3_MAX if fmt == "e4m3" else E5M2_MAX
    return {"answer": absmax / top, "fmt_max": top}


def block_fp4_bits(block: int, scale_bits: int) -> dict[str, float]:
    """Bits per element of a block-scaled 4-bit format (MXFP4: block 32, 8-bit E8M0 scale;
    NVFP4: block 16, 8-bit E4M3 scale; the per-tensor FP32 scale of NVFP4 is negligible)."""
    return {"answer": 4 + scale_bits / block, "overhead": scale_bits / block}
