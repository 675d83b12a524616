"""Speculative decoding arithmetic (Leviathan et al., 2023), i.i.d. acceptance model:
tokens per target step, speedup, the break-even draft cost, the acceptance rate a speedup needs
and the mean accepted length from counters.

Every function returns a pure number (tokens, a speedup, a rate) as
{"answer": value, **intermediates}.
"""

from __future__ import annotations


def expected_tokens_per_step(alpha: float, k: int) -> dict[str, float]:
    """Tokens produced per target forward with k drafted tokens and acceptance rate alpha:
    (1 - alpha^(k+1)) / (1 - alpha), counting the bonus/correction token."""
    if alpha >= 1:
        return {"answer": k + 1}
    return {"answer": (1 - alpha ** (k + 1)) / (1 - alpha)}


def speculative_speedup(alpha: float, k: int, draft_cost: float) -> dict[str, float]:
    """Wall-time speedup over plain decoding when one draft step costs `draft_cost` of a
    target step: expected tokens / (k x draft_cost + 1)."""
    tokens = expected_tokens_per_step(alpha, k)["answer"]
    cost = k * draft_cost + 1
    return {"answer": tokens / cost, "tokens": tokens, "cost": cost}


def spec_break_even_draft_cost(alpha: float, k: int) -> dict[str, float]:
    """Largest draft-step cost (as a fraction of one target step) at which speculative
    decoding still breaks even: E / (k c + 1) = 1  =>  c = (E - 1) / k,
    E = (1 - alpha^(k+1)) / (1 - alpha)."""
    tokens = expected_tokens_per_step(alpha, k)["answer"]
    return {"answer": (tokens - 1) / k, "tokens": tokens}


def spec_alpha_for_speedup(k: int, draft_cost: float, target: float) -> dict[str, float]:
    """Acceptance rate alpha at which speculative decoding reaches speedup `target`:
    solve (1 - alpha^(k+1)) / ((1 - alpha)(k c + 1)) = target by bisection (the speedup grows
    monotonically with alpha). Reachable only if target < (k + 1) / (k c + 1)."""
    cost = k * draft_cost + 1
    ceiling = (k + 1) / cost
    if target >= ceiling:
        raise ValueError(f"speedup {target} unreachable (max {ceiling:.3f})")
    needed = target * cost
    low, high = 0.0, 1.0 - 1e-12
    for _ in range(200):
        mid = (low + high) / 2
        if expected_tokens_per_step(mid, k)["answer"] < needed:
            low = mid
        else:
            high = mid
    alpha = (low + high) / 2
    return {"answer": alpha, "needed": needed, "cost": cost, "ceiling": ceiling}


def spec_mean_accept_length(drafts: int, k: int, fill: float, accept: float) -> dict[str, float]:
    """Mean tokens committed per verification round from speculative-decoding counters.

    The counters are built from the parameters: draft_tokens = round(drafts x k x fill) (rounds
    may propose fewer than k tokens), accepted = round(draft_tokens x accept).
    mean length = 1 + accepted / drafts (the target always adds one token);
    per-token acceptance rate = accepted / draft_tokens, which differs from
    accepted / (k x drafts) when rounds propose fewer than k tokens."""
    draft_tokens = round(drafts * k * fill)
    accepted = round(draft_tokens * accept)
    return {
        "answer": 1 + accepted / drafts,
        "draft_tokens": draft_tokens,
        "accepted": accepted,
        "rate": accepted / draft_tokens,
        "naive_rate": accepted / (k * drafts),
        "per_round": accepted / drafts,
        "avg_proposed": draft_tokens / drafts,
    }
