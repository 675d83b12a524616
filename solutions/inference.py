"""Inference memory and latency: weights, KV cache, decode and prefill time, concurrency.

Every function returns base units: bytes, seconds, FLOP, tokens, or their ratios.
Model, GPU and dtype arguments are presets from question_bank/data/.
"""

from __future__ import annotations

import math
from typing import Any

from solutions._units import GB, GBPS, TFLOPS


def weight_bytes(model: Any, dtype: Any) -> dict[str, float]:
    """Weights only: parameters x bytes per parameter."""
    total = model.params * dtype.bytes
    return {"answer": total, "weight_bytes": total}


def min_gpus_for_weights(model: Any, dtype: Any, gpu: Any, usable: float) -> dict[str, float]:
    """Smallest GPU count whose usable memory holds the weights (nothing else)."""
    weights = model.params * dtype.bytes
    per_gpu = gpu.memory_gb * GB * usable
    return {
        "answer": math.ceil(weights / per_gpu),
        "weight_bytes": weights,
        "per_gpu": per_gpu,
        "exact": weights / per_gpu,
    }


def kv_bytes_per_token(model: Any, dtype: Any) -> dict[str, float]:
    """2 (K and V) x layers x kv_heads x head_dim x bytes."""
    per_token = 2 * model.layers * model.kv_heads * model.head_dim * dtype.bytes
    per_layer = 2 * model.kv_heads * model.head_dim * dtype.bytes
    return {"answer": per_token, "per_layer": per_layer}


def kv_cache_bytes(model: Any, dtype: Any, seq_len: int, batch: int) -> dict[str, float]:
    """KV cache of a batch of sequences, each seq_len tokens long."""
    per_token = kv_bytes_per_token(model, dtype)["answer"]
    tokens = seq_len * batch
    return {"answer": per_token * tokens, "per_token": per_token, "tokens": tokens}


def gqa_kv_saving(model: Any) -> dict[str, float]:
    """How many times smaller the KV cache is than with one KV head per query head."""
    return {"answer": model.heads / model.kv_heads}


def mla_kv_bytes_per_token(model: Any, dtype: Any) -> dict[str, float]:
    """MLA caches one compressed latent (kv_lora_rank) plus the shared RoPE key per layer."""
    per_layer_elems = model.kv_lora_rank + model.qk_rope_head_dim
    mha_elems = 2 * model.heads * model.head_dim
    return {
        "answer": model.layers * per_layer_elems * dtype.bytes,
        "per_layer_elems": per_layer_elems,
        "mha_elems": mha_elems,
        "ratio": mha_elems / per_layer_elems,
    }


def kv_budget_bytes(
    model: Any, weight_dtype: Any, gpu: Any, utilization: float, tp: int = 1
) -> float:
    """Per-GPU memory left for KV cache: the utilization share minus this GPU's weight shard."""
    return gpu.memory_gb * GB * utilization - model.params * weight_dtype.bytes / tp


def max_concurrent_seqs(
    model: Any,
    weight_dtype: Any,
    kv_dtype: Any,
    gpu: Any,
    utilization: float,
    seq_len: int,
    tp: int = 1,
) -> dict[str, float]:
    """Full-length sequences whose KV cache fits after weights (activations ignored).

    With TP the KV heads are split across GPUs too, so each GPU holds 1/tp of every
    token's cache."""
    budget = kv_budget_bytes(model, weight_dtype, gpu, utilization, tp)
    per_token = kv_bytes_per_token(model, kv_dtype)["answer"] / tp
    per_seq = per_token * seq_len
    return {
        "answer": math.floor(budget / per_seq),
        "budget": budget,
        "per_token": per_token,
        "per_seq": per_seq,
        "exact": budget / per_seq,
    }


def kv_block_count(
    model: Any, weight_dtype: Any, kv_dtype: Any, gpu: Any, utilization: float, block_size: int
) -> dict[str, float]:
    """PagedAttention blocks that fit in the KV budget of one GPU (activations ignored)."""
    budget = kv_budget_bytes(model, weight_dtype, gpu, utilization)
    per_token = kv_bytes_per_token(model, kv_dtype)["answer"]
    per_block = per_token * block_size
    return {
        "answer": math.floor(budget / per_block),
        "budget": budget,
        "per_token": per_token,
        "per_block": per_block,
    }


def decode_step_time(model: Any, dtype: Any, gpu: Any) -> dict[str, float]:
    """Lower bound of one decode step at batch 1: stream every weight from HBM once."""
    weights = model.params * dtype.bytes
    bandwidth = gpu.hbm_gbps * GBPS
    return {"answer": weights / bandwidth, "weight_bytes": weights, "bandwidth": bandwidth}


def decode_tokens_per_s(model: Any, dtype: Any, gpu: Any) -> dict[str, float]:
    """Upper bound of single-stream decode speed: bandwidth / weight bytes."""
    step = decode_step_time(model, dtype, gpu)
    return {
        "answer": 1 / step["answer"],
        "step": step["answer"],
        "weight_bytes": step["weight_bytes"],
    }


DECODE_BOUNDS = ("memory", "roofline")
"""Timing models of a decode step: "memory" = bytes / bandwidth only; "roofline" = the larger of
that and the weight GEMMs' FLOPs at the dense BF16 peak, so a large batch turns compute-bound."""


def decode_step_time_with_kv(
    model: Any,
    dtype: Any,
    kv_dtype: Any,
    gpu: Any,
    batch: int,
    context: int,
    bound: str = "memory",
) -> dict[str, float]:
    """One decode step: read the weights once plus every sequence's KV cache.

    memory: T = (weights + KV) / bandwidth.
    roofline: T = max((weights + KV) / bandwidth, 2 x N x batch / dense BF16 peak): the weight
    GEMMs do 2 FLOPs per parameter per sequence. Attention's own FLOPs are left out of the
    compute side (about group-size FLOPs per KV byte, far below the ridge point)."""
    weights = model.params * dtype.bytes
    kv = kv_bytes_per_token(model, kv_dtype)["answer"] * context * batch
    bandwidth = gpu.hbm_gbps * GBPS
    memory_time = (weights + kv) / bandwidth
    flops = 2 * model.params * batch
    peak = gpu.bf16_tflops * TFLOPS
    compute_time = flops / peak
    if bound not in DECODE_BOUNDS:
        raise ValueError(f"bound is one of {DECODE_BOUNDS}, not {bound!r}")
    answer = memory_time if bound == "memory" else max(memory_time, compute_time)
    # batch at which the two sides meet: 2 N b / peak = (W + b K) / BW, K = KV bytes per sequence
    ridge = peak / bandwidth
    kv_seq = kv / batch
    denominator = 2 * model.params / weights - ridge * kv_seq / weights
    critical: float | str = math.ceil(ridge / denominator) if denominator > 0 else "∞"
    return {
        "answer": answer,
        "weight_bytes": weights,
        "kv_bytes": kv,
        "kv_seq_bytes": kv_seq,
        "bandwidth": bandwidth,
        "memory_time": memory_time,
        "flops": flops,
        "peak": peak,
        "compute_time": compute_time,
        "limit": "compute" if compute_time > memory_time else "memory",
        "footprint": weights + kv,
        "ridge": ridge,
        "critical_batch": critical,
    }


def decode_throughput(
    model: Any, dtype: Any, kv_dtype: Any, gpu: Any, batch: int, context: int
) -> dict[str, float]:
    """Tokens/s of a memory-bound decode batch: batch / step time."""
    step = decode_step_time_with_kv(model, dtype, kv_dtype, gpu, batch, context)
    return {
        "answer": batch / step["answer"],
        "step": step["answer"],
        "weight_bytes": step["weight_bytes"],
        "kv_bytes": step["kv_bytes"],
    }


def decode_arithmetic_intensity(batch: int, dtype: Any) -> dict[str, float]:
    """FLOP per byte of the weight GEMMs in decode: 2*b FLOPs per weight read of `bytes`."""
    return {"answer": 2 * batch / dtype.bytes}


def ridge_point(gpu: Any) -> dict[str, float]:
    """Arithmetic intensity where BF16 compute and HBM bandwidth limits meet (FLOP/byte)."""
    peak = gpu.bf16_tflops * TFLOPS
    bandwidth = gpu.hbm_gbps * GBPS
    return {"answer": peak / bandwidth, "peak": peak, "bandwidth": bandwidth}


def decode_critical_batch(gpu: Any, dtype: Any) -> dict[str, float]:
    """Batch at which weight GEMMs in decode reach the ridge point: 2b/bytes = ridge."""
    ridge = ridge_point(gpu)["answer"]
    return {"answer": ridge * dtype.bytes / 2, "ridge": ridge}


def prefill_time(model: Any, gpu: Any, prompt_tokens: int, mfu: float) -> dict[str, float]:
    """Compute-bound prefill: 2 x params x tokens FLOPs at mfu x dense BF16 peak.

    Attention's own FLOPs are left out (small next to the GEMMs for prompts of a few
    thousand tokens on large models)."""
    flops = 2 * model.params * prompt_tokens
    rate = gpu.bf16_tflops * TFLOPS * mfu
    return {"answer": flops / rate, "flops": flops, "rate": rate}


def tp_allreduce_bytes_per_token(model: Any, dtype: Any) -> dict[str, float]:
    """Megatron-style TP: one AllReduce after attention and one after the MLP per layer,
    each over the token's hidden vector."""
    per_layer = 2 * model.hidden * dtype.bytes
    return {"answer": per_layer * model.layers, "per_layer": per_layer}


def kv_transfer_time(
    model: Any, dtype: Any, prompt_tokens: int, link_gbps: float
) -> dict[str, float]:
    """PD disaggregation: time to ship a prompt's KV cache from prefill to decode."""
    size = kv_bytes_per_token(model, dtype)["answer"] * prompt_tokens
    return {"answer": size / (link_gbps * GBPS), "size": size}


# --- serving footprint and attention arithmetic intensity ----------------------------------


SERVING_LAYOUTS = ("pipeline", "tensor")
"""How a model is split over GPUs for serving: "pipeline" splits by layers, so weights and KV
cache divide over any number of GPUs; "tensor" (TP) needs a power-of-two group and splits the
KV cache by KV heads, so beyond kv_heads GPUs each KV head is replicated."""

MAX_GPUS = 1024


def min_gpus_serving(
    model: Any,
    dtype: Any,
    kv_dtype: Any,
    gpu: Any,
    usable: float,
    batch: int,
    context: int,
    layout: str,
) -> dict[str, float]:
    """Fewest GPUs whose usable memory holds the weights plus the KV cache of `batch` sequences
    of `context` tokens (activations and buffers are in the unusable share).
    pipeline: G = ceil((W + KV) / (memory x usable)).
    tensor: the smallest power of two G with W / G + KV / min(G, kv_heads) <= memory x usable."""
    weights = model.params * dtype.bytes
    kv = kv_bytes_per_token(model, kv_dtype)["answer"] * context * batch
    budget = gpu.memory_gb * GB * usable
    exact = (weights + kv) / budget
    if layout == "pipeline":
        count = max(1, math.ceil(exact - 1e-9))
        per_gpu = (weights + kv) / count
    elif layout == "tensor":
        count = 1
        while weights / count + kv / min(count, model.kv_heads) > budget:
            count *= 2
            if count > MAX_GPUS:
                raise ValueError("the KV cache does not fit even with replicated KV heads")
        per_gpu = weights / count + kv / min(count, model.kv_heads)
    else:
        raise ValueError(f"layout is one of {SERVING_LAYOUTS}, not {layout!r}")
    return {
        "answer": count,
        "weight_bytes": weights,
        "kv_bytes": kv,
        "total": weights + kv,
        "budget": budget,
        "exact": exact,
        "per_gpu": per_gpu,
        "kv_share": kv / (weights + kv),
        "weights_only": max(1, math.ceil(weights / budget - 1e-9)),
    }


def decode_attention_intensity(model: Any, kv_dtype: Any, context: int) -> dict[str, float]:
    """Arithmetic intensity of one decode step's attention for one sequence and one layer:
    QK^T and PV cost 2 x head_dim FLOPs each per (query head, cached token), so
    4 x context x heads x head_dim FLOPs; the bytes are the K and V cache read,
    2 x context x kv_heads x head_dim x bytes (the query and output vectors are negligible).
    intensity = 2 x heads / (kv_heads x bytes): the GQA group size over the KV bytes,
    independent of context and of batch (every sequence reads its own cache)."""
    flops = 4 * context * model.heads * model.head_dim
    moved = 2 * context * model.kv_heads * model.head_dim * kv_dtype.bytes
    return {
        "answer": flops / moved,
        "flops": flops,
        "moved": moved,
        "group": model.heads // model.kv_heads,
    }


def prefill_attention_intensity(model: Any, seq: int, dtype: Any, mask: str) -> dict[str, float]:
    """Arithmetic intensity of one layer's attention over a prompt of `seq` tokens with ideal IO
    (a FlashAttention-style kernel reading Q, K and V once and writing O once):
    FLOPs = 4 x head_dim x heads x (query, key) pairs, pairs = s^2 (full) or s^2 / 2 (causal);
    bytes = s x head_dim x (2 heads + 2 kv_heads) x bytes (Q and O per query head, K and V per
    KV head). intensity = 2 s k heads / ((heads + kv_heads) x bytes), k = 1 or 1/2."""
    share = {"causal": 0.5, "full": 1.0}[mask]
    pairs = share * seq * seq
    flops = 4 * model.head_dim * model.heads * pairs
    moved = seq * model.head_dim * (2 * model.heads + 2 * model.kv_heads) * dtype.bytes
    return {
        "answer": flops / moved,
        "pairs": pairs,
        "flops": flops,
        "moved": moved,
    }
