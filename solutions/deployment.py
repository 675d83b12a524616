"""Arithmetic for the beyond-guide deployment and software-engineering questions:
batching gain in memory-bound decode (question_bank/questions/inference/calc-latency.yaml),
B+ tree height and capacity, Raft quorums and consistent hashing
(question_bank/questions/prerequisites/software-engineering.yaml), the size of an auto-scheduling
search space (question_bank/questions/cuda/tvm.yaml) and INT8 engine weight size
(question_bank/questions/inference/deploy-toolchains.yaml).

Every function returns base units (bytes, counts) or a pure number, as
{"answer": value, **intermediates}, like the other solution modules.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from solutions.inference import kv_bytes_per_token

# --- Decode batching ----------------------------------------------------------------------------


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


# --- Databases, consensus, sharding -------------------------------------------------------------


def bplus_tree_levels(
    rows: int, page_bytes: int, key_bytes: int, pointer_bytes: int, row_bytes: int
) -> dict[str, float]:
    """Levels of a clustered B+ tree (root to leaf) holding `rows` rows in full pages.

    Internal nodes hold (key, child pointer) pairs: fanout = floor(page / (key + pointer)).
    Leaves hold whole rows: leaf_rows = floor(page / row). A tree of h levels holds at most
    fanout^(h-1) * leaf_rows rows; the answer is the smallest such h (integer arithmetic)."""
    fanout = page_bytes // (key_bytes + pointer_bytes)
    leaf_rows = page_bytes // row_bytes
    levels, capacity = 1, leaf_rows
    while capacity < rows:
        levels += 1
        capacity *= fanout
    return {
        "answer": levels,
        "fanout": fanout,
        "leaf_rows": leaf_rows,
        "capacity": capacity,
        "capacity_below": capacity // fanout if levels > 1 else 0,
        "leaves": -(-rows // leaf_rows),
    }


def raft_fault_tolerance(nodes: int) -> dict[str, float]:
    """Failures a Raft cluster of `nodes` voters survives.

    quorum = floor(n/2) + 1 and f = n - quorum; also the same for n + 1 voters."""
    quorum = nodes // 2 + 1
    plus_one = nodes + 1
    return {
        "answer": nodes - quorum,
        "quorum": quorum,
        "plus_one": plus_one,
        "plus_one_quorum": plus_one // 2 + 1,
        "plus_one_tolerance": plus_one - (plus_one // 2 + 1),
    }


def consistent_hash_keys_moved(keys: int, nodes: int) -> dict[str, float]:
    """Keys that change owner when one node joins `nodes` equally loaded nodes.

    Consistent hashing with enough virtual nodes: the newcomer takes a 1/(n+1) share, taken from
    the others, and nothing else moves: keys / (n + 1). For comparison, hash mod n -> mod (n + 1)
    keeps a key only when both residues agree, 1/(n+1) of keys (CRT), so n/(n+1) move."""
    moved = keys / (nodes + 1)
    modulo = keys * nodes / (nodes + 1)
    return {
        "answer": moved,
        "fraction": 1 / (nodes + 1),
        "modulo_moved": modulo,
        "modulo_fraction": nodes / (nodes + 1),
    }


# --- Auto-scheduling search space ---------------------------------------------------------------


def _divisors(n: int) -> list[int]:
    small = [f for f in range(1, math.isqrt(n) + 1) if n % f == 0]
    return sorted(set(small + [n // f for f in small]))


@cache
def _ordered_factorizations(n: int, parts: int) -> int:
    """Ways to write n as an ordered product of `parts` positive integers (dividing tile sizes)."""
    if parts == 1:
        return 1
    return sum(_ordered_factorizations(n // f, parts - 1) for f in _divisors(n))


def tile_search_space(
    m: int, n: int, k: int, spatial_levels: int, reduce_levels: int
) -> dict[str, float]:
    """Number of perfect multi-level tilings of an M x N x K matmul: each spatial loop split into
    `spatial_levels` factors and the reduction loop into `reduce_levels`, all factors dividing."""
    tm = _ordered_factorizations(m, spatial_levels)
    tn = _ordered_factorizations(n, spatial_levels)
    tk = _ordered_factorizations(k, reduce_levels)
    return {"answer": tm * tn * tk, "tm": tm, "tn": tn, "tk": tk}


# --- Deployment toolchains ----------------------------------------------------------------------


def int8_engine_weight_bytes(params_m: float, fp16_fraction: float) -> dict[str, float]:
    """Weight bytes of an INT8 engine where `fp16_fraction` of the parameters stay in FP16
    (sensitive first/last layers) and the rest are INT8; scales and engine metadata ignored."""
    params = params_m * 1e6
    int8_bytes = params * (1 - fp16_fraction) * 1
    fp16_kept = params * fp16_fraction * 2
    total = int8_bytes + fp16_kept
    fp16_engine = params * 2
    return {
        "answer": total,
        "params": params,
        "int8_bytes": int8_bytes,
        "fp16_kept_bytes": fp16_kept,
        "fp16_engine_bytes": fp16_engine,
        "ratio": total / fp16_engine,
    }


def conv_bn_folded_bias(
    bias: float, gamma: float, beta: float, mean: float, var: float, eps: float
) -> dict[str, float]:
    """Bias of one output channel after folding BatchNorm into the preceding conv.

    BN(y) = gamma * (y - mean) / sqrt(var + eps) + beta with y = w*x + b, so
    w' = w * s and b' = (b - mean) * s + beta, where s = gamma / sqrt(var + eps)."""
    s = gamma / (var + eps) ** 0.5
    return {"answer": (bias - mean) * s + beta, "s": s, "std": (var + eps) ** 0.5}
