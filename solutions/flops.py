"""Compute: the FLOPs of a matmul and of training (6ND, 8ND under full recomputation),
compute-bound time, MFU and HFU from a throughput, the compute-optimal model size and what a
training run costs.

Conventions the questions let the user choose (each one a question parameter):
- ``recompute``: whether activation recomputation reruns the forward pass (6ND vs 8ND).
Observation parameters (a measured throughput) follow solutions/_measured.py.

Every function returns base units (FLOP, FLOP/s, seconds, dollars, fractions) as
{"answer": value, **intermediates}.
"""

from __future__ import annotations

import math
from typing import Any

from solutions._measured import MEASURED, observed, sig3
from solutions._units import DAY, HOUR, TFLOPS

# --- matmuls and training FLOPs ---------------------------------------------------------------


RECOMPUTE_FORWARDS = {"none": 0, "full": 1}
"""Extra forward passes that activation recomputation runs during backward: none, or one whole
forward (every layer rerun from its saved input)."""


def matmul_flops(m: int, n: int, k: int) -> dict[str, float]:
    """(m x k) @ (k x n): m*n outputs, each k multiply-adds = 2 FLOPs."""
    return {"answer": 2 * m * n * k}


def matmul_time(m: int, n: int, k: int, gpu: Any, efficiency: float) -> dict[str, float]:
    """Compute-bound GEMM time at a fraction of dense BF16 peak."""
    flops = 2 * m * n * k
    rate = gpu.bf16_tflops * TFLOPS * efficiency
    return {"answer": flops / rate, "flops": flops, "rate": rate}


def training_flops(params: float, tokens: float, recompute: str = "none") -> dict[str, float]:
    """FLOPs the GPUs execute: 2ND forward + 4ND backward = 6ND, plus 2ND for the recomputed
    forward under full activation recomputation = 8ND (attention's sequence term ignored)."""
    forward = 2 * params * tokens
    backward = 2 * forward
    recomputed = RECOMPUTE_FORWARDS[recompute] * forward
    total = forward + backward + recomputed
    return {
        "answer": total,
        "forward": forward,
        "backward": backward,
        "recomputed": recomputed,
        "factor": round(total / (params * tokens)),
        "model_flops": forward + backward,
    }


def training_days(model: Any, tokens: float, gpus: int, gpu: Any, mfu: float) -> dict[str, float]:
    """Wall-clock days for 6ND FLOPs on `gpus` GPUs at `mfu` of dense BF16 peak."""
    flops = 6 * model.params * tokens
    rate = gpus * gpu.bf16_tflops * TFLOPS * mfu
    seconds = flops / rate
    return {"answer": seconds, "flops": flops, "rate": rate, "days": seconds / DAY}


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


def training_cost(
    model: Any, tokens: float, gpu: Any, mfu: float, price: float, gpus: int
) -> dict[str, float]:
    """Dollar cost of pre-training on `tokens` tokens.

    compute C = 6 x N x D (model FLOPs; MFU counts the same FLOPs, so recomputation changes
    neither); one GPU sustains peak x MFU, so GPU-seconds = C / (dense BF16 peak x MFU),
    GPU-hours = that / 3600 and cost = GPU-hours x price per GPU-hour. The GPU count only sets
    the wall-clock time (GPU-hours / GPUs), not the cost, as long as MFU holds."""
    flops = 6 * model.params * tokens
    rate = gpu.bf16_tflops * TFLOPS * mfu
    gpu_seconds = flops / rate
    gpu_hours = gpu_seconds / HOUR
    return {
        "answer": gpu_hours * price,
        "flops": flops,
        "rate": rate,
        "gpu_hours": gpu_hours,
        "days": gpu_seconds / gpus / DAY,
    }


# --- utilization ------------------------------------------------------------------------------


def mfu(model: Any, tokens_per_s: float, gpus: int, gpu: Any) -> dict[str, float]:
    """Model FLOPs utilization: achieved 6N x tokens/s over the cluster's dense BF16 peak."""
    achieved = 6 * model.params * tokens_per_s
    peak = gpus * gpu.bf16_tflops * TFLOPS
    return {"answer": achieved / peak, "achieved": achieved, "peak": peak}


def measured_tokens_per_s(model: Any, gpus: int, gpu: Any, true_mfu: float) -> float:
    """A realistic cluster throughput for a question: the tokens/s that `true_mfu` of the dense
    BF16 peak would give under 6N FLOPs per token, rounded to 3 significant figures.
    The prompt shows this number; `true_mfu` itself is never shown."""
    return sig3(true_mfu * gpus * gpu.bf16_tflops * TFLOPS / (6 * model.params))


def mfu_measured(
    model: Any, gpus: int, gpu: Any, true_mfu: float, tokens_per_s: float | str = MEASURED
) -> dict[str, float]:
    """MFU = 6N x tokens/s / (GPUs x dense BF16 peak), for the measured throughput above, or
    for the throughput given (`tokens_per_s`)."""
    tokens_per_s = observed(tokens_per_s, lambda: measured_tokens_per_s(model, gpus, gpu, true_mfu))
    result = mfu(model, tokens_per_s, gpus, gpu)
    return {**result, "tokens_per_s": tokens_per_s, "per_gpu": tokens_per_s / gpus}


def hfu_measured(
    model: Any, gpus: int, gpu: Any, true_mfu: float, tokens_per_s: float | str = MEASURED
) -> dict[str, float]:
    """Hardware FLOPs utilization with full activation recomputation.

    MFU counts the model's 6N FLOPs per token; with full recomputation the hardware also reruns
    the forward pass (another 2N), so it executes 8N per token: HFU = 8N x tokens/s / peak
    = MFU x 4/3. Attention's sequence-dependent FLOPs are ignored. The throughput is the
    generated measurement, or `tokens_per_s` when given."""
    tokens_per_s = observed(tokens_per_s, lambda: measured_tokens_per_s(model, gpus, gpu, true_mfu))
    peak = gpus * gpu.bf16_tflops * TFLOPS
    model_flops = 6 * model.params * tokens_per_s
    hardware_flops = 8 * model.params * tokens_per_s
    return {
        "answer": hardware_flops / peak,
        "mfu": model_flops / peak,
        "hardware_flops": hardware_flops,
        "model_flops": model_flops,
        "peak": peak,
        "tokens_per_s": tokens_per_s,
    }
