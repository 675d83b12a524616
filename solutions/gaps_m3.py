"""Solutions for the interview-gap questions written by m3 (question_bank/questions/*/gaps-m3.yaml):
latency hiding with instruction-level parallelism, and the Chinchilla compute-optimal model size."""

from __future__ import annotations

import math

MAX_WARPS_PER_SM = 64
"""Resident-warp limit per SM on A100 and H100 (2,048 threads / 32)."""


def warps_to_hide_latency(latency_cycles: int, ilp: int, schedulers: int = 4) -> dict[str, float]:
    """Little's law for a warp scheduler: to issue one instruction every cycle while each result
    takes `latency_cycles` to become usable, a scheduler needs `latency_cycles` independent
    instructions in flight. A warp whose thread has `ilp` independent instructions supplies `ilp`
    of them, so each scheduler needs ceil(latency / ilp) warps, and the SM `schedulers` times
    that."""
    per_scheduler = math.ceil(latency_cycles / ilp)
    warps = schedulers * per_scheduler
    return {
        "answer": warps,
        "in_flight": latency_cycles,
        "per_scheduler": per_scheduler,
        "occupancy": warps / MAX_WARPS_PER_SM,
    }


def chinchilla_optimal_params(
    compute_flops: float, tokens_per_param: float = 20.0
) -> dict[str, float]:
    """Compute-optimal dense model under C = 6·N·D with D = r·N (Chinchilla: ~20 tokens per
    parameter): C = 6·r·N², so N = sqrt(C / (6·r)) and D = r·N."""
    params = math.sqrt(compute_flops / (6 * tokens_per_param))
    tokens = tokens_per_param * params
    return {
        "answer": params,
        "params": params,
        "tokens": tokens,
        "check": 6 * params * tokens,
    }
