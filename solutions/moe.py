"""Mixture of experts: the parameters of one expert, the expert weights a GPU holds under
expert parallelism, the experts a decode batch reads, the All-to-All dispatch bytes and the
training FLOPs of an MoE model.

Every function returns base units (bytes, FLOP, parameters) as
{"answer": value, **intermediates}. Model and dtype arguments are presets from
question_bank/data/.
"""

from __future__ import annotations

from typing import Any


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


def moe_dispatch_bytes(
    tokens: int, hidden: int, dtype: Any, top_k: int, ep: int
) -> dict[str, float]:
    """Bytes one GPU sends in the All-to-All dispatch of expert parallelism, assuming
    uniform routing: each of its tokens goes to top_k experts, (ep-1)/ep of them remote."""
    per_copy = hidden * dtype.bytes
    copies = tokens * top_k
    return {"answer": copies * per_copy * (ep - 1) / ep, "per_copy": per_copy, "copies": copies}


def moe_training_flops(model: Any, tokens: float) -> dict[str, float]:
    """Training compute of an MoE model: 6 x ACTIVE parameters x tokens (each token only runs
    its routed experts), against 6 x total parameters for a dense model of the same size.
    Router, attention sequence term and recomputation ignored."""
    active = 6 * model.active_params * tokens
    dense = 6 * model.params * tokens
    return {"answer": active, "dense": dense, "ratio": dense / active}
