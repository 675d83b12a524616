"""Grouped-query attention: several query heads share one K/V head (scaled dot-product
attention and multi-head attention are in attention.py)."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, mutate
from solutions.exercises.attention import attention_reference
from solutions.exercises.compare import normal

# --- grouped-query attention ---------------------------------------------------------------


def gqa_reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool) -> np.ndarray:
    """Query head h reads KV head h // (Hq / Hkv)."""
    group = q.shape[1] // k.shape[1]
    return attention_reference(q, np.repeat(k, group, axis=1), np.repeat(v, group, axis=1), causal)


def _gqa_fixed(
    rng: np.random.Generator, b: int, hq: int, hkv: int, s: int, d: int, causal: bool
) -> Case:
    return {
        "q": normal(rng, (b, hq, s, d)),
        "k": normal(rng, (b, hkv, s, d)),
        "v": normal(rng, (b, hkv, s, d)),
        "causal": causal,
    }


def _gqa_case(rng: np.random.Generator, size: float) -> Case:
    hkv = int(rng.integers(1, 2 + int(3 * size)))
    group = int(rng.integers(1, 2 + int(3 * size)))
    s = int(rng.integers(1, 2 + int(9 * size)))
    d = int(rng.integers(1, 2 + int(7 * size)))
    return _gqa_fixed(
        rng, int(rng.integers(1, 3)), hkv * group, hkv, s, d, bool(rng.random() < 0.5)
    )


GQA_SOLUTION = '''\
import numpy as np


def grouped_query_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool
) -> np.ndarray:
    """q: (B, Hq, S, d); k, v: (B, Hkv, S, d) with Hq a multiple of Hkv. Returns (B, Hq, S, d)."""
    group = q.shape[1] // k.shape[1]  # query heads per KV head
    # Query head h uses KV head h // group: repeat each KV head `group` times, in place.
    k = np.repeat(k, group, axis=1)
    v = np.repeat(v, group, axis=1)
    s = q.shape[2]
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])
    if causal:
        scores = np.where(np.triu(np.ones((s, s), dtype=bool), k=1), -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return (weights @ v).astype(q.dtype)
'''

GQA = ExerciseSpec(
    reference=gqa_reference,
    make_case=_gqa_case,
    solution=GQA_SOLUTION,
    examples=(
        {
            "q": np.array([[[[1.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]]]], dtype=np.float32),
            "k": np.array([[[[1.0, 0.0], [0.0, 1.0]]]], dtype=np.float32),
            "v": np.array([[[[1.0, 2.0], [3.0, 4.0]]]], dtype=np.float32),
            "causal": True,
        },
    ),
    edge_cases={
        "as many KV heads as query heads (MHA)": lambda rng: _gqa_fixed(rng, 1, 3, 3, 4, 4, True),
        "one KV head (MQA)": lambda rng: _gqa_fixed(rng, 2, 4, 1, 5, 3, True),
        "6 query heads on 2 KV heads": lambda rng: _gqa_fixed(rng, 1, 6, 2, 5, 4, True),
        "8 query heads on 4 KV heads, not causal": lambda rng: _gqa_fixed(
            rng, 1, 8, 4, 3, 2, False
        ),
        "one position": lambda rng: _gqa_fixed(rng, 1, 4, 2, 1, 4, True),
    },
    mutants=(
        Mutant(
            "KV heads tiled instead of repeated",
            mutate(
                mutate(
                    GQA_SOLUTION,
                    "k = np.repeat(k, group, axis=1)",
                    "k = np.tile(k, (1, group, 1, 1))",
                ),
                "v = np.repeat(v, group, axis=1)",
                "v = np.tile(v, (1, group, 1, 1))",
            ),
            "tiling maps query head h to KV head h % Hkv, not h // group",
        ),
        Mutant(
            "every query head reads KV head 0",
            mutate(
                mutate(GQA_SOLUTION, "k = np.repeat(k, group, axis=1)", "k = k[:, :1]"),
                "v = np.repeat(v, group, axis=1)",
                "v = v[:, :1]",
            ),
            "that is MQA: the other KV heads are never read",
        ),
        Mutant(
            "causal mask left out",
            mutate(
                GQA_SOLUTION,
                "    if causal:\n        scores = np.where(",
                "    if False:\n        scores = np.where(",
            ),
            "queries see future keys",
        ),
    ),
)
