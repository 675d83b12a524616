"""Quantization: integer scales and zero points, a quantize-dequantize round trip, the
storage of group-wise and block-scaled formats, FP8 scales, SmoothQuant, KIVI's KV-cache
compression and the weight size of W4A16 and INT8 models.

Every function returns base units (bytes, fractions) or a pure number (a scale, a code) as
{"answer": value, **intermediates}. Storage "per weight" is returned in bytes, so that a
question can show it in bits (unit `bit`).
"""

from __future__ import annotations

import math
from typing import Any

# --- integer quantization ---------------------------------------------------------------------


def round_half_away(value: float) -> int:
    """Round to nearest, halves away from zero (what quantization kernels do; Python's round()
    sends halves to even); tolerant of float noise such as 3.4999999999999996."""
    magnitude = math.floor(abs(value) + 0.5 + 1e-9)
    return int(magnitude if value >= 0 else -magnitude)


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


def quantize_dequantize(x: float, scale: float, zero_point: int) -> dict[str, float]:
    """Unsigned 8-bit asymmetric round trip: q = clamp(round(x / scale) + zero_point, 0, 255),
    x_hat = scale x (q - zero_point). Rounding is half away from zero."""
    steps = round_half_away(x / scale)
    q = max(0, min(255, steps + zero_point))
    x_hat = scale * (q - zero_point)
    return {"answer": x_hat, "q": q, "steps": steps, "ratio": x / scale, "error": abs(x - x_hat)}


def smoothquant_factor(x_absmax: float, w_absmax: float, alpha: float) -> dict[str, float]:
    """SmoothQuant per-input-channel factor s = max|X_j|^alpha / max|W_j|^(1 - alpha);
    X_j is divided by s and W_j multiplied by s, so the new maxima are max|X_j| / s and
    max|W_j| x s."""
    s = x_absmax**alpha / w_absmax ** (1 - alpha)
    return {"answer": s, "x_new": x_absmax / s, "w_new": w_absmax * s}


# --- FP8 and block-scaled formats -------------------------------------------------------------


E4M3_MAX = 448.0
"""Largest finite FP8 E4M3 value (OCP FP8: S.1111.110 = 1.75 x 2^8)."""

E5M2_MAX = 57344.0
"""Largest finite FP8 E5M2 value (1.75 x 2^15)."""


def fp8_scale(absmax: float, fmt: str) -> dict[str, float]:
    """Per-tensor FP8 scale that maps absmax to the format's largest finite value."""
    top = E4M3_MAX if fmt == "e4m3" else E5M2_MAX
    return {"answer": absmax / top, "fmt_max": top}


def block_fp4_bits(block: int, scale_bits: int) -> dict[str, float]:
    """Bits per element of a block-scaled 4-bit format (MXFP4: block 32, 8-bit E8M0 scale;
    NVFP4: block 16, 8-bit E4M3 scale; the per-tensor FP32 scale of NVFP4 is negligible)."""
    return {"answer": 4 + scale_bits / block, "overhead": scale_bits / block}


def block_fp4_storage_per_element(block: int, scale_bits: int) -> dict[str, float]:
    """Storage per element in BYTES of a block-scaled FP4 format: (4 + scale_bits / block) / 8.
    MXFP4: block 32, E8M0 scale; NVFP4: block 16, E4M3 scale (per-tensor FP32 scale ignored)."""
    result = block_fp4_bits(block, scale_bits)
    return {
        "answer": result["answer"] / 8,
        "bits_total": result["answer"],
        "overhead": result["overhead"],
        "ratio_bf16": 16 / result["answer"],
    }


# --- storage of quantized weights and caches --------------------------------------------------


BF16_BITS = 16
"""Bits of one unquantized (FP16/BF16) element."""


def group_bits_per_weight(
    bits: int, group_size: int, scale_bits: int, zero_bits: int
) -> dict[str, float]:
    """Effective storage per weight with one scale (and optional zero-point) per group."""
    overhead = (scale_bits + zero_bits) / group_size
    return {"answer": bits + overhead, "overhead": overhead}


def group_storage_per_weight(
    bits: int, group_size: int, scale_bits: int, zero_bits: int
) -> dict[str, float]:
    """Storage per weight in BYTES for group-wise quantization:
    (bits + (scale_bits + zero_bits) / group_size) / 8."""
    result = group_bits_per_weight(bits, group_size, scale_bits, zero_bits)
    return {
        "answer": result["answer"] / 8,
        "bits_total": result["answer"],
        "overhead": result["overhead"],
        "ratio_fp16": 16 / result["answer"],
    }


def int4_weight_bytes(model: Any, group_size: int) -> dict[str, float]:
    """Weight-only INT4 with one FP16 scale per group of `group_size` weights."""
    bits = 4 + 16 / group_size
    return {"answer": model.params * bits / 8, "bits": bits}


def w4a16_weight_bytes(
    model: Any, group_size: int, scale_bits: int, zero_bits: int
) -> dict[str, float]:
    """Weight memory of a W4A16 checkpoint (AWQ/GPTQ style): every decoder linear weight in INT4
    with one scale and one zero point per group, while the input embedding and the LM head
    (untied, vocab x hidden each) stay in BF16; norms are negligible.
    bytes = (params - 2 V H) x (4 + (scale_bits + zero_bits) / group) / 8 + 2 V H x 2."""
    head_params = 2 * model.vocab * model.hidden
    quant_params = model.params - head_params
    bits = 4 + (scale_bits + zero_bits) / group_size
    quant_bytes = quant_params * bits / 8
    head_bytes = head_params * BF16_BITS / 8
    return {
        "answer": quant_bytes + head_bytes,
        "head_params": head_params,
        "quant_params": quant_params,
        "bits": bits,
        "quant_bytes": quant_bytes,
        "head_bytes": head_bytes,
        "bf16_bytes": model.params * BF16_BITS / 8,
        "ratio": model.params * BF16_BITS / 8 / (quant_bytes + head_bytes),
    }


def int8_engine_weight_bytes(params_m: float, fp16_fraction: float) -> dict[str, float]:
    """Weight bytes of an INT8 engine where `fp16_fraction` of the parameters stay in FP16
    (sensitive first/last layers) and the rest are INT8; scales and engine metadata ignored."""
    params = params_m * 1e6
    int8_bytes = params * (1 - fp16_fraction) * 1
    fp16_kept = params * fp16_fraction * 2
    total = int8_bytes + fp16_kept
    fp16_engine = params * 2
    return {
        "answer": total,
        "params": params,
        "int8_bytes": int8_bytes,
        "fp16_kept_bytes": fp16_kept,
        "fp16_engine_bytes": fp16_engine,
        "ratio": total / fp16_engine,
    }


def kivi_compression(bits: int, group_size: int, context: int, residual: int) -> dict[str, float]:
    """Compression of a KIVI-style KV cache against FP16 at `context` tokens. Quantized tokens
    store `bits` per element plus one FP16 scale and one FP16 zero point per group of
    `group_size` elements; the `residual` most recent tokens stay in FP16:
    avg bits = ((context - residual)(bits + 32 / group) + 16 residual) / context,
    ratio = 16 / avg bits."""
    quant_bits = bits + 2 * BF16_BITS / group_size
    avg = ((context - residual) * quant_bits + BF16_BITS * residual) / context
    return {
        "answer": BF16_BITS / avg,
        "quant_bits": quant_bits,
        "avg_bits": avg,
        "ideal": BF16_BITS / bits,
        "no_residual": BF16_BITS / quant_bits,
    }
