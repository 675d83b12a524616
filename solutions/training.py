"""Training compute and memory: 6ND, MFU, mixed-precision Adam, ZeRO stages, matmul cost.

Conventions the questions let the user choose (each one a question parameter):
- ``recompute``: whether activation recomputation reruns the forward pass (6ND vs 8ND);
- ``accounting``: what the optimizer state holds per parameter (OPTIMIZER_ACCOUNTINGS).
"""

from __future__ import annotations

from typing import Any

from solutions._units import DAY, TFLOPS

ADAM_MIXED_BYTES = {"weights_bf16": 2, "grads_bf16": 2, "master_fp32": 4, "adam_m": 4, "adam_v": 4}
"""Bytes per parameter for mixed-precision Adam (ZeRO paper's K = 12 for the optimizer part)."""

WEIGHT_BYTES = ADAM_MIXED_BYTES["weights_bf16"]
GRAD_BYTES = ADAM_MIXED_BYTES["grads_bf16"]

OPTIMIZER_ACCOUNTINGS = {
    "fp32-master-fp32-moments": {"master": 4, "m": 4, "v": 4},
    "fp32-master-bf16-moments": {"master": 4, "m": 2, "v": 2},
    "no-master-fp32-moments": {"master": 0, "m": 4, "v": 4},
    "fp32-master-8bit-moments": {"master": 4, "m": 1, "v": 1},
}
"""Adam/AdamW optimizer-state bytes per parameter under the accountings published examples use:
- fp32-master-fp32-moments: FP32 master weights + FP32 m and v (ZeRO paper, K = 12);
- fp32-master-bf16-moments: FP32 master + BF16 m and v (as DeepSeek-V3 trains);
- no-master-fp32-moments: the BF16 weights are updated in place, FP32 m and v;
- fp32-master-8bit-moments: FP32 master + m and v block-quantized to 8 bits (bitsandbytes'
  8-bit Adam; its per-block scales, one FP32 per 2048 values, are ignored)."""

DEFAULT_ACCOUNTING = "fp32-master-fp32-moments"

RECOMPUTE_FORWARDS = {"none": 0, "full": 1}
"""Extra forward passes that activation recomputation runs during backward: none, or one whole
forward (every layer rerun from its saved input)."""


def optimizer_bytes(accounting: str) -> dict[str, float]:
    """Optimizer-state bytes per parameter under one accounting, with its parts."""
    parts = OPTIMIZER_ACCOUNTINGS[accounting]
    return {"per_param": sum(parts.values()), **parts}


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


def mfu(model: Any, tokens_per_s: float, gpus: int, gpu: Any) -> dict[str, float]:
    """Model FLOPs utilization: achieved 6N x tokens/s over the cluster's dense BF16 peak."""
    achieved = 6 * model.params * tokens_per_s
    peak = gpus * gpu.bf16_tflops * TFLOPS
    return {"answer": achieved / peak, "achieved": achieved, "peak": peak}


def adam_mixed_bytes(model: Any, accounting: str = DEFAULT_ACCOUNTING) -> dict[str, float]:
    """Model states of mixed-precision Adam (no activations): BF16 weights 2 + BF16 gradients 2
    + the optimizer state of the accounting (12 with an FP32 master and FP32 moments: 16 bytes
    per parameter; 12 with BF16 moments or without a master copy; 10 with 8-bit moments)."""
    optim = optimizer_bytes(accounting)
    per_param = WEIGHT_BYTES + GRAD_BYTES + optim["per_param"]
    return {
        "answer": per_param * model.params,
        "per_param": per_param,
        "optim_per_param": optim["per_param"],
        "master": optim["master"],
        "m": optim["m"],
        "v": optim["v"],
    }


def zero_state_bytes_per_param(
    dp: int, stage: int, accounting: str = DEFAULT_ACCOUNTING
) -> tuple[float, float, float]:
    """Per-GPU bytes per parameter of (weights, grads, optimizer states) under ZeRO with
    mixed-precision Adam: 2, 2 and K unsharded (K = 12 with an FP32 master and FP32 moments,
    see OPTIMIZER_ACCOUNTINGS); stage 1 shards the K, stage 2 also the grads, stage 3 also the
    weights."""
    weights, grads = float(WEIGHT_BYTES), float(GRAD_BYTES)
    optim = float(optimizer_bytes(accounting)["per_param"])
    if stage >= 1:
        optim /= dp
    if stage >= 2:
        grads /= dp
    if stage >= 3:
        weights /= dp
    return weights, grads, optim


def zero_bytes_per_gpu(
    model: Any, dp: int, stage: int, accounting: str = DEFAULT_ACCOUNTING
) -> dict[str, float]:
    """Per-GPU model states under ZeRO (mixed-precision Adam, activations excluded).

    stage 0 (plain DDP): 2 + 2 + K per parameter on every GPU (K = 12 by default)
    stage 1 shards the K bytes of optimizer state; stage 2 also the 2 bytes of gradients;
    stage 3 also the 2 bytes of weights."""
    parts = zero_state_bytes_per_param(dp, stage, accounting)
    weights, grads, optim = (part * model.params for part in parts)
    k = optimizer_bytes(accounting)["per_param"]
    return {
        "answer": weights + grads + optim,
        "weights": weights,
        "grads": grads,
        "optim": optim,
        "k": k,
        "per_param": sum(parts),
        "ddp": (WEIGHT_BYTES + GRAD_BYTES + k) * model.params,
    }


BUBBLE_MEASURES = ("step-share", "over-compute")
"""How a pipeline bubble is quoted: as a share of the whole step, idle / (idle + compute), or, as
the Megatron-LM paper does ("bubble time fraction"), relative to the ideal compute time,
idle / compute. With m micro-batches over p stages: (p-1)/(m+p-1) or (p-1)/m."""


def bubble_fraction(idle_slots: float, busy_slots: float, measure: str) -> float:
    """idle / (idle + busy) for "step-share", idle / busy for "over-compute"."""
    if measure == "step-share":
        return idle_slots / (idle_slots + busy_slots)
    if measure == "over-compute":
        return idle_slots / busy_slots
    raise ValueError(f"measure is one of {BUBBLE_MEASURES}, not {measure!r}")


def pipeline_bubble(
    stages: int, microbatches: int, measure: str = "step-share"
) -> dict[str, float]:
    """GPipe / 1F1B bubble: p - 1 idle slots against m busy ones; share of the step
    (p-1) / (m + p - 1), or over the ideal compute time (p-1) / m."""
    idle, busy = stages - 1, microbatches
    return {
        "answer": bubble_fraction(idle, busy, measure),
        "share": bubble_fraction(idle, busy, "step-share"),
        "over": bubble_fraction(idle, busy, "over-compute"),
    }


def interleaved_bubble(
    stages: int, microbatches: int, chunks: int, measure: str = "step-share"
) -> dict[str, float]:
    """Interleaved 1F1B with v model chunks per GPU: bubble time shrinks v-fold. Counted in
    chunk-sized slots: p - 1 idle against v x m busy, share (p-1) / (v*m + p - 1) or, over the
    ideal compute time, (p-1) / (v*m)."""
    idle, busy = stages - 1, chunks * microbatches
    return {
        "answer": bubble_fraction(idle, busy, measure),
        "plain": bubble_fraction(stages - 1, microbatches, measure),
        "share": bubble_fraction(idle, busy, "step-share"),
        "over": bubble_fraction(idle, busy, "over-compute"),
    }
