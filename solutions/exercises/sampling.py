"""Sampling exercises: top-k and top-p (nucleus) sampling with temperature, made deterministic by
passing the uniform draws in, and the acceptance rule of speculative decoding, checked
statistically (the emitted tokens must follow the target distribution)."""

from __future__ import annotations

import math

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mismatch, Mutant, Tolerance, mutate

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


# --- speculative decoding: the acceptance rule ---------------------------------------------


def _accepted(case: Case) -> np.ndarray:
    """How many draft tokens each trial accepts: draft x at step j is kept when
    u_accept < p_j(x) / q_j(x)."""
    p, q, draft, ua = case["p_target"], case["q_draft"], case["draft"], case["u_accept"]
    k = draft.shape[1]
    cols = np.arange(k)
    pr = p[cols, draft]  # (N, K): p_j(draft[t, j])
    qr = q[cols, draft]
    ok = ua < np.minimum(1.0, pr / qr)
    first_reject = np.where(ok.all(axis=1), k, np.argmin(ok, axis=1))
    return first_reject


def speculative_reference(
    p_target: np.ndarray,
    q_draft: np.ndarray,
    draft: np.ndarray,
    u_accept: np.ndarray,
    u_sample: np.ndarray,
) -> np.ndarray:
    """Vectorized over trials: the accepted drafts, then one token from the normalized residual
    at the first rejection (or from the last target distribution if none), drawn by inverse CDF
    in token-id order."""
    k = draft.shape[1]
    accepted = _accepted(
        {"p_target": p_target, "q_draft": q_draft, "draft": draft, "u_accept": u_accept}
    )
    out = np.where(np.arange(k + 1) < accepted[:, None], np.pad(draft, ((0, 0), (0, 1))), -1)
    for j in range(k + 1):
        at = accepted == j
        if not at.any():
            continue
        probs = p_target[j] if j == k else np.maximum(p_target[j] - q_draft[j], 0.0)
        cdf = np.cumsum(probs)
        picks = np.searchsorted(cdf, u_sample[at] * cdf[-1], side="right")
        out[at, j] = np.minimum(picks, len(probs) - 1)
    return out.astype(np.int64)


def _critical_chi2(df: int, z: float = 5.0) -> float:
    """Wilson–Hilferty: the chi-square value exceeded with probability about Φ(-z) (3e-7 for
    z = 5), so a correct solution almost never fails on bad luck."""
    a = 2.0 / (9.0 * df)
    return df * (1.0 - a + z * math.sqrt(a)) ** 3


def _chi2(counts: np.ndarray, probs: np.ndarray) -> tuple[float, int]:
    """Pearson's statistic, pooling categories expected fewer than 5 times."""
    n = counts.sum()
    expected = n * probs
    small = expected < 5
    obs = list(counts[~small]) + ([counts[small].sum()] if small.any() else [])
    exp = list(expected[~small]) + ([expected[small].sum()] if small.any() else [])
    obs_a, exp_a = np.array(obs, dtype=np.float64), np.array(exp, dtype=np.float64)
    live = exp_a > 0
    if (obs_a[~live] > 0).any():
        return math.inf, max(1, int(live.sum()) - 1)
    stat = float((((obs_a - exp_a) ** 2)[live] / exp_a[live]).sum())
    return stat, max(1, int(live.sum()) - 1)


def speculative_compare(
    expected: np.ndarray, got: np.ndarray, case: Case, tol: Tolerance
) -> Mismatch | None:
    """Exact where the rule is deterministic (which drafts are accepted, given u_accept; the
    shape of each row; the support of the resampled token), statistical where it is random (the
    token emitted at each position must follow the target distribution there)."""
    if got.shape != expected.shape:
        return Mismatch(f"the output has shape {got.shape}, expected {expected.shape}")
    if got.dtype.kind not in "iu":
        return Mismatch(f"the output has dtype {got.dtype}, expected int64 token ids")
    p, q, draft = case["p_target"], case["q_draft"], case["draft"]
    n, k = draft.shape
    v = p.shape[1]
    accepted = _accepted(case)
    trials = np.arange(n)
    cols = np.arange(k + 1)
    drafted = np.pad(draft, ((0, 0), (0, 1)), constant_values=-2)
    kept_wrong = ((cols < accepted[:, None]) & (got != drafted)).any(axis=1)
    emitted = got[trials, accepted]
    missing = (emitted < 0) | (emitted >= v)
    tail = ((cols > accepted[:, None]) & (got != -1)).any(axis=1)
    x = np.clip(emitted, 0, v - 1)
    rejected = accepted < k
    pos = np.minimum(accepted, k)
    p_x = p[pos, x]
    q_x = np.where(rejected, q[np.minimum(pos, k - 1), x], 0.0)
    off_support = ~missing & np.where(rejected, p_x <= q_x, p_x <= 0)
    for t in trials[kept_wrong | missing | tail | off_support][:1]:
        a, row = int(accepted[t]), got[t]
        if kept_wrong[t]:
            why = (
                f"the first {a} draft tokens pass u < p/q and must be kept as drafted, got "
                f"{row.tolist()} for drafts {draft[t].tolist()}"
            )
        elif missing[t]:
            why = f"{a} drafts accepted, so position {a} must hold a sampled token ({row.tolist()})"
        elif tail[t]:
            why = f"after position {a} the row must be -1 (got {row.tolist()})"
        elif a < k:
            why = (
                f"draft rejected at position {a}, but the resampled token {int(row[a])} has "
                f"p - q = {p_x[t] - q_x[t]:.3g} <= 0: resample from max(p - q, 0), normalized"
            )
        else:
            why = f"the bonus token {int(row[a])} has target probability 0"
        return Mismatch(f"trial {int(t)}: {why}", (int(t), a))
    for j in range(k + 1):
        reached = accepted >= j
        if reached.sum() < 200:
            continue
        counts = np.bincount(got[reached, j], minlength=v)[:v]
        stat, df = _chi2(counts, p[j])
        if stat > _critical_chi2(df):
            freq = counts / counts.sum()
            return Mismatch(
                f"position {j}: the emitted tokens do not follow the target distribution "
                f"(chi-square {stat:.1f} on {df} degrees of freedom over {int(reached.sum())} "
                f"trials; observed {np.round(freq, 3).tolist()}, target "
                f"{np.round(p[j], 3).tolist()})",
                (0, j),
            )
    return None


def _dirichlet(rng: np.random.Generator, k: int, v: int, alpha: float) -> np.ndarray:
    return rng.dirichlet(np.full(v, alpha), size=k)


def _spec_from(rng: np.random.Generator, p: np.ndarray, q: np.ndarray, n: int) -> Case:
    k = q.shape[0]
    draft = np.stack([rng.choice(q.shape[1], size=n, p=q[j]) for j in range(k)], axis=1)
    return {
        "p_target": p,
        "q_draft": q,
        "draft": draft.astype(np.int64),
        "u_accept": rng.random((n, k)),
        "u_sample": rng.random(n),
    }


def _spec_case(rng: np.random.Generator, size: float) -> Case:
    v = int(rng.integers(2, 3 + int(6 * size)))
    k = int(rng.integers(1, 2 + int(3 * size)))
    p = _dirichlet(rng, k + 1, v, float(rng.uniform(0.5, 2.0)))
    other = _dirichlet(rng, k, v, float(rng.uniform(0.5, 2.0)))
    mix = float(rng.uniform(0.0, 0.6))
    q = mix * p[:k] + (1 - mix) * other
    return _spec_from(rng, p, q, 1000 + int(1500 * size))


def _spec_fixed(rng: np.random.Generator, p: list[list[float]], q: list[list[float]]) -> Case:
    return _spec_from(rng, np.array(p, dtype=np.float64), np.array(q, dtype=np.float64), 2000)


SPEC_SOLUTION = '''\
import numpy as np


def sample(probs: np.ndarray, u: float) -> int:
    """Inverse-CDF draw from unnormalized probabilities (in token-id order)."""
    cdf = np.cumsum(probs)
    return int(min(np.searchsorted(cdf, u * cdf[-1], side="right"), len(probs) - 1))


def speculative_verify(
    p_target: np.ndarray,
    q_draft: np.ndarray,
    draft: np.ndarray,
    u_accept: np.ndarray,
    u_sample: np.ndarray,
) -> np.ndarray:
    """p_target: (K+1, V), q_draft: (K, V) distributions; draft: (N, K) drafted tokens of N
    independent trials; u_accept: (N, K), u_sample: (N,) uniform draws. Returns (N, K+1) int64:
    the emitted tokens of each trial, padded with -1."""
    n, k = draft.shape
    out = np.full((n, k + 1), -1, dtype=np.int64)
    for t in range(n):
        for j in range(k):
            x = draft[t, j]
            # Accept with probability min(1, p/q): always when the target likes x at least as
            # much as the draft did, otherwise in proportion.
            if u_accept[t, j] < min(1.0, p_target[j, x] / q_draft[j, x]):
                out[t, j] = x
                continue
            # Rejected: draw from the part of p that the draft under-covers, then stop.
            residual = np.maximum(p_target[j] - q_draft[j], 0.0)
            out[t, j] = sample(residual, u_sample[t])
            break
        else:
            # Every draft accepted: the target's next distribution is already computed, so one
            # more token comes for free.
            out[t, k] = sample(p_target[k], u_sample[t])
    return out
'''

SPECULATIVE_ACCEPT = ExerciseSpec(
    reference=speculative_reference,
    make_case=_spec_case,
    solution=SPEC_SOLUTION,
    compare=speculative_compare,
    random_cases=6,
    examples=(
        {
            "p_target": np.array([[0.6, 0.4], [0.5, 0.5]]),
            "q_draft": np.array([[0.2, 0.8]]),
            "draft": np.array([[0], [1], [1]], dtype=np.int64),
            "u_accept": np.array([[0.9], [0.3], [0.7]]),
            "u_sample": np.array([0.5, 0.5, 0.1]),
        },
    ),
    edge_cases={
        "draft equals target (everything accepted)": lambda rng: _spec_fixed(
            rng, [[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]], [[0.2, 0.5, 0.3]]
        ),
        "greedy draft (one-hot q)": lambda rng: _spec_fixed(
            rng,
            [[0.3, 0.3, 0.4], [0.1, 0.1, 0.8], [0.5, 0.25, 0.25]],
            [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        ),
        "target gives some drafts probability 0": lambda rng: _spec_fixed(
            rng, [[0.0, 0.7, 0.3, 0.0], [0.25, 0.25, 0.25, 0.25]], [[0.4, 0.2, 0.2, 0.2]]
        ),
        "draft far from target": lambda rng: _spec_fixed(
            rng,
            [[0.85, 0.05, 0.05, 0.05], [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]],
            [[0.05, 0.05, 0.05, 0.85], [0.25, 0.25, 0.25, 0.25]],
        ),
    },
    mutants=(
        Mutant(
            "resample from the target instead of the residual",
            mutate(
                SPEC_SOLUTION,
                "residual = np.maximum(p_target[j] - q_draft[j], 0.0)",
                "residual = p_target[j]",
            ),
            "tokens the draft already offered get counted twice, so the output drifts toward q",
        ),
        Mutant(
            "accept when u < q / p",
            mutate(
                SPEC_SOLUTION,
                "min(1.0, p_target[j, x] / q_draft[j, x])",
                "min(1.0, q_draft[j, x] / p_target[j, x])",
            ),
            "the ratio is target over draft",
        ),
        Mutant(
            "no bonus token",
            mutate(
                SPEC_SOLUTION,
                "            out[t, k] = sample(p_target[k], u_sample[t])",
                "            pass",
            ),
            "when all K drafts pass, the target's last distribution gives a (K+1)-th token",
        ),
        Mutant(
            "residual not clipped at 0",
            mutate(
                SPEC_SOLUTION,
                "residual = np.maximum(p_target[j] - q_draft[j], 0.0)",
                "residual = np.abs(p_target[j] - q_draft[j])",
            ),
            "tokens where q > p must get no mass after a rejection",
        ),
        Mutant(
            "keeps going after a rejection",
            mutate(
                SPEC_SOLUTION,
                "            out[t, j] = sample(residual, u_sample[t])\n            break",
                "            out[t, j] = sample(residual, u_sample[t])",
            ),
            "later drafts were conditioned on the rejected token and are invalid",
        ),
    ),
)
