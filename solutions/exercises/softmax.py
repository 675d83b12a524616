"""Softmax exercises: the safe (max-subtracted) softmax and the single-pass online softmax."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, mutate


def softmax_reference(x: np.ndarray, **_: object) -> np.ndarray:
    """Softmax over the last axis, computed in float64 and returned in x's dtype."""
    wide = x.astype(np.float64)
    shifted = np.exp(wide - wide.max(axis=-1, keepdims=True))
    return (shifted / shifted.sum(axis=-1, keepdims=True)).astype(x.dtype)


def _logits(rng: np.random.Generator, shape: tuple[int, ...], scale: float) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


# --- safe softmax --------------------------------------------------------------------------


def _safe_case(rng: np.random.Generator, size: float) -> Case:
    ndim = int(rng.integers(1, 4))
    n = int(rng.integers(1, 2 + int(63 * size)))
    lead = [int(rng.integers(1, 2 + int(4 * size))) for _ in range(ndim - 1)]
    return {"x": _logits(rng, (*lead, n), float(rng.uniform(0.5, 8.0)))}


SAFE_SOLUTION = '''\
import numpy as np


def softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis of x, in x's dtype."""
    m = x.max(axis=-1, keepdims=True)  # per row, so every row has an exponent of 0
    e = np.exp(x - m)  # all exponents <= 0: no overflow
    return e / e.sum(axis=-1, keepdims=True)
'''

SAFE_SOFTMAX = ExerciseSpec(
    reference=softmax_reference,
    make_case=_safe_case,
    solution=SAFE_SOLUTION,
    examples=({"x": np.array([1.0, 2.0, 3.0], dtype=np.float32)},),
    edge_cases={
        "length 1": lambda rng: {"x": np.array([3.5], dtype=np.float32)},
        "rows of length 1": lambda rng: {"x": _logits(rng, (3, 1), 4.0)},
        "large logits (around +1000)": lambda rng: {"x": _logits(rng, (2, 7), 3.0) + 1000},
        "very negative logits (around -1000)": lambda rng: {"x": _logits(rng, (2, 7), 3.0) - 1000},
        "rows far apart (+500 and -500)": lambda rng: {
            "x": _logits(rng, (2, 9), 2.0) + np.array([[500.0], [-500.0]], dtype=np.float32)
        },
        "masked logits (-inf)": lambda rng: {
            "x": np.where(
                np.arange(8) % 3 == 1, np.float32(-np.inf), _logits(rng, (3, 8), 2.0)
            ).astype(np.float32)
        },
        "all equal": lambda rng: {"x": np.full((2, 5), 7.0, dtype=np.float32)},
        "more rows than columns": lambda rng: {"x": _logits(rng, (6, 4), 2.0)},
    },
    mutants=(
        Mutant(
            "no max subtraction",
            mutate(SAFE_SOLUTION, "np.exp(x - m)", "np.exp(x)"),
            "exp overflows to inf for logits near +1000 and underflows to 0 near -1000",
        ),
        Mutant(
            "one max for the whole tensor",
            mutate(SAFE_SOLUTION, "x.max(axis=-1, keepdims=True)", "x.max()"),
            "a row far below the global max underflows to 0/0",
        ),
        Mutant(
            "normalized over the wrong axis",
            mutate(SAFE_SOLUTION, "e.sum(axis=-1, keepdims=True)", "e.sum(axis=0, keepdims=True)"),
            "rows do not sum to 1",
        ),
    ),
)
