"""Multi-head latent attention (MLA) exercises: one decode step over the compressed latent KV
cache with the up-projections absorbed, checked against the uncompressed equivalent."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, Tolerance, mutate
from solutions.exercises.compare import normal


def mla_reference(
    h: np.ndarray, w_dkv: np.ndarray, q: np.ndarray, w_uk: np.ndarray, w_uv: np.ndarray
) -> np.ndarray:
    """The uncompressed computation: materialize every head's K and V, then attend."""
    c = h.astype(np.float64) @ w_dkv.astype(np.float64)  # (S, dc)
    k = np.einsum("sc,hcd->hsd", c, w_uk.astype(np.float64))  # (H, S, dh)
    v = np.einsum("sc,hcd->hsd", c, w_uv.astype(np.float64))
    dh = q.shape[-1]
    scores = np.einsum("hd,hsd->hs", q.astype(np.float64), k) / np.sqrt(dh)
    scores -= scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    p /= p.sum(axis=-1, keepdims=True)
    return np.einsum("hs,hsd->hd", p, v).astype(np.float32)


def _mla_fixed(
    rng: np.random.Generator, s: int, d: int, dc: int, heads: int, dh: int, q_scale: float = 1.0
) -> Case:
    return {
        "h": normal(rng, (s, d)),
        "w_dkv": normal(rng, (d, dc), 1 / np.sqrt(d)),
        "q": normal(rng, (heads, dh), q_scale),
        "w_uk": normal(rng, (heads, dc, dh), 1 / np.sqrt(dc)),
        "w_uv": normal(rng, (heads, dc, dh), 1 / np.sqrt(dc)),
    }


def _mla_case(rng: np.random.Generator, size: float) -> Case:
    return _mla_fixed(
        rng,
        int(rng.integers(1, 2 + int(24 * size))),
        int(rng.integers(2, 3 + int(30 * size))),
        int(rng.integers(1, 2 + int(12 * size))),
        int(rng.integers(1, 2 + int(4 * size))),
        int(rng.integers(1, 2 + int(10 * size))),
        float(rng.uniform(0.5, 3.0)),
    )


MLA_SOLUTION = '''\
import numpy as np


def mla_decode(
    h: np.ndarray, w_dkv: np.ndarray, q: np.ndarray, w_uk: np.ndarray, w_uv: np.ndarray
) -> np.ndarray:
    """h: (S, D) hidden states of the S cached tokens; w_dkv: (D, dc) joint KV down-projection;
    q: (H, dh) the new token's per-head queries; w_uk, w_uv: (H, dc, dh) per-head up-projections
    (k_h = c @ w_uk[h], v_h = c @ w_uv[h]). Computes attention without ever forming K or V:
    only the (S, dc) latent cache is read. Returns (H, dh) float32."""
    c = h @ w_dkv  # (S, dc): the whole KV cache, shared by every head
    dh = q.shape[-1]
    # Absorb W_uk into the query: q . (c W_uk)^T = (q W_uk^T) . c^T
    q_lat = np.einsum("hd,hcd->hc", q, w_uk)  # (H, dc)
    scores = q_lat @ c.T / np.sqrt(dh)  # (H, S); the scale is still the head size
    scores = scores - scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    p = p / p.sum(axis=-1, keepdims=True)
    ctx = p @ c  # (H, dc): attention over the latent vectors themselves
    # Absorb W_uv on the way out: p (c W_uv) = (p c) W_uv
    return np.einsum("hc,hcd->hd", ctx, w_uv).astype(np.float32)
'''

MLA_ABSORBED = ExerciseSpec(
    reference=mla_reference,
    make_case=_mla_case,
    solution=MLA_SOLUTION,
    tolerances={"float32": Tolerance(1e-4, 1e-5)},
    examples=(
        {
            "h": np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32),
            "w_dkv": np.eye(2, dtype=np.float32),
            "q": np.array([[1.0, 0.0]], dtype=np.float32),
            "w_uk": np.eye(2, dtype=np.float32)[None],
            "w_uv": np.array([[[1.0, 2.0], [3.0, 4.0]]], dtype=np.float32),
        },
    ),
    edge_cases={
        "one cached token": lambda rng: _mla_fixed(rng, 1, 8, 4, 2, 6),
        "latent wider than a head (dc > dh)": lambda rng: _mla_fixed(rng, 9, 16, 12, 3, 4),
        "latent narrower than a head (dc < dh)": lambda rng: _mla_fixed(rng, 9, 16, 3, 2, 8),
        "large scores (exp overflows without the max)": lambda rng: _mla_fixed(
            rng, 6, 12, 6, 2, 5, 3000.0
        ),
        "one head": lambda rng: _mla_fixed(rng, 7, 10, 5, 1, 5),
    },
    mutants=(
        Mutant(
            "scaled by sqrt(latent size)",
            mutate(
                MLA_SOLUTION,
                "scores = q_lat @ c.T / np.sqrt(dh)",
                "scores = q_lat @ c.T / np.sqrt(c.shape[1])",
            ),
            "absorbing W_uk moves the dot product, not the head size it is scaled by",
        ),
        Mutant(
            "W_uv absorbed on the key side",
            mutate(
                MLA_SOLUTION,
                'q_lat = np.einsum("hd,hcd->hc", q, w_uk)',
                'q_lat = np.einsum("hd,hcd->hc", q, w_uv)',
            ),
            "keys are c W_uk, values c W_uv",
        ),
        Mutant(
            "no max subtraction",
            mutate(MLA_SOLUTION, "    scores = scores - scores.max(axis=-1, keepdims=True)\n", ""),
            "large scores overflow exp",
        ),
        Mutant(
            "one head's projections for all heads",
            mutate(
                mutate(
                    MLA_SOLUTION,
                    'np.einsum("hd,hcd->hc", q, w_uk)',
                    'np.einsum("hd,cd->hc", q, w_uk[0])',
                ),
                'np.einsum("hc,hcd->hd", ctx, w_uv)',
                'np.einsum("hc,cd->hd", ctx, w_uv[0])',
            ),
            "each head has its own up-projections; only the latent cache is shared",
        ),
    ),
)
