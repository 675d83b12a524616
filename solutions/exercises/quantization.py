"""Quantization exercises: symmetric per-channel INT8, asymmetric per-row UINT8 fake
quantization and group-wise INT4 with two values packed per byte (FP8 is in floating_point.py).

Rounding is round-half-to-even everywhere (np.round, CUDA's default). The comparisons forgive a
one-step difference only where the unrounded value lies within a hair of a half step (a
different but legitimate order of float operations can land on either side); exact ties in the
constructed edge cases are held to the rule."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import (
    EXACT,
    Case,
    ExerciseSpec,
    Mismatch,
    Mutant,
    Tolerance,
    mutate,
)
from solutions.exercises.compare import normal, rounding

# --- symmetric per-channel INT8 ---------------------------------------------------------------


def _sym_scale(w: np.ndarray, qmax: int) -> np.ndarray:
    amax = np.abs(w.astype(np.float64)).max(axis=-1, keepdims=True)
    return np.where(amax > 0, amax / qmax, 1.0)


def int8_sym_reference(w: np.ndarray) -> np.ndarray:
    q = np.round(w.astype(np.float64) / _sym_scale(w, 127))
    return np.clip(q, -127, 127).astype(np.int8)


def _int8_grid(case: Case) -> tuple[np.ndarray, np.ndarray]:
    w = case["w"].astype(np.float64)
    return w / _sym_scale(case["w"], 127), np.ones_like(w)


def _weights(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    w = normal(rng, (rows, cols)) * (10.0 ** rng.uniform(-2, 1, (rows, 1))).astype(np.float32)
    if rows > 2:
        w[rng.integers(0, rows), rng.integers(0, cols)] *= 20  # an outlier stretches one row
    return w.astype(np.float32)


def _int8_case(rng: np.random.Generator, size: float) -> Case:
    return {
        "w": _weights(
            rng, int(rng.integers(1, 2 + int(15 * size))), int(rng.integers(1, 2 + int(60 * size)))
        )
    }


INT8_SYM_SOLUTION = '''\
import numpy as np


def quantize_int8_symmetric(w: np.ndarray) -> np.ndarray:
    """w: (O, I) float32 weights. Per output channel (row): scale = max|w| / 127 (1 for an
    all-zero row), q = round-half-even(w / scale) clipped to [-127, 127]. Returns int8 (O, I)."""
    amax = np.abs(w).max(axis=1, keepdims=True)
    scale = np.where(amax > 0, amax / 127.0, 1.0)  # a zero row would divide by zero
    q = np.round(w / scale)  # np.round rounds half to even
    return np.clip(q, -127, 127).astype(np.int8)
'''


def _ties_row() -> Case:
    """A row whose max is 127, so the scale is exactly 1 and x.5 values are exact ties."""
    return {"w": np.array([[127.0, 2.5, -3.5, 0.5, -0.5, 1.5, 126.5]], dtype=np.float32)}


INT8_SYMMETRIC = ExerciseSpec(
    reference=int8_sym_reference,
    make_case=_int8_case,
    solution=INT8_SYM_SOLUTION,
    compare=rounding(_int8_grid),
    examples=({"w": np.array([[0.4, -1.0, 0.25], [2.0, 0.0, -0.6]], dtype=np.float32)},),
    edge_cases={
        "exact ties (scale 1)": lambda rng: _ties_row(),
        "an all-zero row": lambda rng: {
            "w": np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]], dtype=np.float32)
        },
        "rows of very different ranges": lambda rng: {
            "w": (normal(rng, (4, 16)) * np.array([[1e-3], [1.0], [50.0], [1e3]])).astype(
                np.float32
            )
        },
        "one column": lambda rng: {"w": normal(rng, (5, 1))},
        "outlier in a row": lambda rng: {"w": _weights(rng, 6, 40)},
    },
    mutants=(
        Mutant(
            "scale max/128",
            mutate(INT8_SYM_SOLUTION, "amax / 127.0", "amax / 128.0"),
            "symmetric INT8 uses ±127 so that the range is symmetric around 0",
        ),
        Mutant(
            "truncation instead of rounding",
            mutate(INT8_SYM_SOLUTION, "q = np.round(w / scale)", "q = np.trunc(w / scale)"),
            "truncation doubles the worst-case error and biases values toward 0",
        ),
        Mutant(
            "round half away from zero",
            mutate(
                INT8_SYM_SOLUTION,
                "q = np.round(w / scale)",
                "q = np.sign(w / scale) * np.floor(np.abs(w / scale) + 0.5)",
            ),
            "the convention here is round-half-to-even",
        ),
        Mutant(
            "one scale for the whole tensor",
            mutate(
                INT8_SYM_SOLUTION,
                "amax = np.abs(w).max(axis=1, keepdims=True)",
                "amax = np.abs(w).max()",
            ),
            "a per-tensor scale crushes the rows with small ranges",
        ),
    ),
)


# --- asymmetric per-row UINT8 fake quantization ------------------------------------------------


def _asym_params(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x64 = x.astype(np.float64)
    lo = np.minimum(x64.min(axis=-1, keepdims=True), 0.0)
    hi = np.maximum(x64.max(axis=-1, keepdims=True), 0.0)
    scale = np.where(hi > lo, (hi - lo) / 255.0, 1.0)
    zp = np.clip(np.round(-lo / scale), 0, 255)
    return scale, zp


def asym_reference(x: np.ndarray) -> np.ndarray:
    scale, zp = _asym_params(x)
    q = np.clip(np.round(x.astype(np.float64) / scale) + zp, 0, 255)
    return ((q - zp) * scale).astype(np.float32)


def _asym_grid(case: Case) -> tuple[np.ndarray, np.ndarray]:
    scale, _ = _asym_params(case["x"])
    x = case["x"].astype(np.float64)
    return x / scale, np.broadcast_to(scale, x.shape)


def _activations(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    shift = rng.uniform(-2, 4, (rows, 1))  # ranges that are not centred on 0 (e.g. after GELU)
    return (normal(rng, (rows, cols)) * rng.uniform(0.1, 3, (rows, 1)) + shift).astype(np.float32)


def _asym_case(rng: np.random.Generator, size: float) -> Case:
    return {
        "x": _activations(
            rng, int(rng.integers(1, 2 + int(12 * size))), int(rng.integers(1, 2 + int(60 * size)))
        )
    }


ASYM_SOLUTION = '''\
import numpy as np


def fake_quant_uint8_asym(x: np.ndarray) -> np.ndarray:
    """x: (R, C) float32. Per row: the range [min(x, 0), max(x, 0)] (always containing 0) maps
    onto 0..255: scale = (hi - lo) / 255 (1 if hi == lo), zero_point = round(-lo / scale)
    clipped to [0, 255]; q = clip(round(x / scale) + zero_point, 0, 255). Returns the
    dequantized values (q - zero_point) * scale as float32."""
    lo = np.minimum(x.min(axis=1, keepdims=True), 0.0)  # include 0 so it is exactly representable
    hi = np.maximum(x.max(axis=1, keepdims=True), 0.0)
    scale = np.where(hi > lo, (hi - lo) / 255.0, 1.0)
    zp = np.clip(np.round(-lo / scale), 0, 255)  # an integer: real 0 maps to code zp exactly
    q = np.clip(np.round(x / scale) + zp, 0, 255)
    return ((q - zp) * scale).astype(np.float32)
'''

ASYM_FAKE_QUANT = ExerciseSpec(
    reference=asym_reference,
    make_case=_asym_case,
    solution=ASYM_SOLUTION,
    compare=rounding(_asym_grid),
    tolerances={"float32": Tolerance(1e-5, 1e-6)},
    examples=({"x": np.array([[-1.0, 0.0, 0.75, 2.0]], dtype=np.float32)},),
    edge_cases={
        "all-positive row (range must still include 0)": lambda rng: {
            "x": (rng.uniform(2.0, 5.0, (2, 9))).astype(np.float32)
        },
        "all-negative row": lambda rng: {"x": (-rng.uniform(1.0, 3.0, (2, 7))).astype(np.float32)},
        "a constant-zero row": lambda rng: {"x": np.zeros((2, 5), dtype=np.float32)},
        "skewed range": lambda rng: {"x": _activations(rng, 4, 30)},
        "one column": lambda rng: {"x": normal(rng, (4, 1))},
    },
    mutants=(
        Mutant(
            "zero point not rounded",
            mutate(
                ASYM_SOLUTION,
                "zp = np.clip(np.round(-lo / scale), 0, 255)",
                "zp = np.clip(-lo / scale, 0, 255)",
            ),
            "a fractional zero point takes values off the integer grid; 0 is no longer exact",
        ),
        Mutant(
            "range not extended to 0",
            mutate(
                mutate(
                    ASYM_SOLUTION,
                    "lo = np.minimum(x.min(axis=1, keepdims=True), 0.0)",
                    "lo = x.min(axis=1, keepdims=True)",
                ),
                "hi = np.maximum(x.max(axis=1, keepdims=True), 0.0)",
                "hi = x.max(axis=1, keepdims=True)",
            ),
            "for an all-positive row the zero point falls outside 0..255 and gets clipped",
        ),
        Mutant(
            "clipped to the int8 range",
            mutate(
                ASYM_SOLUTION,
                "np.clip(np.round(x / scale) + zp, 0, 255)",
                "np.clip(np.round(x / scale) + zp, -128, 127)",
            ),
            "unsigned codes go up to 255",
        ),
        Mutant(
            "zero point added after dequantizing",
            mutate(
                ASYM_SOLUTION,
                "return ((q - zp) * scale).astype(np.float32)",
                "return (q * scale - zp).astype(np.float32)",
            ),
            "subtract the zero point in the integer domain, then scale",
        ),
    ),
)


# --- group-wise INT4 with packing -------------------------------------------------------------


def _int4_codes(w: np.ndarray, group: int) -> np.ndarray:
    n, k = w.shape
    g = w.astype(np.float64).reshape(n, k // group, group)
    scale = _sym_scale(g, 7)
    return np.clip(np.round(g / scale), -8, 7).reshape(n, k).astype(np.int64)


def int4_reference(w: np.ndarray, group: int) -> np.ndarray:
    q = _int4_codes(w, group) & 0xF
    return (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8)


def _unpack(packed: np.ndarray) -> np.ndarray:
    p = packed.astype(np.int64) & 0xFF
    lo, hi = p & 0xF, (p >> 4) & 0xF
    q = np.empty((p.shape[0], 2 * p.shape[1]), dtype=np.int64)
    q[:, 0::2], q[:, 1::2] = lo, hi
    return np.where(q >= 8, q - 16, q)


def _int4_grid(case: Case) -> tuple[np.ndarray, np.ndarray]:
    w, group = case["w"], case["group"]
    n, k = w.shape
    g = w.astype(np.float64).reshape(n, k // group, group)
    return (g / _sym_scale(g, 7)).reshape(n, k), np.ones((n, k))


_int4_codes_compare = rounding(_int4_grid)


def int4_compare(
    expected: np.ndarray, got: np.ndarray, case: Case, tol: Tolerance
) -> Mismatch | None:
    if got.shape != expected.shape:
        return Mismatch(
            f"the output has shape {got.shape}, expected {expected.shape} (two codes per byte)"
        )
    if got.dtype.kind not in "iu":
        return Mismatch(f"the output has dtype {got.dtype}, expected uint8")
    if (got < 0).any() or (got > 255).any():
        return Mismatch("packed bytes must lie in 0..255")
    problem = _int4_codes_compare(_unpack(expected), _unpack(got), case, EXACT)
    if problem is None:
        return None
    return Mismatch(
        f"after unpacking (low nibble = even column, high nibble = odd column): {problem.message}",
        None if problem.index is None else (problem.index[0], problem.index[1] // 2),
        problem.max_abs,
    )


def _int4_fixed(rng: np.random.Generator, n: int, groups: int, group: int) -> Case:
    return {"w": _weights(rng, n, groups * group), "group": group}


def _int4_case(rng: np.random.Generator, size: float) -> Case:
    group = int(rng.choice([2, 4, 8, 16, 32]))
    return _int4_fixed(
        rng, int(rng.integers(1, 2 + int(8 * size))), int(rng.integers(1, 2 + int(4 * size))), group
    )


INT4_SOLUTION = '''\
import numpy as np


def quantize_int4_packed(w: np.ndarray, group: int) -> np.ndarray:
    """w: (N, K) float32, K a multiple of group (group even). Per row and per group of `group`
    consecutive columns: scale = max|w| / 7 (1 if all zero), q = round-half-even(w / scale)
    clipped to [-8, 7]. Packs two 4-bit two's-complement codes per byte: column 2j in the low
    nibble, column 2j+1 in the high nibble. Returns uint8 (N, K // 2)."""
    n, k = w.shape
    g = w.reshape(n, k // group, group)
    amax = np.abs(g).max(axis=2, keepdims=True)
    scale = np.where(amax > 0, amax / 7.0, 1.0)  # one scale per (row, group)
    q = np.clip(np.round(g / scale), -8, 7).astype(np.int32).reshape(n, k)
    q = q & 0xF  # two's complement in 4 bits: -1 -> 0b1111
    return (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8)
'''

INT4_PACKED = ExerciseSpec(
    reference=int4_reference,
    make_case=_int4_case,
    solution=INT4_SOLUTION,
    compare=int4_compare,
    examples=({"w": np.array([[0.7, -0.1, 0.3, -0.7]], dtype=np.float32), "group": 4},),
    edge_cases={
        "group of 2": lambda rng: _int4_fixed(rng, 3, 4, 2),
        "groups with very different ranges": lambda rng: {
            "w": (normal(rng, (2, 32)) * np.repeat([1e-2, 1.0, 30.0, 0.1], 8)).astype(np.float32),
            "group": 8,
        },
        "an all-zero group": lambda rng: {
            "w": np.concatenate([np.zeros((2, 4)), normal(rng, (2, 4))], axis=1).astype(np.float32),
            "group": 4,
        },
        "one group per row": lambda rng: _int4_fixed(rng, 4, 1, 16),
        "negative codes everywhere": lambda rng: {"w": -np.abs(normal(rng, (3, 8))), "group": 8},
    },
    mutants=(
        Mutant(
            "nibbles swapped",
            mutate(
                INT4_SOLUTION,
                "(q[:, 0::2] | (q[:, 1::2] << 4))",
                "(q[:, 1::2] | (q[:, 0::2] << 4))",
            ),
            "the even column goes in the low nibble",
        ),
        Mutant(
            "negative codes not masked",
            mutate(
                INT4_SOLUTION, "    q = q & 0xF  # two's complement in 4 bits: -1 -> 0b1111\n", ""
            ),
            "a negative int keeps its high sign bits and spills into the other nibble",
        ),
        Mutant(
            "one scale per row",
            mutate(
                INT4_SOLUTION,
                "amax = np.abs(g).max(axis=2, keepdims=True)",
                "amax = np.abs(g).max(axis=(1, 2), keepdims=True)",
            ),
            "group-wise scales are the point: one outlier only costs its own group",
        ),
        Mutant(
            "scale max/8",
            mutate(INT4_SOLUTION, "amax / 7.0", "amax / 8.0"),
            "the positive side only reaches +7, so the scale is max/7",
        ),
    ),
)
