"""Floating-point formats: the largest finite value and the spacing of FP32, BF16, FP16
and FP8 numbers, and the loss scaling that keeps FP16 gradients finite and normal.

Every function returns a pure number (a value, a spacing, a scale) as
{"answer": value, **intermediates}.
"""

from __future__ import annotations

import math

from solutions._rounding import eps_ceil, eps_floor

# --- formats ----------------------------------------------------------------------------------


FP16_MAX = 65504.0
"""Largest finite FP16 value: (2 - 2^-10) x 2^15."""

FP16_MIN_NORMAL = 2.0**-14
"""Smallest positive normal FP16 value, about 6.1e-5."""

FLOAT_FORMATS = {
    "FP32": (8, 23),
    "BF16": (8, 7),
    "FP16": (5, 10),
    "FP8 E5M2": (5, 2),
}
"""(exponent bits, explicit mantissa bits) of IEEE-style formats that reserve the top exponent
code for Inf/NaN. FP8 E4M3 is left out on purpose: it gives up Inf and its max is 448."""

FP8_MANTISSA_BITS = {"e4m3": 3, "e5m2": 2}
"""Explicit mantissa bits of the two OCP FP8 formats."""

FP8_MIN_NORMAL_EXP = {"e4m3": -6, "e5m2": -14}
"""Exponent of the smallest normal value (bias 7 and 15)."""


def float_max(fmt: str) -> dict[str, float]:
    """Largest finite value of an IEEE-style binary format with e exponent and m mantissa bits
    (top exponent code reserved for Inf/NaN): bias = 2^(e-1) - 1, emax = bias,
    max = (2 - 2^-m) x 2^emax. FP16: 65504; BF16: about 3.39e38."""
    exp_bits, man_bits = FLOAT_FORMATS[fmt]
    emax = 2 ** (exp_bits - 1) - 1
    return {
        "answer": (2 - 2.0**-man_bits) * 2.0**emax,
        "exp_bits": exp_bits,
        "man_bits": man_bits,
        "emax": emax,
    }


def _spacing(x: float, man_bits: int) -> tuple[int, float]:
    """The binade of a positive normal number x and the gap to the next representable value in
    a format with m explicit mantissa bits: exponent = floor(log2 x), ulp = 2^(exponent - m)."""
    exponent = eps_floor(math.log2(x))
    return exponent, 2.0 ** (exponent - man_bits)


def float_spacing(x: float, fmt: str) -> dict[str, float]:
    """Gap between a positive normal number x and the next larger representable value:
    ulp = 2^(floor(log2 x) - m) for a format with m explicit mantissa bits."""
    _, man_bits = FLOAT_FORMATS[fmt]
    exponent, ulp = _spacing(x, man_bits)
    return {
        "answer": ulp,
        "exponent": exponent,
        "man_bits": man_bits,
        "relative": 2.0**-man_bits,
    }


def fp8_spacing(fmt: str, value: float) -> dict[str, float]:
    """Gap between neighbouring FP8 values around a normal `value`: 2^(floor(log2 value) - m),
    m = 3 mantissa bits for E4M3 and 2 for E5M2."""
    m = FP8_MANTISSA_BITS[fmt]
    exponent, ulp = _spacing(value, m)
    if exponent < FP8_MIN_NORMAL_EXP[fmt]:
        raise ValueError(f"{value} is subnormal in {fmt}")
    return {
        "answer": ulp,
        "name": fmt.upper(),
        "exponent": exponent,
        "mantissa_bits": m,
        "low": 2.0**exponent,
        "high": 2.0 ** (exponent + 1),
        "codes": 2**m,
    }


# --- loss scaling -----------------------------------------------------------------------------


def max_loss_scale(max_grad: float) -> dict[str, float]:
    """Largest power-of-two loss scale S that keeps the largest scaled FP16 gradient finite:
    max_grad x S <= 65504, so S = 2^floor(log2(65504 / max_grad))."""
    power = eps_floor(math.log2(FP16_MAX / max_grad))
    scale = 2.0**power
    return {
        "answer": scale,
        "power": power,
        "scaled": max_grad * scale,
        "headroom": FP16_MAX / max_grad,
    }


def min_loss_scale(grad: float) -> dict[str, float]:
    """Smallest power-of-two loss scale S that lifts a gradient of magnitude `grad` to FP16's
    smallest normal value 2^-14: S = 2^ceil(log2(2^-14 / grad)) (at least 1)."""
    power = max(0, eps_ceil(math.log2(FP16_MIN_NORMAL / grad)))
    scale = 2.0**power
    return {"answer": scale, "power": power, "scaled": grad * scale}


def dynamic_loss_scale(
    init_scale: float, overflows: int, clean_steps: int, growth_interval: int
) -> dict[str, float]:
    """Dynamic loss scaling as in PyTorch's GradScaler (backoff 0.5, growth 2.0): `overflows`
    consecutive overflow steps each halve the scale (and skip the optimizer step), then every
    `growth_interval` consecutive clean steps double it:
    S = init x 0.5^overflows x 2^floor(clean_steps / growth_interval)."""
    after_overflows = init_scale * 0.5**overflows
    growths = clean_steps // growth_interval
    return {
        "answer": after_overflows * 2.0**growths,
        "after_overflows": after_overflows,
        "growths": growths,
        "skipped": overflows,
    }
