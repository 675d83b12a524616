"""Model size: the parameters of a dense decoder (per layer, in all, with tied embeddings),
the bytes of its weights, and the GPUs that hold the weights (and the KV cache) for serving.

Every function returns base units (bytes, parameters, GPUs, fractions) as
{"answer": value, **intermediates}. Model, GPU and dtype arguments are presets from
question_bank/data/.
"""

from __future__ import annotations

import math
from typing import Any

from solutions._rounding import eps_ceil
from solutions._units import GB
from solutions.kv_cache import kv_bytes_per_token

# --- Transformer parameter counts -------------------------------------------------------------


def _layer_matrices(model: Any) -> dict[str, float]:
    """Weight-matrix parameters of one dense decoder layer (GQA attention + SwiGLU FFN):
    W_q: d x (heads x head_dim), W_k and W_v: d x (kv_heads x head_dim) each,
    W_o: (heads x head_dim) x d; FFN: W_gate, W_up (d x ffn) and W_down (ffn x d)."""
    d = model.hidden
    q_dim = model.heads * model.head_dim
    kv_dim = model.kv_heads * model.head_dim
    q = d * q_dim
    kv = 2 * d * kv_dim
    o = q_dim * d
    ffn = 3 * d * model.ffn
    return {"q": q, "kv": kv, "o": o, "attn": q + kv + o, "ffn": ffn}


def decoder_layer_params(model: Any) -> dict[str, float]:
    """Parameters of one decoder layer = attention (Q, K, V, O projections; K and V sized by the
    KV heads under GQA) + SwiGLU FFN (3 x d x ffn) + two RMSNorm weight vectors (2 x d).
    Biases are ignored. With MHA the attention part is 4 d^2."""
    parts = _layer_matrices(model)
    norms = 2 * model.hidden
    total = parts["attn"] + parts["ffn"] + norms
    return {
        "answer": total,
        **parts,
        "norms": norms,
        "ffn_share": parts["ffn"] / total,
        "attn_share": parts["attn"] / total,
        "mha_attn": 4 * model.hidden**2,
    }


def layer_ffn_share(model: Any) -> dict[str, float]:
    """Share of one decoder layer's parameters in the SwiGLU FFN: 3 d ffn / layer total, with the
    layer counted as in decoder_layer_params (Q, K, V, O + FFN + two RMSNorm vectors)."""
    layer = decoder_layer_params(model)
    return {**layer, "answer": layer["ffn_share"], "layer": layer["answer"]}


def model_total_params(model: Any) -> dict[str, float]:
    """Total parameters of a dense decoder-only model with untied embeddings:
    L x per-layer + token embedding (V x d) + final RMSNorm (d) + LM head (d x V)."""
    per_layer = decoder_layer_params(model)["answer"]
    layers_total = model.layers * per_layer
    embed = model.vocab * model.hidden
    total = layers_total + embed + model.hidden + embed
    return {
        "answer": total,
        "per_layer": per_layer,
        "layers_total": layers_total,
        "embed": embed,
        "embed_share": 2 * embed / total,
        "published": model.params,
        "deviation": total / model.params - 1,
    }


def tied_embedding_saving(model: Any) -> dict[str, float]:
    """Share of the (untied) parameter count that tying the LM head to the input embedding saves:
    V x d / N. The LM-head GEMM (2 x V x d FLOPs per token) is not saved."""
    saved = model.vocab * model.hidden
    return {
        "answer": saved / model.params,
        "saved": saved,
        "both": 2 * saved,
        "both_share": 2 * saved / model.params,
        "tied_total": model.params - saved,
    }


# --- weights in memory ------------------------------------------------------------------------


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
        count = max(1, eps_ceil(exact))
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
        "weights_only": max(1, eps_ceil(weights / budget)),
    }
