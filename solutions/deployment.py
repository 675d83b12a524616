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
