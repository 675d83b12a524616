"""The KV cache: bytes per token (MHA, GQA, MLA), what fits in a memory budget, paged
blocks and their fragmentation, prefix sharing, tensor-parallel shards, offload reload versus
recompute, and what eviction and sparse attention save.

Every function returns base units (bytes, tokens, sequences, fractions) as
{"answer": value, **intermediates}. Model, GPU and dtype arguments are presets from
question_bank/data/.
"""

from __future__ import annotations

import math
from typing import Any

from solutions._rounding import eps_floor
from solutions._units import GB, GBPS, TFLOPS

# --- bytes per token --------------------------------------------------------------------------


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


def mla_equivalent_kv_heads(kv_lora_rank: int, rope_dim: int, head_dim: int) -> dict[str, float]:
    """How many GQA KV heads of `head_dim` cache as many elements per token and layer as MLA:
    (kv_lora_rank + rope_dim) / (2 x head_dim), the 2 being one K and one V vector per head."""
    mla_elems = kv_lora_rank + rope_dim
    per_head = 2 * head_dim
    return {"answer": mla_elems / per_head, "mla_elems": mla_elems, "per_head": per_head}


# --- capacity in a memory budget --------------------------------------------------------------


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


def kv_token_capacity(model: Any, kv_dtype: Any, budget_gb: float) -> dict[str, float]:
    """Tokens of KV cache that fit in `budget_gb` (decimal GB):
    floor(budget / (2 x layers x kv_heads x head_dim x bytes)); BF16 figure for comparison."""
    budget = budget_gb * GB
    per_token = kv_bytes_per_token(model, kv_dtype)["answer"]
    bf16_per_token = 2 * model.layers * model.kv_heads * model.head_dim * 2
    return {
        "answer": math.floor(budget / per_token),
        "budget": budget,
        "per_token": per_token,
        "bf16_per_token": bf16_per_token,
        "bf16_tokens": math.floor(budget / bf16_per_token),
    }


# --- paged blocks and prefix sharing ----------------------------------------------------------


def paged_fragmentation_bytes(
    model: Any, kv_dtype: Any, seqs: int, block_size: int
) -> dict[str, float]:
    """Expected KV memory left empty in the last, partly filled block of each sequence when a
    sequence's length is equally likely to leave 0, 1, ..., B-1 free slots:
    seqs x (B - 1) / 2 x kv bytes/token."""
    per_token = kv_bytes_per_token(model, kv_dtype)["answer"]
    slots = (block_size - 1) / 2
    return {
        "answer": seqs * slots * per_token,
        "per_token": per_token,
        "slots": slots,
        "per_seq": slots * per_token,
        "worst": seqs * (block_size - 1) * per_token,
    }


def prefix_cache_saved_bytes(
    model: Any, kv_dtype: Any, prefix_tokens: int, requests: int, block_size: int
) -> dict[str, float]:
    """KV memory saved when `requests` live requests share a system prompt of `prefix_tokens`
    and only FULL blocks can be shared (the block holding the end of the system prompt also
    holds each request's own tokens):
    shared = floor(prefix / block) x block tokens,
    saved = (requests - 1) x shared x kv bytes/token."""
    per_token = kv_bytes_per_token(model, kv_dtype)["answer"]
    shared_blocks = eps_floor(prefix_tokens / block_size)
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


# --- tensor parallelism and offload -----------------------------------------------------------


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
    full = kv_bytes_per_token(model, kv_dtype)["answer"]
    return {
        "answer": per_gpu,
        "heads": heads,
        "full": full,
        "naive": full / tp,
        "replication": tp * heads / model.kv_heads,
    }


def agent_kv_reload_vs_recompute(
    model: Any, gpu: Any, dtype: Any, context_tokens: int, mfu: float
) -> dict[str, float]:
    """How many times faster it is to copy an agent's offloaded KV back over PCIe than to
    recompute it by prefill. Recompute: 2 x params x T / (mfu x BF16 peak), attention FLOPs
    ignored (which flatters recompute). Reload: T x KV bytes per token / PCIe bandwidth (one
    direction, nominal)."""
    per_token = kv_bytes_per_token(model, dtype)["answer"]
    size = context_tokens * per_token
    reload = size / (gpu.pcie_gbps * GBPS)
    flops = 2 * model.params * context_tokens
    rate = mfu * gpu.bf16_tflops * TFLOPS
    recompute = flops / rate
    return {
        "answer": recompute / reload,
        "per_token": per_token,
        "size": size,
        "reload": reload,
        "flops": flops,
        "rate": rate,
        "recompute": recompute,
    }


# --- eviction and sparse attention ------------------------------------------------------------


def kv_window_sink_saved_bytes(
    model: Any, dtype: Any, context_tokens: int, sink_tokens: int, window_tokens: int, batch: int
) -> dict[str, float]:
    """KV memory freed by keeping only sink + window tokens (StreamingLLM) instead of the whole
    context, for a batch of sequences of context_tokens each."""
    per_token = kv_bytes_per_token(model, dtype)["answer"]
    kept = sink_tokens + window_tokens
    dropped = context_tokens - kept
    full = batch * context_tokens * per_token
    saved = batch * dropped * per_token
    return {
        "answer": saved,
        "per_token": per_token,
        "kept": kept,
        "dropped": dropped,
        "full": full,
        "kept_bytes": full - saved,
        "fraction": dropped / context_tokens,
    }


def sparse_decode_read_ratio(
    context_tokens: int, topk: int, kv_bytes: int, index_bytes: int
) -> dict[str, float]:
    """Per decode step and layer, how many times fewer bytes a DSA-style layer reads than dense
    attention. Dense reads T x kv_bytes. Sparse reads the indexer keys of all T tokens
    (T x index_bytes) plus the top-k selected KV entries (k x kv_bytes)."""
    dense = context_tokens * kv_bytes
    indexer = context_tokens * index_bytes
    selected = topk * kv_bytes
    sparse = indexer + selected
    return {
        "answer": dense / sparse,
        "dense": dense,
        "indexer": indexer,
        "selected": selected,
        "sparse": sparse,
        "limit": kv_bytes / index_bytes,
        "indexer_share": indexer / sparse,
    }
