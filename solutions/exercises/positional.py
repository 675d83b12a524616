"""Positional-encoding exercises: rotary position embedding (RoPE) with a cos/sin cache."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, Tolerance, mutate
from solutions.exercises.compare import normal


def rope_reference(x: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    """Rotate each adjacent pair (x[2i], x[2i+1]) by positions·base^(-2i/D), in float64."""
    d = x.shape[-1]
    inv_freq = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    angle = positions.astype(np.float64)[:, None] * inv_freq[None, :]  # (S, D/2)
    cos, sin = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
    x64 = x.astype(np.float64)
    even, odd = x64[..., 0::2], x64[..., 1::2]
    out = np.empty_like(x64)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out.astype(x.dtype)


def _rope_fixed(
    rng: np.random.Generator, s: int, h: int, d: int, positions: np.ndarray, base: float
) -> Case:
    return {
        "x": normal(rng, (s, h, d)),
        "positions": positions.astype(np.int64),
        "base": base,
    }


def _rope_case(rng: np.random.Generator, size: float) -> Case:
    s = int(rng.integers(1, 2 + int(11 * size)))
    h = int(rng.integers(1, 2 + int(3 * size)))
    d = 2 * int(rng.integers(1, 2 + int(15 * size)))
    start = int(rng.integers(0, 1 + int(2000 * size)))
    positions = start + np.arange(s)
    if rng.random() < 0.3:  # packed sequences: positions restart inside the batch
        positions = np.concatenate([np.arange(s // 2), start + np.arange(s - s // 2)])
    base = float(rng.choice([10000.0, 500000.0, 100.0]))
    return _rope_fixed(rng, s, h, d, positions, base)


ROPE_SOLUTION = '''\
import numpy as np


def rope_cache(max_pos: int, d: int, base: float) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin tables of shape (max_pos, d // 2): built once, reused by every layer."""
    inv_freq = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)  # theta_i = base^(-2i/d)
    angle = np.outer(np.arange(max_pos, dtype=np.float64), inv_freq)  # (max_pos, d/2)
    return np.cos(angle), np.sin(angle)


def apply_rope(x: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    """x: (S, H, D) float32, D even; positions: (S,) int. Rotates every pair (x[2i], x[2i+1])
    of every head by the angle positions[s] * base^(-2i/D). Returns (S, H, D) float32."""
    d = x.shape[-1]
    cos_table, sin_table = rope_cache(int(positions.max()) + 1, d, base)
    cos = cos_table[positions][:, None, :]  # (S, 1, D/2): the same angle for every head
    sin = sin_table[positions][:, None, :]
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty(x.shape, dtype=np.float64)
    out[..., 0::2] = even * cos - odd * sin  # a 2-D rotation of (even, odd)
    out[..., 1::2] = even * sin + odd * cos
    return out.astype(x.dtype)
'''

ROPE = ExerciseSpec(
    reference=rope_reference,
    make_case=_rope_case,
    solution=ROPE_SOLUTION,
    examples=(
        {
            "x": np.array([[[1.0, 0.0, 1.0, 0.0]], [[1.0, 0.0, 1.0, 0.0]]], dtype=np.float32),
            "positions": np.array([0, 1], dtype=np.int64),
            "base": 100.0,
        },
    ),
    edge_cases={
        "head size 2 (one pair)": lambda rng: _rope_fixed(rng, 4, 2, 2, np.arange(4), 10000.0),
        "one token decoded at position 4000": lambda rng: _rope_fixed(
            rng, 1, 3, 8, np.array([4000]), 10000.0
        ),
        "positions that do not start at 0": lambda rng: _rope_fixed(
            rng, 5, 2, 16, 37 + np.arange(5), 10000.0
        ),
        "two packed sequences (positions restart)": lambda rng: _rope_fixed(
            rng, 7, 2, 6, np.array([0, 1, 2, 3, 0, 1, 2]), 10000.0
        ),
        "base 500000 (Llama 3)": lambda rng: _rope_fixed(
            rng, 4, 1, 32, 1000 + np.arange(4), 500000.0
        ),
    },
    # float32 angles for positions in the thousands are off by ~1e-4 rad; that is accepted.
    tolerances={"float32": Tolerance(1e-3, 2e-3)},
    mutants=(
        Mutant(
            "rotates halves instead of adjacent pairs",
            mutate(
                ROPE_SOLUTION,
                "even, odd = x[..., 0::2], x[..., 1::2]",
                "even, odd = x[..., : d // 2], x[..., d // 2 :]",
            ),
            "the GPT-NeoX convention pairs x[i] with x[i + D/2], not x[2i] with x[2i+1]",
        ),
        Mutant(
            "frequencies base^(-i/D)",
            mutate(
                ROPE_SOLUTION, "np.arange(0, d, 2, dtype=np.float64) / d", "np.arange(d // 2) / d"
            ),
            "every frequency but the first is too high: the exponent is 2i/D",
        ),
        Mutant(
            "rotates the wrong way",
            mutate(
                mutate(ROPE_SOLUTION, "even * cos - odd * sin", "even * cos + odd * sin"),
                "even * sin + odd * cos",
                "-even * sin + odd * cos",
            ),
            "a rotation by -angle",
        ),
        Mutant(
            "positions ignored (0..S-1)",
            mutate(
                mutate(
                    ROPE_SOLUTION,
                    "cos = cos_table[positions][:, None, :]",
                    "cos = cos_table[: len(positions)][:, None, :]",
                ),
                "sin = sin_table[positions][:, None, :]",
                "sin = sin_table[: len(positions)][:, None, :]",
            ),
            "a decode step at position 4000 is rotated as if it were position 0",
        ),
    ),
)
