"""Serving systems: scheduler steps under chunked prefill, continuous against static
batching, latency under load (a burst, Little's law), pipeline-parallel decode and
prefill/decode disaggregation.

Every function returns base units (seconds, tokens/s, bytes/s, counts, fractions) as
{"answer": value, **intermediates}. Counts that must be whole use an epsilon-tolerant ceil so
that float noise never adds an instance or a step.
"""

from __future__ import annotations

from typing import Any

from solutions._rounding import eps_ceil
from solutions._units import GBPS, MS, TFLOPS
from solutions.kv_cache import kv_bytes_per_token
from solutions.latency import decode_step_time, prefill_time

# --- scheduling -------------------------------------------------------------------------------


def chunked_prefill_steps(
    prompt_tokens: int, token_budget: int, decode_reqs: int
) -> dict[str, float]:
    """Scheduler steps to prefill one prompt when each step first gives one token to every
    running decode request and fills the rest of the token budget with the prompt:
    chunk = budget - decode_reqs, steps = ceil(prompt / chunk)."""
    chunk = token_budget - decode_reqs
    if chunk <= 0:
        raise ValueError("decode requests use the whole token budget")
    steps = eps_ceil(prompt_tokens / chunk)
    return {
        "answer": steps,
        "chunk": chunk,
        "exact": prompt_tokens / chunk,
        "last_chunk": prompt_tokens - (steps - 1) * chunk,
    }


def prefill_stall_ratio(
    model: Any, dtype: Any, gpu: Any, prompt_tokens: int, mfu: float
) -> dict[str, float]:
    """How many normal decode steps one unchunked prefill step lasts.

    prefill = 2 x params x prompt / (mfu x BF16 peak)   (compute-bound, attention FLOPs ignored)
    decode step = params x bytes / HBM bandwidth        (memory-bound, KV reads ignored)
    ratio = prefill / decode step = 2 x prompt x bandwidth / (mfu x peak x bytes): params cancel."""
    prefill = prefill_time(model, gpu, prompt_tokens, mfu)
    step = decode_step_time(model, dtype, gpu)
    return {
        "answer": prefill["answer"] / step["answer"],
        "prefill": prefill["answer"],
        "flops": prefill["flops"],
        "rate": prefill["rate"],
        "step": step["answer"],
        "weight_bytes": step["weight_bytes"],
    }


def continuous_vs_static_ratio(batch: int, long_tokens: int, short_tokens: int) -> dict[str, float]:
    """Decode throughput of continuous over static batching when every group of `batch`
    requests holds one long request and batch-1 short ones, with the same step time:
    static  = (long + (batch-1) short) / long tokens per step (the batch waits for the longest)
    continuous = batch tokens per step (a finished slot is refilled at once)."""
    useful = long_tokens + (batch - 1) * short_tokens
    static = useful / long_tokens
    return {
        "answer": batch / static,
        "static": static,
        "useful": useful,
        "slot_steps": batch * long_tokens,
        "utilization": useful / (batch * long_tokens),
    }


# --- latency under load -----------------------------------------------------------------------


def burst_mean_ttft(
    model: Any, gpu: Any, mfu: float, requests: int, prompt_tokens: int
) -> dict[str, float]:
    """Mean TTFT of a burst of equal prompts prefilled first-come-first-served at full rate:
    t_p = 2 x params x prompt / (mfu x BF16 peak); request i finishes at i x t_p;
    mean = t_p x (N + 1) / 2 (decode of earlier requests ignored)."""
    one = prefill_time(model, gpu, prompt_tokens, mfu)
    t_p = one["answer"]
    return {
        "answer": t_p * (requests + 1) / 2,
        "t_p": t_p,
        "last": t_p * requests,
        "rate": one["rate"],
        "tokens_per_s": one["rate"] / (2 * model.params),
    }


def littles_law_concurrency(
    rate: float, ttft_ms: float, tpot_ms: float, output_tokens: int
) -> dict[str, float]:
    """Requests in flight at a steady arrival rate (Little's law L = lambda x W) with
    W = E2E = TTFT + (output_tokens - 1) x TPOT."""
    e2e = ttft_ms * MS + (output_tokens - 1) * tpot_ms * MS
    return {"answer": rate * e2e, "e2e": e2e, "tokens_per_s": rate * output_tokens}


# --- pipeline-parallel decode -----------------------------------------------------------------


def pp_decode_throughput(
    stages: int, inflight: int, batch: int, stage_ms: float
) -> dict[str, float]:
    """Decode throughput of a p-stage pipeline with m micro-batches of b sequences in flight,
    each stage taking t per micro-batch step. A micro-batch's next step starts when it has left
    the last stage and the first stage is free, so one cycle lasts max(m, p) x t:
    throughput = m x b / (max(m, p) x t), TPOT = max(m, p) x t."""
    t = stage_ms * MS
    cycle = max(inflight, stages) * t
    return {
        "answer": inflight * batch / cycle,
        "tpot": cycle,
        "busy": min(inflight, stages) / stages,
        "full": batch / t,
    }


# --- prefill/decode disaggregation ------------------------------------------------------------


def kv_transfer_time(
    model: Any, dtype: Any, prompt_tokens: int, link_gbps: float
) -> dict[str, float]:
    """PD disaggregation: time to ship a prompt's KV cache from prefill to decode."""
    size = kv_bytes_per_token(model, dtype)["answer"] * prompt_tokens
    return {"answer": size / (link_gbps * GBPS), "size": size}


def pd_link_bandwidth(
    model: Any, kv_dtype: Any, gpu: Any, mfu: float, fraction: float
) -> dict[str, float]:
    """PD disaggregation: link bandwidth (bytes/s) at which shipping a prompt's KV cache takes
    `fraction` of the time the prefill GPU needs to compute it. Both grow linearly with the
    prompt, so the prompt length cancels:
    bw = kv_bytes_per_token / (fraction x 2 x params / (bf16 peak x mfu))."""
    per_token = kv_bytes_per_token(model, kv_dtype)["answer"]
    rate = gpu.bf16_tflops * TFLOPS * mfu
    prefill_per_token = 2 * model.params / rate
    bandwidth = per_token / (fraction * prefill_per_token)
    return {
        "answer": bandwidth,
        "per_token": per_token,
        "prefill_per_token": prefill_per_token,
        "rate": rate,
        "gbit_per_s": bandwidth * 8 / GBPS,
    }


def pd_decode_instances(
    prefill_instances: int, prefill_s: float, concurrency: int, output_tokens: int, tpot_ms: float
) -> dict[str, float]:
    """Decode instances needed to keep up with the prefill side. Prefill supplies
    prefill_instances / prefill_s requests per second; a decode instance holding `concurrency`
    requests, each generating output_tokens - 1 tokens (the first came from prefill) at TPOT,
    finishes concurrency / ((output_tokens - 1) x TPOT) requests per second."""
    arrival = prefill_instances / prefill_s
    duration = (output_tokens - 1) * tpot_ms * MS
    per_decode = concurrency / duration
    return {
        "answer": eps_ceil(arrival / per_decode),
        "arrival": arrival,
        "duration": duration,
        "per_decode": per_decode,
        "exact": arrival / per_decode,
    }
