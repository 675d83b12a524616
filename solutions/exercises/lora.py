"""LoRA exercises: merging an adapter into FP16 base weights, and the batched multi-LoRA forward
pass where every token may use a different adapter (or none)."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, Tolerance, mutate
from solutions.exercises.compare import normal

# --- merge ----------------------------------------------------------------------------------


def merge_reference(w: np.ndarray, a: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    r = a.shape[0]
    delta = (alpha / r) * (b.astype(np.float64) @ a.astype(np.float64))
    return (w.astype(np.float64) + delta).astype(np.float16)


def _merge_fixed(rng: np.random.Generator, out: int, inp: int, r: int, alpha: float) -> Case:
    return {
        "w": normal(rng, (out, inp), 0.05).astype(np.float16),
        "a": normal(rng, (r, inp), 1 / np.sqrt(inp)),
        "b": normal(rng, (out, r), 0.05),
        "alpha": alpha,
    }


def _merge_case(rng: np.random.Generator, size: float) -> Case:
    r = int(rng.choice([1, 2, 4, 8, 16]))
    return _merge_fixed(
        rng,
        int(rng.integers(1, 2 + int(40 * size))),
        int(rng.integers(1, 2 + int(40 * size))),
        r,
        float(rng.choice([1.0, 8.0, 16.0, 32.0])),
    )


MERGE_SOLUTION = '''\
import numpy as np


def lora_merge(w: np.ndarray, a: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    """w: (out, in) float16 base weight; a: (r, in), b: (out, r) float32 adapter. Returns the
    merged float16 weight W + (alpha / r) * B @ A, computed in float32 and rounded once."""
    r = a.shape[0]
    delta = (alpha / r) * (b @ a)  # (out, r) @ (r, in) = (out, in), a rank-r update
    return (w.astype(np.float32) + delta).astype(np.float16)  # one rounding to fp16
'''

LORA_MERGE = ExerciseSpec(
    reference=merge_reference,
    make_case=_merge_case,
    solution=MERGE_SOLUTION,
    tolerances={"float16": Tolerance(1e-3, 1e-4)},
    examples=(
        {
            "w": np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float16),
            "a": np.array([[1.0, 2.0]], dtype=np.float32),
            "b": np.array([[0.5], [-1.0]], dtype=np.float32),
            "alpha": 2.0,
        },
    ),
    edge_cases={
        "rank 1": lambda rng: _merge_fixed(rng, 6, 5, 1, 1.0),
        "alpha = 2r": lambda rng: _merge_fixed(rng, 8, 12, 4, 8.0),
        "rank larger than one side": lambda rng: _merge_fixed(rng, 3, 20, 8, 16.0),
        "wide and short": lambda rng: _merge_fixed(rng, 2, 33, 2, 4.0),
    },
    mutants=(
        Mutant(
            "scaled by alpha instead of alpha / r",
            mutate(MERGE_SOLUTION, "delta = (alpha / r) * (b @ a)", "delta = alpha * (b @ a)"),
            "the LoRA scale is alpha / r, so changing r does not change the update's size",
        ),
        Mutant(
            "scale left out",
            mutate(MERGE_SOLUTION, "delta = (alpha / r) * (b @ a)", "delta = b @ a"),
            "the adapter was trained with the alpha / r factor",
        ),
        Mutant(
            "adapter factors transposed",
            mutate(
                MERGE_SOLUTION,
                "delta = (alpha / r) * (b @ a)",
                "delta = (alpha / r) * (a.T @ b.T)",
            ),
            "B @ A is (out, in); A^T B^T is its transpose",
        ),
    ),
)


# --- batched multi-LoRA forward -----------------------------------------------------------------


def multi_lora_reference(
    x: np.ndarray,
    w: np.ndarray,
    a_stack: np.ndarray,
    b_stack: np.ndarray,
    adapter_ids: np.ndarray,
    alpha: float,
) -> np.ndarray:
    x64 = x.astype(np.float64)
    y = x64 @ w.astype(np.float64).T
    r = a_stack.shape[1]
    for t, i in enumerate(adapter_ids.tolist()):
        if i >= 0:
            y[t] += (alpha / r) * (
                b_stack[i].astype(np.float64) @ (a_stack[i].astype(np.float64) @ x64[t])
            )
    return y.astype(np.float32)


def _multi_fixed(
    rng: np.random.Generator,
    t: int,
    inp: int,
    out: int,
    n: int,
    r: int,
    ids: list[int] | None = None,
) -> Case:
    adapter_ids = np.array(ids if ids is not None else rng.integers(-1, n, t), dtype=np.int64)
    return {
        "x": normal(rng, (len(adapter_ids), inp)),
        "w": normal(rng, (out, inp), 1 / np.sqrt(inp)),
        "a_stack": normal(rng, (n, r, inp), 1 / np.sqrt(inp)),
        "b_stack": normal(rng, (n, out, r), 0.5),
        "adapter_ids": adapter_ids,
        "alpha": float(rng.choice([8.0, 16.0])),
    }


def _multi_case(rng: np.random.Generator, size: float) -> Case:
    return _multi_fixed(
        rng,
        int(rng.integers(1, 2 + int(20 * size))),
        int(rng.integers(1, 2 + int(24 * size))),
        int(rng.integers(1, 2 + int(24 * size))),
        int(rng.integers(1, 2 + int(4 * size))),
        int(rng.choice([1, 2, 4, 8])),
    )


MULTI_SOLUTION = '''\
import numpy as np


def multi_lora_forward(
    x: np.ndarray,
    w: np.ndarray,
    a_stack: np.ndarray,
    b_stack: np.ndarray,
    adapter_ids: np.ndarray,
    alpha: float,
) -> np.ndarray:
    """x: (T, in) tokens of a mixed batch; w: (out, in) shared base weight; a_stack: (n, r, in),
    b_stack: (n, out, r) the loaded adapters; adapter_ids: (T,), -1 = base model only.
    Returns (T, out) float32: x W^T plus, per token, (alpha / r) * B_i (A_i x)."""
    y = x @ w.T  # the base GEMM is shared by the whole batch
    r = a_stack.shape[1]
    for i in np.unique(adapter_ids):
        if i < 0:
            continue  # no adapter: careful, a_stack[-1] would silently be the last adapter
        rows = np.nonzero(adapter_ids == i)[0]  # gather this adapter's tokens
        shrink = x[rows] @ a_stack[i].T  # (n_i, r): down-projection
        y[rows] += (alpha / r) * (shrink @ b_stack[i].T)  # up-projection, scattered back
    return y.astype(np.float32)
'''

MULTI_LORA = ExerciseSpec(
    reference=multi_lora_reference,
    make_case=_multi_case,
    solution=MULTI_SOLUTION,
    tolerances={"float32": Tolerance(1e-4, 1e-4)},
    examples=(
        {
            "x": np.array([[1.0, 2.0], [1.0, 2.0]], dtype=np.float32),
            "w": np.eye(2, dtype=np.float32),
            "a_stack": np.array([[[1.0, 1.0]]], dtype=np.float32),
            "b_stack": np.array([[[1.0], [0.0]]], dtype=np.float32),
            "adapter_ids": np.array([0, -1], dtype=np.int64),
            "alpha": 2.0,
        },
    ),
    edge_cases={
        "every token without adapter": lambda rng: _multi_fixed(rng, 5, 6, 4, 2, 2, [-1] * 5),
        "one adapter for all": lambda rng: _multi_fixed(rng, 4, 5, 3, 3, 4, [1, 1, 1, 1]),
        "mixed, including -1 and the last adapter": lambda rng: _multi_fixed(
            rng, 7, 6, 5, 3, 2, [2, -1, 0, 2, -1, 1, 0]
        ),
        "one token": lambda rng: _multi_fixed(rng, 1, 8, 8, 2, 8, [1]),
    },
    mutants=(
        Mutant(
            "-1 indexes the last adapter",
            mutate(
                MULTI_SOLUTION,
                "        if i < 0:\n            continue",
                "        if False:\n            continue",
            ),
            "Python's negative indexing makes 'no adapter' mean 'adapter n-1'",
        ),
        Mutant(
            "scaled by alpha instead of alpha / r",
            mutate(
                MULTI_SOLUTION, "y[rows] += (alpha / r) * (shrink", "y[rows] += alpha * (shrink"
            ),
            "the LoRA scale is alpha / r",
        ),
        Mutant(
            "first token's adapter used for the whole batch",
            mutate(
                MULTI_SOLUTION,
                "rows = np.nonzero(adapter_ids == i)[0]",
                "rows = np.nonzero(adapter_ids >= 0)[0]\n        i = adapter_ids[rows[0]]",
            ),
            "each request brings its own adapter; that is the point of multi-LoRA batching",
        ),
    ),
)
