"""Attention exercises: scaled dot-product attention with a causal mask and multi-head attention
(grouped-query attention is in grouped_query_attention.py, Flash Attention in
flash_attention.py)."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, mutate
from solutions.exercises.compare import normal


def attention_reference(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = False
) -> np.ndarray:
    """softmax(q k^T / sqrt(d)) v over the last two axes, in float64; with ``causal``, query i
    sees keys j <= i (queries and keys are the same positions)."""
    q64, k64, v64 = (a.astype(np.float64) for a in (q, k, v))
    scores = q64 @ np.swapaxes(k64, -1, -2) / np.sqrt(q.shape[-1])
    if causal:
        sq, sk = scores.shape[-2:]
        scores = np.where(np.tril(np.ones((sq, sk), dtype=bool)), scores, -np.inf)
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return (weights @ v64).astype(q.dtype)


# --- scaled dot-product attention with a causal mask ----------------------------------------


def _sdpa_case(rng: np.random.Generator, size: float) -> Case:
    b = int(rng.integers(1, 2 + int(2 * size)))
    s = int(rng.integers(1, 2 + int(15 * size)))
    d = int(rng.integers(1, 2 + int(15 * size)))
    dv = int(rng.integers(1, 2 + int(15 * size)))
    scale = float(rng.uniform(0.5, 2.0))
    return {
        "q": normal(rng, (b, s, d), scale),
        "k": normal(rng, (b, s, d), scale),
        "v": normal(rng, (b, s, dv)),
        "causal": bool(rng.random() < 0.6),
    }


def _sdpa_fixed(
    rng: np.random.Generator, b: int, s: int, d: int, dv: int, causal: bool, scale: float = 1.0
) -> Case:
    return {
        "q": normal(rng, (b, s, d), scale),
        "k": normal(rng, (b, s, d), scale),
        "v": normal(rng, (b, s, dv)),
        "causal": causal,
    }


def _huge_scores(rng: np.random.Generator) -> Case:
    """Scores in the thousands, in float64: exp overflows even there (above about 709) unless
    the row max is subtracted first. (float32 inputs this large would lose the precision the
    reference is held to.)"""
    return {
        "q": 25.0 + 5.0 * rng.standard_normal((1, 6, 16)),
        "k": 25.0 + 5.0 * rng.standard_normal((1, 6, 16)),
        "v": rng.standard_normal((1, 6, 4)),
        "causal": True,
    }


SDPA_SOLUTION = '''\
import numpy as np


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool) -> np.ndarray:
    """q, k: (B, S, d); v: (B, S, dv). Returns (B, S, dv)."""
    d = q.shape[-1]
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(d)  # (B, S, S): query i against key j
    if causal:
        s = q.shape[1]
        future = np.triu(np.ones((s, s), dtype=bool), k=1)  # key j > query i
        scores = np.where(future, -np.inf, scores)  # masked before the softmax
    scores = scores - scores.max(axis=-1, keepdims=True)  # the diagonal is never masked
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return (weights @ v).astype(q.dtype)
'''

SDPA_CAUSAL = ExerciseSpec(
    reference=attention_reference,
    make_case=_sdpa_case,
    solution=SDPA_SOLUTION,
    examples=(
        {
            "q": np.array([[[1.0, 0.0], [0.0, 1.0]]], dtype=np.float32),
            "k": np.array([[[1.0, 0.0], [0.0, 1.0]]], dtype=np.float32),
            "v": np.array([[[1.0, 2.0], [3.0, 4.0]]], dtype=np.float32),
            "causal": True,
        },
    ),
    edge_cases={
        "one position": lambda rng: _sdpa_fixed(rng, 2, 1, 4, 3, True),
        "head size 1": lambda rng: _sdpa_fixed(rng, 1, 5, 1, 2, True),
        "not causal": lambda rng: _sdpa_fixed(rng, 2, 6, 8, 5, False),
        "causal, dv differs from d": lambda rng: _sdpa_fixed(rng, 1, 7, 4, 6, True),
        "huge scores (beyond float64's exp range)": _huge_scores,
        "causal, batch of 3": lambda rng: _sdpa_fixed(rng, 3, 5, 8, 8, True),
    },
    mutants=(
        Mutant(
            "no 1/sqrt(d) scaling",
            mutate(
                SDPA_SOLUTION, "q @ k.transpose(0, 2, 1) / np.sqrt(d)", "q @ k.transpose(0, 2, 1)"
            ),
            "the scores are sqrt(d) times too large, so the softmax is too sharp",
        ),
        Mutant(
            "softmax without max subtraction",
            mutate(
                SDPA_SOLUTION,
                "    scores = scores - scores.max(axis=-1, keepdims=True)"
                "  # the diagonal is never masked\n",
                "",
            ),
            "large scores overflow exp to inf, and inf / inf is NaN",
        ),
        Mutant(
            "mask also hides the diagonal",
            mutate(SDPA_SOLUTION, "dtype=bool), k=1)", "dtype=bool), k=0)"),
            "query 0 sees nothing: its row is all -inf and becomes NaN",
        ),
        Mutant(
            "mask applied after the softmax",
            mutate(
                mutate(
                    SDPA_SOLUTION,
                    "        scores = np.where(future, -np.inf, scores)"
                    "  # masked before the softmax\n",
                    "",
                ),
                "    weights = weights / weights.sum(axis=-1, keepdims=True)\n",
                "    weights = weights / weights.sum(axis=-1, keepdims=True)\n"
                "    if causal:\n"
                "        weights = np.where(future, 0.0, weights)  # rows no longer sum to 1\n",
            ),
            "zeroing the future after normalizing leaves rows that do not sum to 1",
        ),
        Mutant(
            "softmax over the query axis",
            mutate(
                mutate(
                    SDPA_SOLUTION,
                    "scores.max(axis=-1, keepdims=True)",
                    "scores.max(axis=-2, keepdims=True)",
                ),
                "weights.sum(axis=-1, keepdims=True)",
                "weights.sum(axis=-2, keepdims=True)",
            ),
            "each key's column sums to 1 instead of each query's row",
        ),
    ),
)


# --- multi-head attention ------------------------------------------------------------------


def mha_reference(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    w_o: np.ndarray,
    n_heads: int,
    causal: bool,
) -> np.ndarray:
    """Multi-head self-attention with y = x @ W projections (W is (in, out)), float64."""
    b, s, dm = x.shape
    dh = dm // n_heads
    x64 = x.astype(np.float64)

    def heads(w: np.ndarray) -> np.ndarray:
        return (x64 @ w.astype(np.float64)).reshape(b, s, n_heads, dh).transpose(0, 2, 1, 3)

    out = attention_reference(heads(w_q), heads(w_k), heads(w_v), causal)
    merged = out.transpose(0, 2, 1, 3).reshape(b, s, dm)
    return (merged @ w_o.astype(np.float64)).astype(x.dtype)


def _mha_fixed(rng: np.random.Generator, b: int, s: int, h: int, dh: int, causal: bool) -> Case:
    dm = h * dh
    weights = {
        name: normal(rng, (dm, dm), 1 / np.sqrt(dm)) for name in ("w_q", "w_k", "w_v", "w_o")
    }
    return {"x": normal(rng, (b, s, dm)), **weights, "n_heads": h, "causal": causal}


def _mha_case(rng: np.random.Generator, size: float) -> Case:
    b = int(rng.integers(1, 2 + int(size)))
    s = int(rng.integers(1, 2 + int(9 * size)))
    h = int(rng.integers(1, 2 + int(3 * size)))
    dh = int(rng.integers(1, 2 + int(7 * size)))
    return _mha_fixed(rng, b, s, h, dh, bool(rng.random() < 0.5))


MHA_SOLUTION = '''\
import numpy as np


def multi_head_attention(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    w_o: np.ndarray,
    n_heads: int,
    causal: bool,
) -> np.ndarray:
    """x: (B, S, D); every w_*: (D, D), applied as x @ w. Returns (B, S, D)."""
    b, s, dm = x.shape
    dh = dm // n_heads

    def split(t: np.ndarray) -> np.ndarray:
        # (B, S, D) -> (B, S, H, Dh) -> (B, H, S, Dh): heads become a batch dimension
        return t.reshape(b, s, n_heads, dh).transpose(0, 2, 1, 3)

    q, k, v = split(x @ w_q), split(x @ w_k), split(x @ w_v)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(dh)  # (B, H, S, S), scaled by the head size
    if causal:
        scores = np.where(np.triu(np.ones((s, s), dtype=bool), k=1), -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    out = weights @ v  # (B, H, S, Dh)
    merged = out.transpose(0, 2, 1, 3).reshape(b, s, dm)  # back to (B, S, H, Dh), then concat
    return (merged @ w_o).astype(x.dtype)
'''

MHA = ExerciseSpec(
    reference=mha_reference,
    make_case=_mha_case,
    solution=MHA_SOLUTION,
    examples=(
        {
            "x": np.array([[[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0]]], dtype=np.float32),
            "w_q": np.eye(4, dtype=np.float32),
            "w_k": np.eye(4, dtype=np.float32),
            "w_v": np.eye(4, dtype=np.float32),
            "w_o": np.eye(4, dtype=np.float32),
            "n_heads": 2,
            "causal": False,
        },
    ),
    edge_cases={
        "one head": lambda rng: _mha_fixed(rng, 1, 4, 1, 6, True),
        "head size 1": lambda rng: _mha_fixed(rng, 1, 5, 4, 1, False),
        "one position": lambda rng: _mha_fixed(rng, 2, 1, 2, 3, True),
        "causal, 3 heads of 4": lambda rng: _mha_fixed(rng, 2, 6, 3, 4, True),
        "not causal, 4 heads of 2": lambda rng: _mha_fixed(rng, 1, 7, 4, 2, False),
    },
    mutants=(
        Mutant(
            "scaled by sqrt(D) instead of sqrt(head size)",
            mutate(MHA_SOLUTION, "/ np.sqrt(dh)", "/ np.sqrt(dm)"),
            "each head's dot products have head-size terms, not D",
        ),
        Mutant(
            "heads split without a transpose",
            mutate(
                MHA_SOLUTION,
                "return t.reshape(b, s, n_heads, dh).transpose(0, 2, 1, 3)",
                "return t.reshape(b, n_heads, s, dh)",
            ),
            "reshaping (B, S, D) straight to (B, H, S, Dh) mixes positions into heads",
        ),
        Mutant(
            "heads merged without a transpose",
            mutate(
                MHA_SOLUTION,
                "merged = out.transpose(0, 2, 1, 3).reshape(b, s, dm)",
                "merged = out.reshape(b, s, dm)",
            ),
            "(B, H, S, Dh) reshaped straight to (B, S, D) interleaves heads and positions",
        ),
        Mutant(
            "output projection left out",
            mutate(
                MHA_SOLUTION,
                "return (merged @ w_o).astype(x.dtype)",
                "return merged.astype(x.dtype)",
            ),
            "the concatenated heads still go through W_o",
        ),
    ),
)
