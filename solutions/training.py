"""Training compute and memory: 6ND, MFU, mixed-precision Adam, ZeRO stages, matmul cost."""

from __future__ import annotations

from typing import Any

from solutions._units import DAY, TFLOPS

ADAM_MIXED_BYTES = {"weights_bf16": 2, "grads_bf16": 2, "master_fp32": 4, "adam_m": 4, "adam_v": 4}
"""Bytes per parameter for mixed-precision Adam (ZeRO paper's K = 12 for the optimizer part)."""


def matmul_flops(m: int, n: int, k: int) -> dict[str, float]:
    """(m x k) @ (k x n): m*n outputs, each k multiply-adds = 2 FLOPs."""
    return {"answer": 2 * m * n * k}


def matmul_time(m: int, n: int, k: int, gpu: Any, efficiency: float) -> dict[str, float]:
    """Compute-bound GEMM time at a fraction of dense BF16 peak."""
    flops = 2 * m * n * k
    rate = gpu.bf16_tflops * TFLOPS * efficiency
    return {"answer": flops / rate, "flops": flops, "rate": rate}


def training_flops(params: float, tokens: float) -> dict[str, float]:
    """6 x N x D: 2ND forward, 4ND backward (activation recomputation not counted)."""
    return {"answer": 6 * params * tokens}


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


def adam_mixed_bytes(model: Any) -> dict[str, float]:
    """Model states of mixed-precision Adam: 16 bytes per parameter (no activations)."""
    per_param = sum(ADAM_MIXED_BYTES.values())
    return {"answer": per_param * model.params, "per_param": per_param}


def zero_state_bytes_per_param(dp: int, stage: int) -> tuple[float, float, float]:
    """Per-GPU bytes per parameter of (weights, grads, optimizer states) under ZeRO with
    mixed-precision Adam: 2, 2 and 12 unsharded; stage 1 shards the 12, stage 2 also the
    grads, stage 3 also the weights."""
    weights, grads, optim = 2.0, 2.0, 12.0
    if stage >= 1:
        optim /= dp
    if stage >= 2:
        grads /= dp
    if stage >= 3:
        weights /= dp
    return weights, grads, optim


def zero_bytes_per_gpu(model: Any, dp: int, stage: int) -> dict[str, float]:
    """Per-GPU model states under ZeRO (mixed-precision Adam, activations excluded).

    stage 0 (plain DDP): 2+2+12 per parameter on every GPU
    stage 1 shards the 12 bytes of optimizer state; stage 2 also the 2 bytes of gradients;
    stage 3 also the 2 bytes of weights."""
    weights, grads, optim = (part * model.params for part in zero_state_bytes_per_param(dp, stage))
    return {"answer": weights + grads + optim, "weights": weights, "grads": grads, "optim": optim}


def pipeline_bubble(stages: int, microbatches: int) -> dict[str, float]:
    """GPipe / 1F1B bubble share of the step: (p-1) / (m + p - 1)."""
    return {"answer": (stages - 1) / (microbatches + stages - 1)}


def interleaved_bubble(stages: int, microbatches: int, chunks: int) -> dict[str, float]:
    """Interleaved 1F1B with v model chunks per GPU: bubble time shrinks v-fold,
    share = (p-1) / (v*m + p - 1)."""
    return {
        "answer": (stages - 1) / (chunks * microbatches + stages - 1),
        "plain": (stages - 1) / (microbatches + stages - 1),
    }
