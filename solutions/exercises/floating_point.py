"""Floating-point exercises: FP8 E4M3 rounding with a per-tensor scale.

Rounding is round-half-to-even (CUDA's default). The comparison forgives a one-step difference
only where the unrounded value lies within a hair of a half step; exact ties in the constructed
edge cases are held to the rule."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, Tolerance, mutate
from solutions.exercises.compare import rounding

# --- FP8 E4M3 ---------------------------------------------------------------------------------

E4M3_MAX = 448.0
E4M3_MIN_NORMAL_EXP = -6


def _e4m3_quantum(a: np.ndarray) -> np.ndarray:
    """The spacing of E4M3 values around |a|: 2^(e-3) in the binade [2^e, 2^(e+1)), e >= -6;
    2^-9 for the subnormals below 2^-6."""
    _, exp = np.frexp(a)  # a = m * 2^exp with m in [0.5, 1), so floor(log2 a) = exp - 1
    e = np.maximum(exp - 1, E4M3_MIN_NORMAL_EXP)
    return np.ldexp(1.0, e - 3)


def fp8_reference(x: np.ndarray, scale: float) -> np.ndarray:
    y = x.astype(np.float64) / scale
    a = np.abs(y)
    quantum = _e4m3_quantum(a)
    r = np.minimum(np.round(a / quantum) * quantum, E4M3_MAX)
    return (np.sign(y) * r * scale).astype(np.float32)


def _fp8_grid(case: Case) -> tuple[np.ndarray, np.ndarray]:
    a = np.abs(case["x"].astype(np.float64) / case["scale"])
    quantum = _e4m3_quantum(a)
    return a / quantum, quantum * case["scale"]


def _fp8_case(rng: np.random.Generator, size: float) -> Case:
    n = int(rng.integers(1, 2 + int(200 * size)))
    x = (rng.standard_normal(n) * 10.0 ** rng.uniform(-4, 1, n)).astype(np.float32)
    amax = float(np.abs(x).max()) or 1.0
    # Per-tensor scale from the amax, sometimes stale (too small: values saturate).
    scale = amax / E4M3_MAX * float(rng.choice([1.0, 1.0, 0.5, 0.1]))
    return {"x": x, "scale": scale}


FP8_SOLUTION = '''\
import numpy as np


def fp8_e4m3_fake_quant(x: np.ndarray, scale: float) -> np.ndarray:
    """x: float32 array; scale > 0. Rounds y = x / scale to the nearest FP8 E4M3 value
    (round-half-even on the 3-bit mantissa, subnormals below 2^-6, saturating at ±448) and
    returns that value times scale, as float32."""
    y = x.astype(np.float64) / scale
    a = np.abs(y)
    _, exp = np.frexp(a)  # a = m * 2^exp, m in [0.5, 1): floor(log2(a)) = exp - 1
    e = np.maximum(exp - 1, -6)  # below 2^-6 the spacing stays that of the subnormals
    quantum = np.ldexp(1.0, e - 3)  # 3 mantissa bits: 8 steps per binade
    r = np.round(a / quantum) * quantum  # round half to even (ties go to an even mantissa)
    r = np.minimum(r, 448.0)  # saturate: E4M3 has no inf, 448 = 1.75 * 2^8 is the largest
    return (np.sign(y) * r * scale).astype(np.float32)
'''


def _fp8_ties() -> Case:
    """Exact midpoints with scale 1: 1 + 1/16 lies halfway between 1 and 1.125 (ties to 1.0, the
    even mantissa), 1 + 3/16 between 1.125 and 1.25 (ties to 1.25); 3·2^-10 between the
    subnormals 2^-9 and 2^-8."""
    vals = [1.0625, 1.1875, -1.0625, 3 * 2.0**-10, 2.0**-10, 2.5, 11.0, 13.0, 0.0]
    return {"x": np.array(vals, dtype=np.float32), "scale": 1.0}


FP8_E4M3 = ExerciseSpec(
    reference=fp8_reference,
    make_case=_fp8_case,
    solution=FP8_SOLUTION,
    compare=rounding(_fp8_grid),
    tolerances={"float32": Tolerance(1e-6, 1e-12)},
    examples=({"x": np.array([0.3, -1.7, 5.0, 1000.0], dtype=np.float32), "scale": 1.0},),
    edge_cases={
        "exact ties (round half to even)": lambda rng: _fp8_ties(),
        "subnormals (below 2^-6)": lambda rng: {
            "x": np.array(
                [2.0**-7, 2.0**-9, 3 * 2.0**-9 * 1.2, 2.0**-12, -(2.0**-8) * 1.3], dtype=np.float32
            ),
            "scale": 1.0,
        },
        "saturation at 448": lambda rng: {
            "x": np.array([440.0, 460.0, 470.0, 500.0, -1e4, 448.0], dtype=np.float32),
            "scale": 1.0,
        },
        "scale that is not a power of two": lambda rng: {
            "x": (rng.standard_normal(50) * 3).astype(np.float32),
            "scale": 0.0123,
        },
        "stale scale (amax grew 10x)": lambda rng: {
            "x": (rng.standard_normal(40) * 10).astype(np.float32),
            "scale": 3.0 / 448.0,
        },
    },
    mutants=(
        Mutant(
            "round half away from zero",
            mutate(
                FP8_SOLUTION,
                "r = np.round(a / quantum) * quantum",
                "r = np.floor(a / quantum + 0.5) * quantum",
            ),
            "IEEE conversion rounds ties to the even mantissa",
        ),
        Mutant(
            "subnormals flushed to zero",
            mutate(
                FP8_SOLUTION,
                "    r = np.minimum(r, 448.0)",
                "    r = np.where(a < 2.0**-6, 0.0, r)\n    r = np.minimum(r, 448.0)",
            ),
            "E4M3 has subnormals down to 2^-9",
        ),
        Mutant(
            "no saturation",
            mutate(FP8_SOLUTION, "    r = np.minimum(r, 448.0)", "    pass"),
            "values beyond 448 must clamp (E4M3FN has no infinity)",
        ),
        Mutant(
            "two mantissa bits (E5M2 spacing)",
            mutate(
                FP8_SOLUTION, "quantum = np.ldexp(1.0, e - 3)", "quantum = np.ldexp(1.0, e - 2)"
            ),
            "E4M3 has 3 mantissa bits: 8 values per binade",
        ),
        Mutant(
            "scale multiplied instead of divided",
            mutate(
                FP8_SOLUTION, "y = x.astype(np.float64) / scale", "y = x.astype(np.float64) * scale"
            ),
            "the tensor is divided by its scale to fit the FP8 range",
        ),
    ),
)
