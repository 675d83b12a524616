"""Sampling exercises: top-k and top-p (nucleus) sampling with temperature, made
deterministic by passing the uniform draws in (the acceptance rule of speculative decoding is in
speculative.py)."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mismatch, Mutant, mutate

# --- shared ---------------------------------------------------------------------------------


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max())
    return e / e.sum()


def _inverse_cdf(probs: np.ndarray, u: float) -> int:
    """The smallest index whose cumulative probability (in index order) exceeds u·total."""
    cdf = np.cumsum(probs)
    return int(min(np.searchsorted(cdf, u * cdf[-1], side="right"), len(probs) - 1))


def _logits_case(rng: np.random.Generator, b: int, v: int, scale: float) -> dict[str, np.ndarray]:
    return {
        "logits": (rng.standard_normal((b, v)) * scale).astype(np.float32),
        "u": rng.random(b),
    }


# --- top-k ---------------------------------------------------------------------------------


def top_k_reference(logits: np.ndarray, k: int, temperature: float, u: np.ndarray) -> np.ndarray:
    out = np.empty(len(logits), dtype=np.int64)
    for b, row in enumerate(logits.astype(np.float64)):
        if temperature == 0:
            out[b] = int(np.argmax(row))
            continue
        z = row / temperature
        kept = np.zeros(len(z), dtype=bool)
        kept[np.argsort(-z, kind="stable")[:k]] = True
        probs = np.where(kept, _softmax(np.where(kept, z, -np.inf)), 0.0)
        out[b] = _inverse_cdf(probs, float(u[b]))
    return out


def _top_k_fixed(
    rng: np.random.Generator, b: int, v: int, k: int, temperature: float, scale: float = 2.0
) -> Case:
    return {**_logits_case(rng, b, v, scale), "k": k, "temperature": temperature}


def _top_k_case(rng: np.random.Generator, size: float) -> Case:
    v = int(rng.integers(2, 3 + int(60 * size)))
    return _top_k_fixed(
        rng,
        int(rng.integers(1, 2 + int(15 * size))),
        v,
        int(rng.integers(1, v + 1)),
        float(rng.choice([0.3, 0.7, 1.0, 1.5])),
        float(rng.uniform(0.5, 4.0)),
    )


TOP_K_SOLUTION = '''\
import numpy as np


def sample_top_k(logits: np.ndarray, k: int, temperature: float, u: np.ndarray) -> np.ndarray:
    """logits: (B, V) float32; 1 <= k <= V; temperature >= 0 (0 means greedy); u: (B,) uniform
    draws in [0, 1). Returns (B,) int64 token ids."""
    out = np.empty(len(logits), dtype=np.int64)
    for b in range(len(logits)):
        row = logits[b].astype(np.float64)
        if temperature == 0:  # greedy: no division by zero, no randomness
            out[b] = np.argmax(row)
            continue
        z = row / temperature  # temperature scales the logits, before the softmax
        kth = np.sort(z)[-k]  # the k-th largest logit
        z = np.where(z >= kth, z, -np.inf)  # everything below it gets probability 0
        p = np.exp(z - z.max())
        p = p / p.sum()  # renormalize over the k survivors
        cdf = np.cumsum(p)  # in token-id order
        # The first token whose CDF exceeds u (scaled by the total, which may be 1 - 1e-16).
        out[b] = min(np.searchsorted(cdf, u[b] * cdf[-1], side="right"), len(p) - 1)
    return out
'''

TOP_K = ExerciseSpec(
    reference=top_k_reference,
    make_case=_top_k_case,
    solution=TOP_K_SOLUTION,
    examples=(
        {
            "logits": np.array([[2.0, 1.0, 0.0, 3.0]], dtype=np.float32),
            "k": 2,
            "temperature": 1.0,
            "u": np.array([0.5]),
        },
    ),
    edge_cases={
        "temperature 0 (greedy)": lambda rng: _top_k_fixed(rng, 6, 10, 3, 0.0),
        "k = 1": lambda rng: _top_k_fixed(rng, 8, 12, 1, 1.0),
        "k = V (no filtering)": lambda rng: _top_k_fixed(rng, 12, 6, 6, 1.0),
        "low temperature (0.2)": lambda rng: _top_k_fixed(rng, 12, 20, 5, 0.2),
        "high temperature (5)": lambda rng: _top_k_fixed(rng, 12, 20, 5, 5.0),
        "large logits (around 100)": lambda rng: _top_k_fixed(rng, 8, 16, 4, 1.0, 40.0),
        "two tokens": lambda rng: _top_k_fixed(rng, 10, 2, 2, 0.8),
    },
    compare=lambda e, g, c, t: _exact_tokens(e, g),
    mutants=(
        Mutant(
            "temperature ignored",
            mutate(TOP_K_SOLUTION, "z = row / temperature", "z = row"),
            "a lower temperature must sharpen the distribution",
        ),
        Mutant(
            "temperature multiplies the logits",
            mutate(TOP_K_SOLUTION, "z = row / temperature", "z = row * temperature"),
            "T < 1 must sharpen, not flatten",
        ),
        Mutant(
            "keeps k - 1 tokens (strict threshold)",
            mutate(
                TOP_K_SOLUTION,
                "z = np.where(z >= kth, z, -np.inf)",
                "z = np.where(z > kth, z, -np.inf)",
            ),
            "the k-th token itself is kept",
        ),
        Mutant(
            "no renormalization after filtering",
            mutate(
                mutate(
                    mutate(
                        TOP_K_SOLUTION,
                        "        z = np.where(z >= kth, z, -np.inf)",
                        "        keep = z >= kth",
                    ),
                    "p = p / p.sum()  # renormalize",
                    "p = np.where(keep, p / p.sum(), 0.0)  # not renormalized",
                ),
                "u[b] * cdf[-1]",
                "u[b]",
            ),
            "the survivors must sum to 1 again, otherwise u lands past the last kept token",
        ),
        Mutant(
            "no greedy case",
            mutate(TOP_K_SOLUTION, "if temperature == 0:", "if False:"),
            "logits / 0 is inf or NaN",
        ),
    ),
)


def _exact_tokens(expected: np.ndarray, got: np.ndarray) -> Mismatch | None:
    if got.shape != expected.shape:
        return Mismatch(f"the output has shape {got.shape}, expected {expected.shape}")
    if got.dtype.kind not in "iu":
        return Mismatch(f"the output has dtype {got.dtype}, expected integer token ids")
    bad = got != expected
    if not bad.any():
        return None
    first = int(np.argmax(bad.reshape(-1)))
    return Mismatch(
        f"{int(bad.sum())} of {bad.size} tokens differ",
        tuple(int(i) for i in np.unravel_index(first, bad.shape)),
    )


# --- top-p ---------------------------------------------------------------------------------


def top_p_reference(logits: np.ndarray, p: float, temperature: float, u: np.ndarray) -> np.ndarray:
    out = np.empty(len(logits), dtype=np.int64)
    for b, row in enumerate(logits.astype(np.float64)):
        if temperature == 0:
            out[b] = int(np.argmax(row))
            continue
        probs = _softmax(row / temperature)
        order = np.argsort(-probs, kind="stable")
        before = np.cumsum(probs[order]) - probs[order]  # mass of the tokens ranked above
        kept = np.zeros(len(probs), dtype=bool)
        kept[order[before < p]] = True
        kept[order[0]] = True
        out[b] = _inverse_cdf(np.where(kept, probs, 0.0), float(u[b]))
    return out


def _top_p_fixed(
    rng: np.random.Generator, b: int, v: int, p: float, temperature: float, scale: float = 2.0
) -> Case:
    return {**_logits_case(rng, b, v, scale), "p": p, "temperature": temperature}


def _top_p_case(rng: np.random.Generator, size: float) -> Case:
    return _top_p_fixed(
        rng,
        int(rng.integers(1, 2 + int(15 * size))),
        int(rng.integers(2, 3 + int(60 * size))),
        float(rng.uniform(0.05, 0.98)),
        float(rng.choice([0.5, 0.7, 1.0, 1.3])),
        float(rng.uniform(0.5, 4.0)),
    )


def _dominant_token(rng: np.random.Generator) -> Case:
    case = _top_p_fixed(rng, 8, 10, 0.5, 1.0)
    case["logits"][:, 3] += 12.0  # one token holds almost all the mass, more than p
    return case


TOP_P_SOLUTION = '''\
import numpy as np


def sample_top_p(logits: np.ndarray, p: float, temperature: float, u: np.ndarray) -> np.ndarray:
    """logits: (B, V) float32; 0 < p <= 1; temperature >= 0 (0 means greedy); u: (B,) uniform
    draws in [0, 1). Returns (B,) int64 token ids."""
    out = np.empty(len(logits), dtype=np.int64)
    for b in range(len(logits)):
        row = logits[b].astype(np.float64)
        if temperature == 0:
            out[b] = np.argmax(row)
            continue
        z = row / temperature  # temperature first: top-p sees the tempered distribution
        probs = np.exp(z - z.max())
        probs = probs / probs.sum()
        order = np.argsort(-probs, kind="stable")  # most likely first
        before = np.cumsum(probs[order]) - probs[order]  # mass ranked above each token
        keep = np.zeros(len(probs), dtype=bool)
        keep[order[before < p]] = True  # includes the token that crosses p
        kept = np.where(keep, probs, 0.0)
        cdf = np.cumsum(kept / kept.sum())  # renormalized, in token-id order
        out[b] = min(np.searchsorted(cdf, u[b] * cdf[-1], side="right"), len(cdf) - 1)
    return out
'''

TOP_P = ExerciseSpec(
    reference=top_p_reference,
    make_case=_top_p_case,
    solution=TOP_P_SOLUTION,
    examples=(
        {
            "logits": np.log(np.array([[0.1, 0.5, 0.15, 0.25]])).astype(np.float32),
            "p": 0.7,
            "temperature": 1.0,
            "u": np.array([0.9]),
        },
    ),
    edge_cases={
        "temperature 0 (greedy)": lambda rng: _top_p_fixed(rng, 6, 10, 0.9, 0.0),
        "p = 1 (no filtering)": lambda rng: _top_p_fixed(rng, 12, 8, 1.0, 1.0),
        "tiny p (only the top token)": lambda rng: _top_p_fixed(rng, 8, 12, 1e-4, 1.0),
        "one token above p": _dominant_token,
        "low temperature (0.3) changes the nucleus": lambda rng: _top_p_fixed(
            rng, 12, 16, 0.8, 0.3
        ),
        "high temperature (3) widens the nucleus": lambda rng: _top_p_fixed(rng, 12, 16, 0.6, 3.0),
        "two tokens": lambda rng: _top_p_fixed(rng, 10, 2, 0.5, 1.0),
    },
    compare=lambda e, g, c, t: _exact_tokens(e, g),
    mutants=(
        Mutant(
            "the token that crosses p is dropped",
            mutate(
                TOP_P_SOLUTION,
                "keep[order[before < p]] = True",
                "keep[order[before + probs[order] <= p]] = True",
            ),
            "the nucleus is the smallest set whose mass reaches p, crossing token included",
        ),
        Mutant(
            "nucleus chosen before temperature",
            mutate(
                mutate(TOP_P_SOLUTION, "z = row / temperature  #", "z = row  #"),
                "kept = np.where(keep, probs, 0.0)",
                "t = np.exp((row - row.max()) / temperature)\n"
                "        kept = np.where(keep, t / t.sum(), 0.0)",
            ),
            "vLLM and Hugging Face apply temperature first; the nucleus then depends on it",
        ),
        Mutant(
            "least likely tokens kept (ascending sort)",
            mutate(
                TOP_P_SOLUTION,
                'np.argsort(-probs, kind="stable")',
                'np.argsort(probs, kind="stable")',
            ),
            "the nucleus is the most likely tokens",
        ),
        Mutant(
            "no renormalization",
            mutate(
                TOP_P_SOLUTION,
                "cdf = np.cumsum(kept / kept.sum())",
                "cdf = np.cumsum(kept) + (1 - kept.sum())",
            ),
            "the kept mass must be rescaled to 1 before the draw",
        ),
    ),
)
