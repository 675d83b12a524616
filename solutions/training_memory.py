"""Training memory: the optimizer state under each accounting, mixed-precision Adam,
ZeRO stages, CPU offload, checkpoints, activations (with recomputation), the states of a 3D
layout and the memory-bound optimizer step.

Conventions the questions let the user choose (each one a question parameter):
- ``accounting``: what the optimizer state holds per parameter (OPTIMIZER_ACCOUNTINGS);
- ``recompute``: which activations are recomputed (ACTIVATION_RECOMPUTE).

Every function returns base units (bytes, seconds, parameters, GPUs) as
{"answer": value, **intermediates}.
"""

from __future__ import annotations

from typing import Any

from solutions._rounding import eps_ceil
from solutions._units import GB, GBPS

# --- optimizer state --------------------------------------------------------------------------


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

OPTIMIZER_BYTES = 12
"""FP32 master weights + Adam m + Adam v = 4 + 4 + 4 bytes per parameter."""


def optimizer_bytes(accounting: str) -> dict[str, float]:
    """Optimizer-state bytes per parameter under one accounting, with its parts."""
    parts = OPTIMIZER_ACCOUNTINGS[accounting]
    return {"per_param": sum(parts.values()), **parts}


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


def optimizer_state_bytes(model: Any, accounting: str = DEFAULT_ACCOUNTING) -> dict[str, float]:
    """Optimizer states of Adam/AdamW under one accounting (OPTIMIZER_ACCOUNTINGS):
    FP32 master copy + m + v = 12 bytes per parameter by default, 12/16 = 75% of the 16-byte
    static model states; 8 with BF16 moments or without a master copy, 6 with 8-bit moments.
    `static` adds the BF16 weights and gradients (2 + 2 bytes)."""
    optim = optimizer_bytes(accounting)
    per_param = optim["per_param"]
    static = per_param + WEIGHT_BYTES + GRAD_BYTES
    return {
        "answer": per_param * model.params,
        "per_param": per_param,
        "master": optim["master"],
        "m": optim["m"],
        "v": optim["v"],
        "static": static * model.params,
        "static_per_param": static,
        "share": per_param / static,
        "baseline": OPTIMIZER_BYTES * model.params,
    }


def checkpoint_bytes(model: Any, accounting: str = DEFAULT_ACCOUNTING) -> dict[str, float]:
    """A resumable training checkpoint: the BF16 model weights (2 bytes per parameter) plus the
    whole optimizer state of the accounting (12 bytes with an FP32 master copy and FP32 moments,
    so 14 in all); gradients are not saved (the next step recomputes them)."""
    optim = optimizer_bytes(accounting)
    per_param = WEIGHT_BYTES + optim["per_param"]
    return {
        "answer": per_param * model.params,
        "per_param": per_param,
        "optim_per_param": optim["per_param"],
        "master": optim["master"],
        "m": optim["m"],
        "v": optim["v"],
        "weights": WEIGHT_BYTES * model.params,
        "optim": optim["per_param"] * model.params,
        "ratio": per_param / WEIGHT_BYTES,
    }


# --- ZeRO and offload -------------------------------------------------------------------------


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


def zero_bytes_per_param(dp: int, stage: int) -> float:
    """Per-GPU bytes per parameter of mixed-precision Adam model states under ZeRO:
    stage 0: 2 + 2 + 12; stage 1: 2 + 2 + 12/dp; stage 2: 2 + (2 + 12)/dp; stage 3: 16/dp."""
    return sum(zero_state_bytes_per_param(dp, stage))


def zero3_min_gpus(model: Any, gpu: Any, usable: float) -> dict[str, float]:
    """Smallest data-parallel degree for which ZeRO-3 model states (16 bytes/param sharded over
    all GPUs) fit in `usable` of each GPU's memory: ceil(16N / (memory x usable)).
    Activations, buffers and the gathered layer are covered by the reserved share."""
    states = 16 * model.params
    per_gpu = gpu.memory_gb * GB * usable
    exact = states / per_gpu
    return {
        "answer": max(1, eps_ceil(exact)),
        "states": states,
        "per_gpu": per_gpu,
        "exact": exact,
    }


def zero_max_params(memory_gb: float, dp: int, stage: int, usable: float) -> dict[str, float]:
    """Largest parameter count whose ZeRO model states fit in `usable` of `memory_gb` per GPU:
    N = memory x usable / bytes_per_param(stage, dp). Returns a pure count of parameters."""
    budget = memory_gb * GB * usable
    per_param = zero_bytes_per_param(dp, stage)
    return {
        "answer": budget / per_param,
        "budget": budget,
        "per_param": per_param,
        "ddp_params": budget / 16,
    }


OFFLOAD_CPU_BYTES = {"optimizer": 2 + 12, "optimizer-and-params": 2 + 2 + 12}
"""Bytes per parameter that CPU offload moves to host memory (mixed-precision Adam, 16 in all):
ZeRO-Offload (on ZeRO-2) moves the BF16 gradients and the FP32 master + m + v (2 + 12) and
keeps the BF16 weights on every GPU; ZeRO-Infinity offloading to CPU (ZeRO-3) moves all 16."""


def offload_cpu_bytes_per_node(
    model: Any, nodes: int, gpus_per_node: int, offload: str
) -> dict[str, float]:
    """Host memory per node for CPU-offloaded model states. The offloaded states are
    partitioned across all data-parallel ranks, so each node holds its GPUs' share:
    bytes x N x gpus_per_node / (nodes x gpus_per_node) = bytes x N / nodes.
    GPU side: ZeRO-Offload keeps the full BF16 weights (2N per GPU); ZeRO-Infinity keeps only
    the layers being computed (not counted). Pinned buffers and fragmentation are ignored
    (DeepSpeed's own estimator adds a 1.5x buffer factor). `gpu_without_offload` is what the
    same ZeRO stage would keep on each GPU: 2 + 14/Nd bytes per parameter (stage 2) or 16/Nd
    (stage 3)."""
    per_param = OFFLOAD_CPU_BYTES[offload]
    stage = 2 if offload == "optimizer" else 3
    ranks = nodes * gpus_per_node
    per_rank = per_param * model.params / ranks
    gpu_weights = WEIGHT_BYTES * model.params if offload == "optimizer" else 0.0
    return {
        "answer": per_rank * gpus_per_node,
        "per_param": per_param,
        "total": per_param * model.params,
        "ranks": ranks,
        "per_rank": per_rank,
        "gpu_weights": gpu_weights,
        "gpu_without_offload": zero_bytes_per_param(ranks, stage) * model.params,
        "stage": stage,
    }


def three_d_states_per_gpu(model: Any, gpus: int, tp: int, pp: int) -> dict[str, float]:
    """Per-GPU model states of mixed-precision Adam under TP x PP x DP with the optimizer state
    sharded over DP (ZeRO-1 / Megatron distributed optimizer): each GPU owns N / (TP x PP)
    parameters and stores (2 + 2 + 12 / DP) bytes for each. Layers split evenly."""
    dp = gpus // (tp * pp)
    shard = model.params / (tp * pp)
    per_param = 2 + 2 + 12 / dp
    return {
        "answer": shard * per_param,
        "dp": dp,
        "shard": shard,
        "per_param": per_param,
        "no_zero": shard * 16,
    }


# --- activations ------------------------------------------------------------------------------


def megatron_activation_bytes(model: Any, seq: int, micro_batch: int) -> dict[str, float]:
    """Activation memory of the whole layer stack without recomputation or parallelism, from
    Korthikanti et al. (2022): s x b x h x (34 + 5 a s / h) bytes per layer (16-bit activations,
    1-byte dropout masks, GPT-style layer), times L layers. Full recomputation keeps only each
    layer's 16-bit input: 2 s b h bytes per layer."""
    sbh = seq * micro_batch * model.hidden
    score_term = 5 * model.heads * seq / model.hidden
    per_layer = sbh * (34 + score_term)
    full_recompute = 2 * sbh * model.layers
    return {
        "answer": per_layer * model.layers,
        "sbh": sbh,
        "score_term": score_term,
        "per_layer": per_layer,
        "full_recompute": full_recompute,
        "saving": per_layer * model.layers / full_recompute,
    }


ACTIVATION_RECOMPUTE = ("none", "selective", "full")
"""Activation recomputation choices of Megatron-LM: keep everything, recompute the attention core
(QK^T, softmax, dropout, PV: the 5as/h term), or keep only each layer's input."""


def activation_bytes_recompute(
    model: Any, seq: int, micro_batch: int, tp: int, recompute: str
) -> dict[str, float]:
    """Per-GPU activation memory of the whole layer stack for one micro-batch under Megatron
    tensor parallelism t WITH sequence parallelism (Korthikanti et al. 2022, Table 2), 16-bit
    activations and 1-byte dropout masks, no pipeline parallelism:
    none:      s b h (34 + 5 a s / h) / t per layer;
    selective: 34 s b h / t per layer (the attention core is recomputed);
    full:      2 s b h / t per layer (only the layer input, sharded by sequence parallelism).
    The one layer rematerialized during backward under full recomputation is not counted."""
    sbh = seq * micro_batch * model.hidden
    score_term = 5 * model.heads * seq / model.hidden
    per_layer_by = {
        "none": sbh * (34 + score_term) / tp,
        "selective": sbh * 34 / tp,
        "full": 2 * sbh / tp,
    }
    per_layer = per_layer_by[recompute]
    return {
        "answer": per_layer * model.layers,
        "sbh": sbh,
        "score_term": score_term,
        "coefficient": per_layer * tp / sbh,
        "per_layer": per_layer,
        "none": per_layer_by["none"] * model.layers,
        "selective": per_layer_by["selective"] * model.layers,
        "full": per_layer_by["full"] * model.layers,
    }


# --- the optimizer step -----------------------------------------------------------------------


ADAM_STEP_BYTES = {"read": 2 + 4 + 4 + 4, "write": 4 + 4 + 4 + 2}
"""Fused mixed-precision AdamW step per parameter: read the BF16 gradient, FP32 master weight,
m and v; write master, m, v and the BF16 weight copy."""


def adam_step_time(local_params: float, gpu: Any) -> dict[str, float]:
    """Memory-bound optimizer step: local_params x 28 bytes (14 read + 14 written) / HBM
    bandwidth. The ~10-15 FLOPs per parameter are negligible at ~0.5 FLOP/byte."""
    per_param = ADAM_STEP_BYTES["read"] + ADAM_STEP_BYTES["write"]
    moved = local_params * per_param
    return {
        "answer": moved / (gpu.hbm_gbps * GBPS),
        "per_param": per_param,
        "moved": moved,
    }
