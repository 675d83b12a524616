"""Retrieval-augmented generation: the memory of an HNSW vector index, the distance
computations of an IVF query and the prefill time of a RAG prompt.

Every function returns base units (bytes, seconds, counts) as
{"answer": value, **intermediates}.
"""

from __future__ import annotations

from typing import Any

from solutions._units import TFLOPS

HNSW_NEIGHBOR_ID_BYTES = 4
"""hnswlib and FAISS store each neighbour id of an HNSW graph as a 32-bit integer."""


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
