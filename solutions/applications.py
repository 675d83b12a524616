"""Arithmetic for the LLM-application questions (Module 4, beyond the guide):
question_bank/questions/inference/rag-agents.yaml, diffusion-multimodal.yaml and
kv-compression.yaml. Vector-index memory and IVF search cost, RAG prefill time, agent KV reload
versus recompute, ViT image tokens and their KV cost, DiT sampling cost, the flow-matching time
shift, and what KV eviction and sparse attention save.

Every function returns base units (bytes, seconds, FLOP, tokens, fractions) or a pure number, as
{"answer": value, **intermediates}, like the other solution modules.
"""

from __future__ import annotations

from typing import Any

from solutions._units import GBPS, TFLOPS

HNSW_NEIGHBOR_ID_BYTES = 4
"""hnswlib and FAISS store each neighbour id of an HNSW graph as a 32-bit integer."""
VAE_DOWNSAMPLE = 8
"""Spatial downsampling of the latent-diffusion VAE (SD, SD3, Flux): 1024 px -> 128 latent."""
DIT_LATENT_PATCH = 2
"""DiT patchifies the latent in 2 x 2 patches, so one token covers 16 x 16 pixels."""


def _kv_bytes_per_token(model: Any, dtype: Any) -> float:
    """2 (K and V) x layers x kv_heads x head_dim x bytes."""
    return 2 * model.layers * model.kv_heads * model.head_dim * dtype.bytes


# --- RAG: vector index and retrieval ----------------------------------------------------------


def vector_index_bytes(n_vectors: int, dim: int, dtype: Any, hnsw_m: int) -> dict[str, float]:
    """Memory of an HNSW index over n_vectors embeddings of dimension dim.

    Vectors: n x dim x bytes(dtype). Graph: the convention of hnswlib/FAISS is that layer 0 keeps
    up to 2M neighbours per node and the upper layers M; a node reaches layer >= 1 with
    probability 1/M, so upper layers add about M/(M-1) ~ 1 link per node and are ignored here.
    Links: n x 2M x 4 bytes (int32 ids). Headers, ids and allocator slack are ignored."""
    vec = n_vectors * dim * dtype.bytes
    links_per_node = 2 * hnsw_m
    graph = n_vectors * links_per_node * HNSW_NEIGHBOR_ID_BYTES
    total = vec + graph
    return {
        "answer": total,
        "vec": vec,
        "graph": graph,
        "links_per_node": links_per_node,
        "graph_share": graph / total,
        "vec_per_node": dim * dtype.bytes,
        "graph_per_node": links_per_node * HNSW_NEIGHBOR_ID_BYTES,
    }


def ivf_distance_computations(n_vectors: int, nlist: int, nprobe: int) -> dict[str, float]:
    """Distance computations for one IVF-Flat query with balanced lists:
    nlist (query vs every centroid) + nprobe x n/nlist (every vector in the probed lists)."""
    per_list = n_vectors / nlist
    scanned = nprobe * per_list
    total = nlist + scanned
    return {
        "answer": total,
        "per_list": per_list,
        "scanned": scanned,
        "speedup": n_vectors / total,
        "fraction": nprobe / nlist,
    }


def rag_prefill_time(
    model: Any,
    gpu: Any,
    system_tokens: int,
    chunks: int,
    chunk_tokens: int,
    question_tokens: int,
    mfu: float,
) -> dict[str, float]:
    """TTFT of a RAG prompt = system + k chunks of c tokens + question, prefilled at once.

    Linear layers: 2 x params x T. Causal attention scores and weighted sum: per layer
    QK^T and PV each cost 2 x T^2 x (heads x head_dim) in full, half of that under the causal
    mask, so 2 x layers x T^2 x (heads x head_dim) in total. Time = FLOPs / (mfu x BF16 peak)."""
    tokens = system_tokens + chunks * chunk_tokens + question_tokens
    linear = 2 * model.params * tokens
    attn = 2 * model.layers * tokens**2 * model.heads * model.head_dim
    flops = linear + attn
    rate = mfu * gpu.bf16_tflops * TFLOPS
    return {
        "answer": flops / rate,
        "tokens": tokens,
        "retrieved": chunks * chunk_tokens,
        "linear": linear,
        "attn": attn,
        "flops": flops,
        "rate": rate,
        "attn_share": attn / flops,
    }


def agent_kv_reload_vs_recompute(
    model: Any, gpu: Any, dtype: Any, context_tokens: int, mfu: float
) -> dict[str, float]:
    """How many times faster it is to copy an agent's offloaded KV back over PCIe than to
    recompute it by prefill. Recompute: 2 x params x T / (mfu x BF16 peak), attention FLOPs
    ignored (which flatters recompute). Reload: T x KV bytes per token / PCIe bandwidth (one
    direction, nominal)."""
    per_token = _kv_bytes_per_token(model, dtype)
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


# --- multimodal: ViT tokens and their serving cost --------------------------------------------


def vit_image_tokens(image_h: int, image_w: int, patch: int, merge: int) -> dict[str, float]:
    """Visual tokens handed to the LLM: (H/p) x (W/p) patches, then a merge x merge
    pixel-shuffle (patch-merger) folds neighbouring patches into one token. merge = 1: none."""
    grid_h = image_h // patch
    grid_w = image_w // patch
    patches = grid_h * grid_w
    tokens = patches // (merge * merge)
    return {
        "answer": tokens,
        "grid_h": grid_h,
        "grid_w": grid_w,
        "patches": patches,
        "pixels_per_token": patch * merge,
    }


def image_tokens_kv_bytes(
    model: Any, dtype: Any, images: int, image_side: int, patch: int, merge: int
) -> dict[str, float]:
    """KV cache taken by the image tokens of one request: images x tokens per image x KV bytes
    per token, with tokens per image = (side/p)^2 / merge^2."""
    per_image = vit_image_tokens(image_side, image_side, patch, merge)["answer"]
    tokens = images * per_image
    per_token = _kv_bytes_per_token(model, dtype)
    return {
        "answer": tokens * per_token,
        "per_image": per_image,
        "tokens": tokens,
        "per_token": per_token,
        "grid": image_side // patch,
    }


# --- diffusion: DiT sampling cost and the flow-matching time shift -----------------------------


def dit_sampling_time(
    layers: int,
    hidden: int,
    image_px: int,
    steps: int,
    cfg_passes: int,
    achieved_tflops: float,
) -> dict[str, float]:
    """Time to sample one square image with a DiT, counting only transformer-block FLOPs.

    Tokens N = (image_px / 8 / 2)^2 (VAE downsample 8, latent patch 2). Block weights 12 d^2 per
    layer (attention 4 d^2 + MLP 8 d^2 with a 4x MLP), so linear FLOPs per pass = 2 x 12 L d^2 x N.
    Attention is bidirectional (no causal mask): QK^T and PV each 2 N^2 d per layer, 4 L N^2 d.
    Total = steps x cfg_passes x per-pass FLOPs; time = total / achieved FLOP/s."""
    tokens = (image_px // (VAE_DOWNSAMPLE * DIT_LATENT_PATCH)) ** 2
    params = 12 * layers * hidden**2
    linear = 2 * params * tokens
    attn = 4 * layers * tokens**2 * hidden
    per_pass = linear + attn
    total = steps * cfg_passes * per_pass
    return {
        "answer": total / (achieved_tflops * TFLOPS),
        "tokens": tokens,
        "params": params,
        "linear": linear,
        "attn": attn,
        "per_pass": per_pass,
        "passes": steps * cfg_passes,
        "total": total,
        "attn_share": attn / per_pass,
    }


def flow_time_shift(shift: float, t: float) -> dict[str, float]:
    """SD3-style timestep shift for rectified flow (t = 1 is pure noise):
    t' = s t / (1 + (s - 1) t). s > 1 moves every step toward the noisy end."""
    shifted = shift * t / (1 + (shift - 1) * t)
    return {"answer": shifted, "numerator": shift * t, "denominator": 1 + (shift - 1) * t}


# --- KV compression ---------------------------------------------------------------------------


def kv_window_sink_saved_bytes(
    model: Any, dtype: Any, context_tokens: int, sink_tokens: int, window_tokens: int, batch: int
) -> dict[str, float]:
    """KV memory freed by keeping only sink + window tokens (StreamingLLM) instead of the whole
    context, for a batch of sequences of context_tokens each."""
    per_token = _kv_bytes_per_token(model, dtype)
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
