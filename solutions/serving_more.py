"""More Module 4 serving arithmetic: scheduling, caching, parallel serving, speculation,
quantization.

Every function returns base units (bytes, seconds, tokens, tokens/s, fractions) or a pure
number, as a dict {"answer": value, **intermediates}. Model, GPU and dtype arguments are presets
from question_bank/data/. Counts that must be whole use an epsilon-tolerant ceil/floor so that
float noise (e.g. 8.000000000001) never adds a GPU or a step.
"""

from __future__ import annotations

import math
from typing import Any

from solutions import inference, speculative
from solutions._units import MS

_EPS = 1e-9

BF16_BITS = 16
"""Bits of one unquantized (FP16/BF16) element."""


def _ceil(x: float) -> int:
    return math.ceil(x - _EPS)


def _floor(x: float) -> int:
    return math.floor(x + _EPS)


# --- Chunked prefill (m4-c2-2.4) ------------------------------------------------------------


def chunked_prefill_steps(
    prompt_tokens: int, token_budget: int, decode_reqs: int
) -> dict[str, float]:
    """Scheduler steps to prefill one prompt when each step first gives one token to every
    running decode request and fills the rest of the token budget with the prompt:
    chunk = budget - decode_reqs, steps = ceil(prompt / chunk)."""
    chunk = token_budget - decode_reqs
    if chunk <= 0:
        raise ValueError("decode requests use the whole token budget")
    steps = _ceil(prompt_tokens / chunk)
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
    prefill = inference.prefill_time(model, gpu, prompt_tokens, mfu)
    step = inference.decode_step_time(model, dtype, gpu)
    return {
        "answer": prefill["answer"] / step["answer"],
        "prefill": prefill["answer"],
        "flops": prefill["flops"],
        "rate": prefill["rate"],
        "step": step["answer"],
        "weight_bytes": step["weight_bytes"],
    }


# --- Prefix caching (m4-c2-2.3) ---------------------------------------------------------------


def prefix_cache_saved_bytes(
    model: Any, kv_dtype: Any, prefix_tokens: int, requests: int, block_size: int
) -> dict[str, float]:
    """KV memory saved when `requests` live requests share a system prompt of `prefix_tokens`
    and only FULL blocks can be shared (the block holding the end of the system prompt also
    holds each request's own tokens):
    shared = floor(prefix / block) x block tokens,
    saved = (requests - 1) x shared x kv bytes/token."""
    per_token = inference.kv_bytes_per_token(model, kv_dtype)["answer"]
    shared_blocks = _floor(prefix_tokens / block_size)
    shared_tokens = shared_blocks * block_size
    return {
        "answer": (requests - 1) * shared_tokens * per_token,
        "per_token": per_token,
        "shared_blocks": shared_blocks,
        "shared_tokens": shared_tokens,
        "private_tokens": prefix_tokens - shared_tokens,
        "per_copy": shared_tokens * per_token,
    }


def multi_turn_prefill_saving(turns: int, user_tokens: int, reply_tokens: int) -> dict[str, float]:
    """Fraction of prefill tokens a prefix cache saves over a K-turn chat in which every turn
    adds u user tokens and a reply of a tokens, and the next prompt resends the whole history.

    without cache: sum_k [(k-1)(u+a) + u] = K u + (u+a) K (K-1) / 2
    with cache (history hits, block rounding ignored): K u
    saved = 1 - K u / without."""
    without = turns * user_tokens + (user_tokens + reply_tokens) * turns * (turns - 1) / 2
    with_cache = turns * user_tokens
    return {
        "answer": 1 - with_cache / without,
        "without": without,
        "with_cache": with_cache,
        "last_prompt": (turns - 1) * (user_tokens + reply_tokens) + user_tokens,
    }


# --- PagedAttention (m4-c2-2.1) ---------------------------------------------------------------


def paged_fragmentation_bytes(
    model: Any, kv_dtype: Any, seqs: int, block_size: int
) -> dict[str, float]:
    """Expected KV memory left empty in the last, partly filled block of each sequence when a
    sequence's length is equally likely to leave 0, 1, ..., B-1 free slots:
    seqs x (B - 1) / 2 x kv bytes/token."""
    per_token = inference.kv_bytes_per_token(model, kv_dtype)["answer"]
    slots = (block_size - 1) / 2
    return {
        "answer": seqs * slots * per_token,
        "per_token": per_token,
        "slots": slots,
        "per_seq": slots * per_token,
        "worst": seqs * (block_size - 1) * per_token,
    }


# --- Continuous batching (m4-c2-2.2) ----------------------------------------------------------


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


# --- Latency under load (m4-c1-1.1, m4-c9) ----------------------------------------------------


def burst_mean_ttft(
    model: Any, gpu: Any, mfu: float, requests: int, prompt_tokens: int
) -> dict[str, float]:
    """Mean TTFT of a burst of equal prompts prefilled first-come-first-served at full rate:
    t_p = 2 x params x prompt / (mfu x BF16 peak); request i finishes at i x t_p;
    mean = t_p x (N + 1) / 2 (decode of earlier requests ignored)."""
    one = inference.prefill_time(model, gpu, prompt_tokens, mfu)
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


# --- MoE serving (m4-c6-6.4) ------------------------------------------------------------------


def expert_params(model: Any) -> float:
    """Parameters of one SwiGLU expert in one layer: gate, up and down = 3 x hidden x ffn."""
    return 3 * model.hidden * model.ffn


def ep_expert_bytes_per_gpu(model: Any, dtype: Any, ep: int, dense_layers: int) -> dict[str, float]:
    """Routed-expert weights held by one GPU under expert parallelism of degree `ep`:
    (experts / ep) x (layers - dense_layers) x 3 x hidden x ffn x bytes."""
    per_expert = expert_params(model)
    per_gpu = model.experts / ep
    moe_layers = model.layers - dense_layers
    params = per_gpu * moe_layers * per_expert
    return {
        "answer": params * dtype.bytes,
        "per_expert": per_expert,
        "experts_per_gpu": per_gpu,
        "moe_layers": moe_layers,
        "params": params,
        "all_routed": model.experts * moe_layers * per_expert * dtype.bytes,
    }


def moe_decode_expert_bytes(model: Any, dtype: Any, batch: int) -> dict[str, float]:
    """Expert weight bytes one decode step reads when `batch` tokens each pick top-k of E
    experts uniformly and independently (every MoE layer; all layers are MoE):
    distinct experts per layer = E x (1 - (1 - k/E)^batch),
    bytes = layers x distinct x 3 x hidden x ffn x bytes."""
    e, k = model.experts, model.experts_per_token
    distinct = e * (1 - (1 - k / e) ** batch)
    per_expert = expert_params(model)
    return {
        "answer": model.layers * distinct * per_expert * dtype.bytes,
        "distinct": distinct,
        "per_expert": per_expert,
        "active_bytes": model.layers * k * per_expert * dtype.bytes,
        "all_bytes": model.layers * e * per_expert * dtype.bytes,
    }


# --- TP and PP serving (m4-c6-6.2, m4-c6-6.3) -------------------------------------------------


def tp_kv_bytes_per_gpu_token(model: Any, kv_dtype: Any, tp: int) -> dict[str, float]:
    """KV cache bytes per token on ONE GPU under tensor parallelism. KV heads are split across
    GPUs; once tp exceeds kv_heads each GPU still keeps one whole head (replicated):
    heads/GPU = max(1, kv_heads / tp), bytes = 2 x layers x heads/GPU x head_dim x bytes."""
    if tp <= model.kv_heads and model.kv_heads % tp:
        raise ValueError("tp must divide the number of KV heads")
    if tp > model.kv_heads and tp % model.kv_heads:
        raise ValueError("kv_heads must divide tp")
    heads = max(1.0, model.kv_heads / tp)
    per_gpu = 2 * model.layers * heads * model.head_dim * kv_dtype.bytes
    full = inference.kv_bytes_per_token(model, kv_dtype)["answer"]
    return {
        "answer": per_gpu,
        "heads": heads,
        "full": full,
        "naive": full / tp,
        "replication": tp * heads / model.kv_heads,
    }


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


# --- PD disaggregation (m4-c7) ----------------------------------------------------------------


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
        "answer": _ceil(arrival / per_decode),
        "arrival": arrival,
        "duration": duration,
        "per_decode": per_decode,
        "exact": arrival / per_decode,
    }


# --- Speculative decoding (m4-c5) -------------------------------------------------------------


def spec_alpha_for_speedup(k: int, draft_cost: float, target: float) -> dict[str, float]:
    """Acceptance rate alpha at which speculative decoding reaches speedup `target`:
    solve (1 - alpha^(k+1)) / ((1 - alpha)(k c + 1)) = target by bisection (the speedup grows
    monotonically with alpha). Reachable only if target < (k + 1) / (k c + 1)."""
    cost = k * draft_cost + 1
    ceiling = (k + 1) / cost
    if target >= ceiling:
        raise ValueError(f"speedup {target} unreachable (max {ceiling:.3f})")
    needed = target * cost
    low, high = 0.0, 1.0 - 1e-12
    for _ in range(200):
        mid = (low + high) / 2
        if speculative.expected_tokens_per_step(mid, k)["answer"] < needed:
            low = mid
        else:
            high = mid
    alpha = (low + high) / 2
    return {"answer": alpha, "needed": needed, "cost": cost, "ceiling": ceiling}


def spec_mean_accept_length(drafts: int, k: int, fill: float, accept: float) -> dict[str, float]:
    """Mean tokens committed per verification round from speculative-decoding counters.

    The counters are built from the parameters: draft_tokens = round(drafts x k x fill) (rounds
    may propose fewer than k tokens), accepted = round(draft_tokens x accept).
    mean length = 1 + accepted / drafts (the target always adds one token);
    per-token acceptance rate = accepted / draft_tokens, which differs from
    accepted / (k x drafts) when rounds propose fewer than k tokens."""
    draft_tokens = round(drafts * k * fill)
    accepted = round(draft_tokens * accept)
    return {
        "answer": 1 + accepted / drafts,
        "draft_tokens": draft_tokens,
        "accepted": accepted,
        "rate": accepted / draft_tokens,
        "naive_rate": accepted / (k * drafts),
        "per_round": accepted / drafts,
        "avg_proposed": draft_tokens / drafts,
    }


# --- Quantization (m4-c4) ---------------------------------------------------------------------


def smoothquant_factor(x_absmax: float, w_absmax: float, alpha: float) -> dict[str, float]:
    """SmoothQuant per-input-channel factor s = max|X_j|^alpha / max|W_j|^(1 - alpha);
    X_j is divided by s and W_j multiplied by s, so the new maxima are max|X_j| / s and
    max|W_j| x s."""
    s = x_absmax**alpha / w_absmax ** (1 - alpha)
    return {"answer": s, "x_new": x_absmax / s, "w_new": w_absmax * s}


def kivi_compression(bits: int, group_size: int, context: int, residual: int) -> dict[str, float]:
    """Compression of a KIVI-style KV cache against FP16 at `context` tokens. Quantized tokens
    store `bits` per element plus one FP16 scale and one FP16 zero point per group of
    `group_size` elements; the `residual` most recent tokens stay in FP16:
    avg bits = ((context - residual)(bits + 32 / group) + 16 residual) / context,
    ratio = 16 / avg bits."""
    quant_bits = bits + 2 * BF16_BITS / group_size
    avg = ((context - residual) * quant_bits + BF16_BITS * residual) / context
    return {
        "answer": BF16_BITS / avg,
        "quant_bits": quant_bits,
        "avg_bits": avg,
        "ideal": BF16_BITS / bits,
        "no_residual": BF16_BITS / quant_bits,
    }


def w4a16_weight_bytes(
    model: Any, group_size: int, scale_bits: int, zero_bits: int
) -> dict[str, float]:
    """Weight memory of a W4A16 checkpoint (AWQ/GPTQ style): every decoder linear weight in INT4
    with one scale and one zero point per group, while the input embedding and the LM head
    (untied, vocab x hidden each) stay in BF16; norms are negligible.
    bytes = (params - 2 V H) x (4 + (scale_bits + zero_bits) / group) / 8 + 2 V H x 2."""
    head_params = 2 * model.vocab * model.hidden
    quant_params = model.params - head_params
    bits = 4 + (scale_bits + zero_bits) / group_size
    quant_bytes = quant_params * bits / 8
    head_bytes = head_params * BF16_BITS / 8
    return {
        "answer": quant_bytes + head_bytes,
        "head_params": head_params,
        "quant_params": quant_params,
        "bits": bits,
        "quant_bytes": quant_bytes,
        "head_bytes": head_bytes,
        "bf16_bytes": model.params * BF16_BITS / 8,
        "ratio": model.params * BF16_BITS / 8 / (quant_bytes + head_bytes),
    }
