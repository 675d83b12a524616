"""Weight-only quantized GEMM (W4A16): unpack two INT4 codes per byte, apply the per-group scales
and multiply — the work a Marlin-style kernel does in registers."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, Tolerance, mutate
from solutions.exercises.compare import normal


def _unpack(packed: np.ndarray) -> np.ndarray:
    p = packed.astype(np.int64)
    q = np.empty((p.shape[0], 2 * p.shape[1]), dtype=np.int64)
    q[:, 0::2], q[:, 1::2] = p & 0xF, p >> 4
    return np.where(q >= 8, q - 16, q)


def w4a16_reference(
    x: np.ndarray, packed: np.ndarray, scales: np.ndarray, group: int
) -> np.ndarray:
    q = _unpack(packed).astype(np.float64)
    w = q * np.repeat(scales.astype(np.float64), group, axis=1)
    return (x.astype(np.float64) @ w.T).astype(np.float32)


def _w4_fixed(rng: np.random.Generator, m: int, n: int, groups: int, group: int) -> Case:
    k = groups * group
    codes = rng.integers(-8, 8, (n, k))
    nib = codes & 0xF
    return {
        "x": normal(rng, (m, k)).astype(np.float16),
        "packed": (nib[:, 0::2] | (nib[:, 1::2] << 4)).astype(np.uint8),
        "scales": (rng.uniform(0.005, 0.05, (n, groups))).astype(np.float16),
        "group": group,
    }


def _w4_case(rng: np.random.Generator, size: float) -> Case:
    return _w4_fixed(
        rng,
        int(rng.integers(1, 2 + int(8 * size))),
        int(rng.integers(1, 2 + int(24 * size))),
        int(rng.integers(1, 2 + int(4 * size))),
        int(rng.choice([2, 4, 8, 16, 32])),
    )


W4A16_SOLUTION = '''\
import numpy as np


def w4a16_matmul(x: np.ndarray, packed: np.ndarray, scales: np.ndarray, group: int) -> np.ndarray:
    """x: (M, K) float16 activations. packed: (N, K // 2) uint8, two signed 4-bit codes per byte
    (column 2j in the low nibble, 2j+1 in the high nibble). scales: (N, K // group) float16, one
    per row and group of columns. Returns x @ W^T with W = code * scale, as float32 (M, N)."""
    p = packed.astype(np.int32)
    n, half = p.shape
    q = np.empty((n, 2 * half), dtype=np.int32)
    q[:, 0::2] = p & 0xF  # low nibble: even column
    q[:, 1::2] = p >> 4  # high nibble: odd column
    q = np.where(q >= 8, q - 16, q)  # 4-bit two's complement: 8..15 are -8..-1
    w = q.astype(np.float32) * np.repeat(scales.astype(np.float32), group, axis=1)  # dequantize
    return x.astype(np.float32) @ w.T  # accumulate in float32
'''

W4A16_MATMUL = ExerciseSpec(
    reference=w4a16_reference,
    make_case=_w4_case,
    solution=W4A16_SOLUTION,
    tolerances={"float32": Tolerance(1e-4, 1e-4)},
    examples=(
        {
            "x": np.array([[1.0, 2.0, 3.0, 4.0]], dtype=np.float16),
            "packed": np.array([[0xF7, 0x93]], dtype=np.uint8),
            "scales": np.array([[0.5, 0.25]], dtype=np.float16),
            "group": 2,
        },
    ),
    edge_cases={
        "one group per row": lambda rng: _w4_fixed(rng, 3, 5, 1, 16),
        "groups of 2": lambda rng: _w4_fixed(rng, 2, 4, 6, 2),
        "many groups, one output": lambda rng: _w4_fixed(rng, 4, 1, 8, 4),
        "all codes -8 and 7": lambda rng: {
            **_w4_fixed(rng, 2, 3, 2, 4),
            "packed": np.full((3, 4), 0x78, dtype=np.uint8),
        },
    },
    mutants=(
        Mutant(
            "nibbles swapped",
            mutate(
                mutate(W4A16_SOLUTION, "q[:, 0::2] = p & 0xF", "q[:, 0::2] = p >> 4"),
                "q[:, 1::2] = p >> 4",
                "q[:, 1::2] = p & 0xF",
            ),
            "the even column is in the low nibble",
        ),
        Mutant(
            "codes read as unsigned",
            mutate(W4A16_SOLUTION, "    q = np.where(q >= 8, q - 16, q)", "    q = q"),
            "codes 8..15 are the negative values -8..-1",
        ),
        Mutant(
            "scales tiled instead of repeated",
            mutate(
                W4A16_SOLUTION,
                "np.repeat(scales.astype(np.float32), group, axis=1)",
                "np.tile(scales.astype(np.float32), (1, group))",
            ),
            "group g covers columns g*group .. g*group + group - 1",
        ),
        Mutant(
            "codes offset by 8 (unsigned with zero point)",
            mutate(W4A16_SOLUTION, "    q = np.where(q >= 8, q - 16, q)", "    q = q - 8"),
            "that is the uint4 convention; these codes are two's complement",
        ),
    ),
)
