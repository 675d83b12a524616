"""Speculative decoding arithmetic (Leviathan et al., 2023), i.i.d. acceptance model."""

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
