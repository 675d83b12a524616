"""Speculative decoding: the acceptance rule, checked statistically (the emitted tokens must
follow the target distribution) and exactly where the rule is deterministic."""

from __future__ import annotations

import math

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mismatch, Mutant, Tolerance, mutate

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


def _rule_mismatch(got: np.ndarray, case: Case, accepted: np.ndarray) -> Mismatch | None:
    """The first trial that breaks the deterministic part of the rule: an accepted draft not kept
    as drafted, no token at the first rejection, tokens after it, or a resampled token outside
    the support of max(p - q, 0)."""
    p, q, draft = case["p_target"], case["q_draft"], case["draft"]
    n, k = draft.shape
    v = p.shape[1]
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
    return None


def _distribution_mismatch(got: np.ndarray, case: Case, accepted: np.ndarray) -> Mismatch | None:
    """The first position whose emitted tokens do not follow the target distribution there, by a
    chi-square test over the trials that reach it (positions reached fewer than 200 times are
    not tested)."""
    p = case["p_target"]
    k = case["draft"].shape[1]
    v = p.shape[1]
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
    accepted = _accepted(case)
    broken = _rule_mismatch(got, case, accepted)
    if broken is not None:
        return broken
    return _distribution_mismatch(got, case, accepted)


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
