"""Inference latency: the time of a decode step (weights, KV cache, roofline), decode
throughput and the gain of batching, compute-bound prefill and the share of TTFT in end-to-end
latency.

Every function returns base units (seconds, tokens/s, FLOP per byte, fractions) as
{"answer": value, **intermediates}. Model, GPU and dtype arguments are presets from
question_bank/data/.
"""

from __future__ import annotations

import math
from typing import Any

from solutions._units import GBPS, MS, TFLOPS
from solutions.kernels import ridge_point
from solutions.kv_cache import kv_bytes_per_token

# --- decode -----------------------------------------------------------------------------------


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


def decode_batching_speedup(
    model: Any, dtype: Any, kv_dtype: Any, batch: int, context: int
) -> dict[str, float]:
    """Aggregate decode throughput at `batch` over throughput at batch 1, memory-bound steps.

    A step reads all weights once plus every sequence's KV cache, so
    step(B) = (W + B * kv_seq) / bw and throughput(B) = B / step(B). The bandwidth cancels:
    speedup = B * (W + kv_seq) / (W + B * kv_seq)."""
    weights = model.params * dtype.bytes
    kv_seq = kv_bytes_per_token(model, kv_dtype)["answer"] * context
    step1 = weights + kv_seq
    step_b = weights + batch * kv_seq
    speedup = batch * step1 / step_b
    return {
        "answer": speedup,
        "weight_bytes": weights,
        "kv_seq_bytes": kv_seq,
        "step1_bytes": step1,
        "stepb_bytes": step_b,
        "kv_batch_bytes": batch * kv_seq,
        "efficiency": speedup / batch,
    }


def decode_arithmetic_intensity(batch: int, dtype: Any) -> dict[str, float]:
    """FLOP per byte of the weight GEMMs in decode: 2*b FLOPs per weight read of `bytes`."""
    return {"answer": 2 * batch / dtype.bytes}


def decode_critical_batch(gpu: Any, dtype: Any) -> dict[str, float]:
    """Batch at which weight GEMMs in decode reach the ridge point: 2b/bytes = ridge."""
    ridge = ridge_point(gpu)["answer"]
    return {"answer": ridge * dtype.bytes / 2, "ridge": ridge}


# --- prefill and end-to-end -------------------------------------------------------------------


def prefill_time(model: Any, gpu: Any, prompt_tokens: int, mfu: float) -> dict[str, float]:
    """Compute-bound prefill: 2 x params x tokens FLOPs at mfu x dense BF16 peak.

    Attention's own FLOPs are left out (small next to the GEMMs for prompts of a few
    thousand tokens on large models)."""
    flops = 2 * model.params * prompt_tokens
    rate = gpu.bf16_tflops * TFLOPS * mfu
    return {"answer": flops / rate, "flops": flops, "rate": rate}


def e2e_ttft_share(ttft_ms: float, tpot_ms: float, output_tokens: int) -> dict[str, float]:
    """Fraction of end-to-end latency spent before the first token:
    TTFT / (TTFT + TPOT x (output_tokens - 1))."""
    decode = tpot_ms * MS * (output_tokens - 1)
    ttft = ttft_ms * MS
    e2e = ttft + decode
    return {"answer": ttft / e2e, "e2e": e2e, "decode": decode, "ttft": ttft}
