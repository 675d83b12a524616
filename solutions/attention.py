"""Attention's cost: the score matrix a naive kernel materializes, the passes of a softmax
kernel, FlashAttention's tiling, the arithmetic intensity of prefill and decode attention, and
attention's share of a layer's FLOPs.

Every function returns base units (bytes, seconds, FLOP per byte, fractions) or a pure number,
as {"answer": value, **intermediates}.
"""

from __future__ import annotations

from typing import Any

from solutions._rounding import ceil_div
from solutions._units import GBPS, KiB
from solutions.memory import _layer_matrices

# --- FLOPs ------------------------------------------------------------------------------------


KEYS_PER_QUERY = {"causal": 0.5, "full": 1.0}
"""Keys a query attends to, as a share of the sequence length: a causal mask lets token i see
tokens 1..i, s/2 on average (the (s+1)/2 of an exact count is taken as s/2); without a mask
(bidirectional attention, or a kernel that computes the masked half anyway) every query sees
all s."""


def attention_flops_share(model: Any, seq: int, mask: str = "causal") -> dict[str, float]:
    """Share of one decoder layer's forward FLOPs per token spent on the attention-score matmuls
    (Q K^T and P V) at training sequence length s.

    weight GEMMs: 2 x (weight-matrix parameters of the layer) FLOPs per token;
    attention: each (query, key) pair costs 2 x d_attn for QK^T and 2 x d_attn for PV, with
    d_attn = heads x head_dim; a query sees s/2 keys on average under a causal mask (2 s d_attn
    per token) and s keys under a full one (4 s d_attn). Norms, softmax and the embedding /
    LM head are ignored. Crossover (equal shares): s = weights / (2 x keys share x d_attn)."""
    parts = _layer_matrices(model)
    weights = parts["attn"] + parts["ffn"]
    d_attn = model.heads * model.head_dim
    keys = KEYS_PER_QUERY[mask] * seq
    linear = 2 * weights
    attn = 4 * keys * d_attn
    return {
        "answer": attn / (linear + attn),
        "weights": weights,
        "d_attn": d_attn,
        "keys": keys,
        "linear": linear,
        "attn": attn,
        "crossover": weights / (2 * KEYS_PER_QUERY[mask] * d_attn),
    }


# --- memory traffic and kernels ---------------------------------------------------------------


def attention_score_bytes(
    batch: int, heads: int, seq: int, head_dim: int, dtype: Any
) -> dict[str, float]:
    """Naive attention materializes S = Q K^T for one layer: batch x heads x s x s elements.
    For comparison, the Q, K, V and O tensors FlashAttention keeps in HBM are
    4 x batch x heads x s x head_dim elements (O(s d) instead of O(s^2))."""
    scores = batch * heads * seq * seq * dtype.bytes
    qkvo = 4 * batch * heads * seq * head_dim * dtype.bytes
    return {
        "answer": scores,
        "per_head": seq * seq * dtype.bytes,
        "qkvo": qkvo,
        "ratio": scores / qkvo,
    }


SOFTMAX_READS = {"3-pass safe": 3, "2-pass online": 2, "1-pass cached": 1}
"""Full passes over the input: safe softmax reads it for the max, for the sum and for the output;
online softmax finds max and sum in one pass; the register/shared-memory cached version reads
each row once. Every variant writes the output once."""


def softmax_kernel_time(
    rows: int, cols: int, dtype: Any, variant: str, gpu: Any
) -> dict[str, float]:
    """Memory-bound row softmax of a rows x cols matrix when every pass streams from HBM:
    bytes = (reads + 1 write) x rows x cols x bytes; time = bytes / HBM bandwidth."""
    reads = SOFTMAX_READS[variant]
    matrix = rows * cols * dtype.bytes
    moved = (reads + 1) * matrix
    bandwidth = gpu.hbm_gbps * GBPS
    return {
        "answer": moved / bandwidth,
        "reads": reads,
        "matrix": matrix,
        "moved": moved,
        "ideal": 2 * matrix / bandwidth,
        "ratio": (reads + 1) / 2,
    }


def flash_v1_q_passes(seq: int, head_dim: int, sram_kib: int, dtype: Any) -> dict[str, float]:
    """FlashAttention-1 forward (Algorithm 1 of the paper): with on-chip memory of M elements,
    B_c = ceil(M / 4d), B_r = min(B_c, d); K and V are split into T_c = ceil(N / B_c) blocks
    (outer loop), Q and O into T_r = ceil(N / B_r) blocks (inner loop). Every outer iteration
    re-reads all of Q (and reads and writes all of O), so Q is streamed from HBM T_c times;
    T_c x N x d is about 4 N^2 d^2 / M elements, the O(N^2 d^2 / M) IO bound."""
    m_elems = sram_kib * KiB // dtype.bytes
    b_c = ceil_div(m_elems, 4 * head_dim)
    b_r = min(b_c, head_dim)
    t_c = ceil_div(seq, b_c)
    t_r = ceil_div(seq, b_r)
    return {
        "answer": t_c,
        "m_elems": m_elems,
        "b_c": b_c,
        "b_r": b_r,
        "t_r": t_r,
        "q_elems_read": t_c * seq * head_dim,
        "bound": 4 * seq**2 * head_dim**2 / m_elems,
    }


# --- arithmetic intensity ---------------------------------------------------------------------


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
