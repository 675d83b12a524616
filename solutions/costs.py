"""What a training run costs: GPU-hours and dollars from 6ND at a given MFU.

Returns base units like the other solution modules: FLOP, FLOP/s, seconds, and the cost as a
plain number of dollars, as {"answer": value, **intermediates}.
"""

from __future__ import annotations

from typing import Any

from solutions._units import DAY, TFLOPS

HOUR = 3600.0


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
