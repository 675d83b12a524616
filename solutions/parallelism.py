"""Parallel training layouts: pipeline bubbles and how many micro-batches hide them,
gradient accumulation in a 3D layout, context parallelism (DeepSpeed-Ulysses, Ring Attention)
and the batch at which FSDP's AllGather hides behind compute.

Every function returns base units (bytes, tokens, counts, fractions) as
{"answer": value, **intermediates}.
"""

from __future__ import annotations

from typing import Any

from solutions._rounding import eps_ceil
from solutions._units import GBPS, TFLOPS

# --- pipeline bubbles -------------------------------------------------------------------------


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


def microbatches_for_bubble(
    stages: int, target: float, measure: str = "step-share"
) -> dict[str, float]:
    """Fewest micro-batches m for which the GPipe/1F1B bubble is at most `target`:
    share of the step (p-1)/(m+p-1) <= f gives m >= (p-1)(1-f)/f; over the ideal compute time
    (Megatron's convention) (p-1)/m <= f gives m >= (p-1)/f. Rounded up."""
    if measure == "step-share":
        exact = (stages - 1) * (1 - target) / target
    else:
        exact = (stages - 1) / target
    m = max(1, eps_ceil(exact))
    return {
        "answer": m,
        "exact": exact,
        "achieved": bubble_fraction(stages - 1, m, measure),
    }


def microbatches_per_step(
    global_batch: int, micro_batch: int, gpus: int, tp: int, pp: int
) -> dict[str, float]:
    """Gradient-accumulation count in a 3D layout: DP = GPUs / (TP x PP); each DP replica must
    process global_batch / DP sequences per step, in micro-batches of micro_batch:
    m = global_batch / (micro_batch x DP). With PP these m micro-batches fill the pipeline; the
    1F1B bubble share is (PP-1) / (m + PP-1)."""
    dp = gpus // (tp * pp)
    per_replica = global_batch // dp
    m = per_replica // micro_batch
    return {
        "answer": m,
        "dp": dp,
        "per_replica": per_replica,
        "replica_gpus": tp * pp,
        "bubble": (pp - 1) / (m + pp - 1),
    }


# --- context parallelism ----------------------------------------------------------------------


def ulysses_alltoall_bytes(
    model: Any, dtype: Any, seq: int, micro_batch: int, sp: int
) -> dict[str, float]:
    """DeepSpeed-Ulysses, one layer's forward: each GPU holds s/P tokens; All-to-Alls re-shard
    Q, K, V from sequence to heads before attention and the output back afterwards. An All-to-All
    of a local tensor of X bytes sends (P-1)/P x X. Q and O have heads x head_dim channels,
    K and V kv_heads x head_dim each:
    sent = (P-1)/P x b x (s/P) x (2 heads + 2 kv_heads) x head_dim x bytes."""
    local_tokens = micro_batch * seq // sp
    channels = (2 * model.heads + 2 * model.kv_heads) * model.head_dim
    local = local_tokens * channels * dtype.bytes
    sent = (sp - 1) / sp * local
    return {
        "answer": sent,
        "local_tokens": local_tokens,
        "channels": channels,
        "local": local,
        "model_fwd": sent * model.layers,
    }


def ring_attention_bytes(
    model: Any, dtype: Any, seq: int, micro_batch: int, cp: int
) -> dict[str, float]:
    """Ring Attention, one layer's forward: each GPU keeps its s/P queries and passes K and V
    blocks around the ring; after P-1 steps it has seen every block.
    per step: 2 (K, V) x b x (s/P) x kv_heads x head_dim x bytes; sent = (P-1) x per step."""
    local_tokens = micro_batch * seq // cp
    block = 2 * local_tokens * model.kv_heads * model.head_dim * dtype.bytes
    steps = cp - 1
    return {
        "answer": steps * block,
        "local_tokens": local_tokens,
        "block": block,
        "steps": steps,
        "model_fwd": steps * block * model.layers,
    }


# --- FSDP overlap -----------------------------------------------------------------------------


def fsdp_overlap_tokens(gpu: Any, gpus: int, bw_gbps: float, efficiency: float) -> dict[str, float]:
    """Fewest tokens per GPU per micro-step for FSDP's forward AllGather of a layer (BF16 weights,
    2 P_l bytes, ring: (p-1)/p x 2 P_l sent per GPU) to take no longer than that layer's forward
    compute (2 P_l FLOPs per token at efficiency x dense BF16 peak):
    T >= (p-1)/p x peak x efficiency / B, independent of the layer size. Backward has twice the
    compute and twice the traffic (AllGather + ReduceScatter), so the same bound holds."""
    rate = gpu.bf16_tflops * TFLOPS * efficiency
    bw = bw_gbps * GBPS
    factor = (gpus - 1) / gpus
    return {
        "answer": factor * rate / bw,
        "rate": rate,
        "factor": factor,
        "flops_per_byte": rate / bw,
    }
