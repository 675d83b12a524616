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


# --- online softmax ------------------------------------------------------------------------


def online_softmax_reference(x: np.ndarray, block: int) -> np.ndarray:
    """The same softmax: how the row is read does not change the answer."""
    return softmax_reference(x)


def _online_case(rng: np.random.Generator, size: float) -> Case:
    rows = int(rng.integers(1, 2 + int(4 * size)))
    n = int(rng.integers(1, 2 + int(69 * size)))
    block = int(rng.integers(1, 17))
    x = _logits(rng, (rows, n), float(rng.uniform(0.5, 8.0)))
    if rng.random() < 0.5:  # a rising trend, so the running max keeps moving
        x += np.linspace(0, float(rng.uniform(5, 40)), n, dtype=np.float32)
    return {"x": x, "block": block}


def _first_chunk_masked(rng: np.random.Generator) -> Case:
    x = _logits(rng, (2, 11), 3.0)
    x[:, :4] = -np.inf
    return {"x": x, "block": 4}


ONLINE_SOLUTION = '''\
import numpy as np


def online_softmax(x: np.ndarray, block: int) -> np.ndarray:
    """Softmax over the last axis of a 2-D x: one pass over each row in chunks of `block`
    columns keeps a running max m and a running sum d of exp(x - m); a second pass normalizes."""
    rows, n = x.shape
    m = np.full(rows, -np.inf, dtype=np.float32)  # running max of the columns seen so far
    d = np.zeros(rows, dtype=np.float32)  # running sum of exp(x - m) over those columns
    for start in range(0, n, block):
        chunk = x[:, start : start + block]
        m_new = np.maximum(m, chunk.max(axis=1))
        # While every value seen so far is masked, m_new is -inf and -inf - (-inf) is NaN:
        # shift by 0 then (exp(-inf) is 0, so nothing changes).
        shift = np.where(np.isneginf(m_new), np.float32(0), m_new)
        # Rescale the old sum to the new max, then add this chunk's terms.
        d = d * np.exp(m - shift) + np.exp(chunk - shift[:, None]).sum(axis=1)
        m = m_new
    return (np.exp(x - m[:, None]) / d[:, None]).astype(x.dtype)
'''

ONLINE_SOFTMAX = ExerciseSpec(
    reference=online_softmax_reference,
    make_case=_online_case,
    solution=ONLINE_SOLUTION,
    examples=({"x": np.array([[1.0, 3.0, 2.0, 5.0]], dtype=np.float32), "block": 2},),
    edge_cases={
        "one column": lambda rng: {"x": _logits(rng, (3, 1), 2.0), "block": 4},
        "block of 1": lambda rng: {"x": _logits(rng, (2, 9), 3.0), "block": 1},
        "block longer than the row": lambda rng: {"x": _logits(rng, (2, 5), 3.0), "block": 8},
        "row length not a multiple of the block": lambda rng: {
            "x": _logits(rng, (2, 11), 3.0),
            "block": 4,
        },
        "rising rows (the max grows in every chunk)": lambda rng: {
            "x": np.sort(_logits(rng, (2, 10), 6.0), axis=1),
            "block": 3,
        },
        "large logits (around +1000)": lambda rng: {
            "x": _logits(rng, (2, 10), 3.0) + 1000,
            "block": 3,
        },
        "very negative logits (around -1000)": lambda rng: {
            "x": _logits(rng, (2, 10), 3.0) - 1000,
            "block": 3,
        },
        "first chunk fully masked (-inf)": _first_chunk_masked,
    },
    mutants=(
        Mutant(
            "running sum not rescaled",
            mutate(
                ONLINE_SOLUTION,
                "d = d * np.exp(m - shift) + np.exp",
                "d = d + np.exp",
            ),
            "terms summed against an old, smaller max are too large once the max grows",
        ),
        Mutant(
            "last partial chunk dropped",
            mutate(ONLINE_SOLUTION, "range(0, n, block)", "range(0, n - block + 1, block)"),
            "columns after the last full chunk never enter the max or the sum",
        ),
        Mutant(
            "running max starts at 0",
            mutate(
                ONLINE_SOLUTION,
                "m = np.full(rows, -np.inf, dtype=np.float32)",
                "m = np.zeros(rows, dtype=np.float32)",
            ),
            "rows of very negative logits underflow to 0/0",
        ),
        Mutant(
            "no guard for a fully masked chunk",
            mutate(
                ONLINE_SOLUTION,
                "shift = np.where(np.isneginf(m_new), np.float32(0), m_new)",
                "shift = m_new",
            ),
            "-inf - (-inf) is NaN while every value seen so far is masked",
        ),
    ),
)
