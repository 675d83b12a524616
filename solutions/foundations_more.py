"""More Module 1-3 arithmetic for the calculation questions in
question_bank/questions/prerequisites/calc-foundations.yaml and
question_bank/questions/distributed/calc-parallel.yaml: Transformer parameter and FLOP counts,
attention and softmax memory traffic, reduction launches, FlashAttention tiling, activation
memory, context-parallel communication, 3D-parallel layouts, collective cost models and the
optimizer step.

Every function returns base units (bytes, seconds, tokens, fractions) or a pure number, as
{"answer": value, **intermediates}, like the other solution modules.
"""

from __future__ import annotations

import math
from typing import Any

from solutions._units import GBPS, TFLOPS, US, KiB


def _ceil_div(a: int, b: int) -> int:
    """Integer ceil(a / b) for positive integers, free of float noise."""
    return -(-a // b)


# --- Transformer parameter and FLOP counts ---------------------------------------------------


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


# --- attention, softmax and reduction kernels -------------------------------------------------


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


def reduction_launches(n: int, block: int, per_thread: int) -> dict[str, Any]:
    """Multi-kernel tree reduction: each launch gives every block block x per_thread inputs and
    writes one partial sum per block, so n -> ceil(n / (block x per_thread)); repeat until one
    value is left. Inside a block the shared-memory tree takes log2(block) halving steps."""
    per_block = block * per_thread
    counts = [n]
    while counts[-1] > 1:
        counts.append(_ceil_div(counts[-1], per_block))
    launches = len(counts) - 1
    return {
        "answer": launches,
        "per_block": per_block,
        "chain": " → ".join(f"{c:,}" for c in counts),
        "first_blocks": counts[1] if launches else 0,
        "tree_steps": int(math.log2(block)),
    }


def flash_v1_q_passes(seq: int, head_dim: int, sram_kib: int, dtype: Any) -> dict[str, float]:
    """FlashAttention-1 forward (Algorithm 1 of the paper): with on-chip memory of M elements,
    B_c = ceil(M / 4d), B_r = min(B_c, d); K and V are split into T_c = ceil(N / B_c) blocks
    (outer loop), Q and O into T_r = ceil(N / B_r) blocks (inner loop). Every outer iteration
    re-reads all of Q (and reads and writes all of O), so Q is streamed from HBM T_c times;
    T_c x N x d is about 4 N^2 d^2 / M elements, the O(N^2 d^2 / M) IO bound."""
    m_elems = sram_kib * KiB // dtype.bytes
    b_c = _ceil_div(m_elems, 4 * head_dim)
    b_r = min(b_c, head_dim)
    t_c = _ceil_div(seq, b_c)
    t_r = _ceil_div(seq, b_r)
    return {
        "answer": t_c,
        "m_elems": m_elems,
        "b_c": b_c,
        "b_r": b_r,
        "t_r": t_r,
        "q_elems_read": t_c * seq * head_dim,
        "bound": 4 * seq**2 * head_dim**2 / m_elems,
    }


# --- activation memory -----------------------------------------------------------------------


def megatron_activation_bytes(model: Any, seq: int, micro_batch: int) -> dict[str, float]:
    """Activation memory of the whole layer stack without recomputation or parallelism, from
    Korthikanti et al. (2022): s x b x h x (34 + 5 a s / h) bytes per layer (16-bit activations,
    1-byte dropout masks, GPT-style layer), times L layers. Full recomputation keeps only each
    layer's 16-bit input: 2 s b h bytes per layer."""
    sbh = seq * micro_batch * model.hidden
    score_term = 5 * model.heads * seq / model.hidden
    per_layer = sbh * (34 + score_term)
    full_recompute = 2 * sbh * model.layers
    return {
        "answer": per_layer * model.layers,
        "sbh": sbh,
        "score_term": score_term,
        "per_layer": per_layer,
        "full_recompute": full_recompute,
        "saving": per_layer * model.layers / full_recompute,
    }


ACTIVATION_RECOMPUTE = ("none", "selective", "full")
"""Activation recomputation choices of Megatron-LM: keep everything, recompute the attention core
(QK^T, softmax, dropout, PV: the 5as/h term), or keep only each layer's input."""


def activation_bytes_recompute(
    model: Any, seq: int, micro_batch: int, tp: int, recompute: str
) -> dict[str, float]:
    """Per-GPU activation memory of the whole layer stack for one micro-batch under Megatron
    tensor parallelism t WITH sequence parallelism (Korthikanti et al. 2022, Table 2), 16-bit
    activations and 1-byte dropout masks, no pipeline parallelism:
    none:      s b h (34 + 5 a s / h) / t per layer;
    selective: 34 s b h / t per layer (the attention core is recomputed);
    full:      2 s b h / t per layer (only the layer input, sharded by sequence parallelism).
    The one layer rematerialized during backward under full recomputation is not counted."""
    sbh = seq * micro_batch * model.hidden
    score_term = 5 * model.heads * seq / model.hidden
    per_layer_by = {
        "none": sbh * (34 + score_term) / tp,
        "selective": sbh * 34 / tp,
        "full": 2 * sbh / tp,
    }
    per_layer = per_layer_by[recompute]
    return {
        "answer": per_layer * model.layers,
        "sbh": sbh,
        "score_term": score_term,
        "coefficient": per_layer * tp / sbh,
        "per_layer": per_layer,
        "none": per_layer_by["none"] * model.layers,
        "selective": per_layer_by["selective"] * model.layers,
        "full": per_layer_by["full"] * model.layers,
    }


# --- context parallelism ---------------------------------------------------------------------


def ulysses_alltoall_bytes(
    model: Any, dtype: Any, seq: int, micro_batch: int, sp: int
) -> dict[str, float]:
    """DeepSpeed-Ulysses, one layer's forward: each GPU holds s/P tokens; All-to-Alls re-shard
    Q, K, V from sequence to heads before attention and the output back afterwards. An All-to-All
    of a local tensor of X bytes sends (P-1)/P x X. Q and O have heads x head_dim channels,
    K and V kv_heads x head_dim each:
    sent = (P-1)/P x b x (s/P) x (2 heads + 2 kv_heads) x head_dim x bytes."""
    local_tokens = micro_batch * seq // sp
    channels = (2 * model.heads + 2 * model.kv_heads) * model.head_dim
    local = local_tokens * channels * dtype.bytes
    sent = (sp - 1) / sp * local
    return {
        "answer": sent,
        "local_tokens": local_tokens,
        "channels": channels,
        "local": local,
        "model_fwd": sent * model.layers,
    }


def ring_attention_bytes(
    model: Any, dtype: Any, seq: int, micro_batch: int, cp: int
) -> dict[str, float]:
    """Ring Attention, one layer's forward: each GPU keeps its s/P queries and passes K and V
    blocks around the ring; after P-1 steps it has seen every block.
    per step: 2 (K, V) x b x (s/P) x kv_heads x head_dim x bytes; sent = (P-1) x per step."""
    local_tokens = micro_batch * seq // cp
    block = 2 * local_tokens * model.kv_heads * model.head_dim * dtype.bytes
    steps = cp - 1
    return {
        "answer": steps * block,
        "local_tokens": local_tokens,
        "block": block,
        "steps": steps,
        "model_fwd": steps * block * model.layers,
    }


# --- 3D layouts and batch arithmetic ---------------------------------------------------------


def three_d_states_per_gpu(model: Any, gpus: int, tp: int, pp: int) -> dict[str, float]:
    """Per-GPU model states of mixed-precision Adam under TP x PP x DP with the optimizer state
    sharded over DP (ZeRO-1 / Megatron distributed optimizer): each GPU owns N / (TP x PP)
    parameters and stores (2 + 2 + 12 / DP) bytes for each. Layers split evenly."""
    dp = gpus // (tp * pp)
    shard = model.params / (tp * pp)
    per_param = 2 + 2 + 12 / dp
    return {
        "answer": shard * per_param,
        "dp": dp,
        "shard": shard,
        "per_param": per_param,
        "no_zero": shard * 16,
    }


def microbatches_per_step(
    global_batch: int, micro_batch: int, gpus: int, tp: int, pp: int
) -> dict[str, float]:
    """Gradient-accumulation count in a 3D layout: DP = GPUs / (TP x PP); each DP replica must
    process global_batch / DP sequences per step, in micro-batches of micro_batch:
    m = global_batch / (micro_batch x DP). With PP these m micro-batches fill the pipeline; the
    1F1B bubble share is (PP-1) / (m + PP-1)."""
    dp = gpus // (tp * pp)
    per_replica = global_batch // dp
    m = per_replica // micro_batch
    return {
        "answer": m,
        "dp": dp,
        "per_replica": per_replica,
        "replica_gpus": tp * pp,
        "bubble": (pp - 1) / (m + pp - 1),
    }


# --- collectives, FSDP overlap and the optimizer step -----------------------------------------


def ring_tree_crossover(gpus: int, alpha_us: float, bw_gbps: float) -> dict[str, float]:
    """Message size below which a (non-pipelined) binary-tree AllReduce beats the ring under the
    alpha-beta model, for p a power of two:
    ring: T = 2(p-1) alpha + 2(p-1)/p x S / B
    tree (reduce up, broadcast down, full message each level): T = 2 log2(p) (alpha + S / B)
    equal when S* = B alpha (p - 1 - log2 p) / (log2 p - (p-1)/p). Returns S* in bytes."""
    p = gpus
    levels = round(math.log2(p))
    alpha = alpha_us * US
    bw = bw_gbps * GBPS
    s_star = bw * alpha * (p - 1 - levels) / (levels - (p - 1) / p)
    return {
        "answer": s_star,
        "levels": levels,
        "frac": (p - 1) / p,
        "ring_steps": 2 * (p - 1),
        "tree_steps": 2 * levels,
        "ring_latency": 2 * (p - 1) * alpha,
        "tree_latency": 2 * levels * alpha,
        "ring_bw_factor": 2 * (p - 1) / p,
        "tree_bw_factor": 2 * levels,
    }


def fsdp_overlap_tokens(gpu: Any, gpus: int, bw_gbps: float, efficiency: float) -> dict[str, float]:
    """Fewest tokens per GPU per micro-step for FSDP's forward AllGather of a layer (BF16 weights,
    2 P_l bytes, ring: (p-1)/p x 2 P_l sent per GPU) to take no longer than that layer's forward
    compute (2 P_l FLOPs per token at efficiency x dense BF16 peak):
    T >= (p-1)/p x peak x efficiency / B, independent of the layer size. Backward has twice the
    compute and twice the traffic (AllGather + ReduceScatter), so the same bound holds."""
    rate = gpu.bf16_tflops * TFLOPS * efficiency
    bw = bw_gbps * GBPS
    factor = (gpus - 1) / gpus
    return {
        "answer": factor * rate / bw,
        "rate": rate,
        "factor": factor,
        "flops_per_byte": rate / bw,
    }


ADAM_STEP_BYTES = {"read": 2 + 4 + 4 + 4, "write": 4 + 4 + 4 + 2}
"""Fused mixed-precision AdamW step per parameter: read the BF16 gradient, FP32 master weight,
m and v; write master, m, v and the BF16 weight copy."""


def adam_step_time(local_params: float, gpu: Any) -> dict[str, float]:
    """Memory-bound optimizer step: local_params x 28 bytes (14 read + 14 written) / HBM
    bandwidth. The ~10-15 FLOPs per parameter are negligible at ~0.5 FLOP/byte."""
    per_param = ADAM_STEP_BYTES["read"] + ADAM_STEP_BYTES["write"]
    moved = local_params * per_param
    return {
        "answer": moved / (gpu.hbm_gbps * GBPS),
        "per_param": per_param,
        "moved": moved,
    }
