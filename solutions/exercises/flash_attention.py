"""The Flash Attention (v1) forward pass, tile by tile with an online softmax, checked against
full attention."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, mutate
from solutions.exercises.attention import attention_reference
from solutions.exercises.compare import normal

# --- Flash Attention v1 forward ------------------------------------------------------------


def flash_reference(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, block_q: int, block_k: int, causal: bool
) -> np.ndarray:
    """Full attention: tiling changes the order of the sums, not the answer."""
    return attention_reference(q, k, v, causal)


def _flash_fixed(
    rng: np.random.Generator,
    sq: int,
    sk: int,
    d: int,
    bq: int,
    bk: int,
    causal: bool,
    scale: float = 1.0,
) -> Case:
    return {
        "q": normal(rng, (sq, d), scale),
        "k": normal(rng, (sk, d), scale),
        "v": normal(rng, (sk, d)),
        "block_q": bq,
        "block_k": bk,
        "causal": causal,
    }


def _flash_case(rng: np.random.Generator, size: float) -> Case:
    causal = bool(rng.random() < 0.5)
    sq = int(rng.integers(1, 2 + int(23 * size)))
    sk = sq if causal else int(rng.integers(1, 2 + int(23 * size)))
    d = int(rng.integers(1, 2 + int(7 * size)))
    bq, bk = (int(rng.integers(1, 9)) for _ in range(2))
    return _flash_fixed(rng, sq, sk, d, bq, bk, causal, float(rng.uniform(0.5, 2.5)))


def _growing_scores(rng: np.random.Generator) -> Case:
    """Scores that rise along the keys, so every new K tile raises the running max."""
    d = 4
    direction = rng.standard_normal(d)
    direction /= np.linalg.norm(direction)
    q = np.tile(direction, (6, 1)) * 2 + 0.1 * rng.standard_normal((6, d))
    k = np.outer(np.arange(1, 10), direction) + 0.1 * rng.standard_normal((9, d))
    case = _flash_fixed(rng, 6, 9, d, 4, 2, False)
    return {**case, "q": q.astype(np.float32), "k": k.astype(np.float32)}


FLASH_SOLUTION = '''\
import numpy as np


def flash_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, block_q: int, block_k: int, causal: bool
) -> np.ndarray:
    """Attention of q (Sq, d) over k, v (Sk, d), one (block_q x block_k) tile of scores at a
    time; with causal, Sq == Sk and query i sees keys j <= i. Returns (Sq, d)."""
    sq, d = q.shape
    sk = k.shape[0]
    scale = 1.0 / np.sqrt(d)
    o = np.zeros((sq, v.shape[1]), dtype=np.float32)  # output, kept normalized (as in v1)
    m = np.full(sq, -np.inf, dtype=np.float32)  # running max of each query's scores
    l = np.zeros(sq, dtype=np.float32)  # running sum of exp(score - m)
    for j0 in range(0, sk, block_k):  # outer loop: one K/V tile, loaded once
        kj, vj = k[j0 : j0 + block_k], v[j0 : j0 + block_k]
        for i0 in range(0, sq, block_q):  # inner loop: every Q tile against it
            i1 = min(i0 + block_q, sq)
            s = (q[i0:i1] @ kj.T) * scale  # (bq, bk): only this tile of scores exists
            if causal:
                rows = np.arange(i0, i1)[:, None]  # global positions, not tile-local ones
                cols = np.arange(j0, j0 + len(kj))[None, :]
                s = np.where(cols > rows, -np.inf, s)
            m_old, l_old = m[i0:i1], l[i0:i1]
            m_new = np.maximum(m_old, s.max(axis=1))
            # Key 0 is in the first K tile and every query sees it, so m_new is finite here.
            p = np.exp(s - m_new[:, None])
            alpha = np.exp(m_old - m_new)  # how much the old max overestimated the new one
            l_new = l_old * alpha + p.sum(axis=1)
            o[i0:i1] = (o[i0:i1] * (l_old * alpha)[:, None] + p @ vj) / l_new[:, None]
            m[i0:i1], l[i0:i1] = m_new, l_new
    return o.astype(q.dtype)
'''

FLASH_ATTENTION = ExerciseSpec(
    reference=flash_reference,
    make_case=_flash_case,
    solution=FLASH_SOLUTION,
    examples=(
        {
            "q": np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=np.float32),
            "k": np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=np.float32),
            "v": np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=np.float32),
            "block_q": 2,
            "block_k": 2,
            "causal": True,
        },
    ),
    edge_cases={
        "one query, one key": lambda rng: _flash_fixed(rng, 1, 1, 3, 2, 2, True),
        "tiles of 1": lambda rng: _flash_fixed(rng, 5, 5, 3, 1, 1, True),
        "tiles larger than the sequence": lambda rng: _flash_fixed(rng, 5, 5, 4, 8, 8, True),
        "10 positions in tiles of 4 and 3 (causal)": lambda rng: _flash_fixed(
            rng, 10, 10, 4, 4, 3, True
        ),
        "7 queries over 11 keys (not causal)": lambda rng: _flash_fixed(rng, 7, 11, 5, 3, 4, False),
        "scores that grow along the keys": _growing_scores,
        "large scores (|q|, |k| around 8)": lambda rng: _flash_fixed(rng, 9, 9, 8, 4, 4, True, 8.0),
    },
    mutants=(
        Mutant(
            "output not rescaled when the max grows",
            mutate(
                FLASH_SOLUTION, "o[i0:i1] * (l_old * alpha)[:, None]", "o[i0:i1] * l_old[:, None]"
            ),
            "the old partial output was weighted against the old max",
        ),
        Mutant(
            "last partial K/V tile dropped",
            mutate(FLASH_SOLUTION, "range(0, sk, block_k)", "range(0, sk - block_k + 1, block_k)"),
            "keys after the last full tile are never attended",
        ),
        Mutant(
            "causal mask in tile-local positions",
            mutate(
                mutate(
                    FLASH_SOLUTION,
                    "rows = np.arange(i0, i1)[:, None]",
                    "rows = np.arange(i1 - i0)[:, None]",
                ),
                "cols = np.arange(j0, j0 + len(kj))[None, :]",
                "cols = np.arange(len(kj))[None, :]",
            ),
            "each tile is masked as if it sat on the diagonal",
        ),
        Mutant(
            "no 1/sqrt(d) scaling",
            mutate(FLASH_SOLUTION, "s = (q[i0:i1] @ kj.T) * scale", "s = q[i0:i1] @ kj.T"),
            "the scores are sqrt(d) times too large",
        ),
    ),
)
