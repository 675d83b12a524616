"""The old home of the inference solutions, kept so that question banks written before the
regrouping (and the test fixtures) still resolve `solutions.inference.<name>`. New questions name
the subject module: memory, kv_cache, latency, attention, serving, kernels or communication."""

from __future__ import annotations

from solutions.attention import decode_attention_intensity, prefill_attention_intensity
from solutions.communication import tp_allreduce_bytes_per_token
from solutions.kernels import ridge_point
from solutions.kv_cache import (
    gqa_kv_saving,
    kv_block_count,
    kv_budget_bytes,
    kv_bytes_per_token,
    kv_cache_bytes,
    max_concurrent_seqs,
    mla_kv_bytes_per_token,
)
from solutions.latency import (
    DECODE_BOUNDS,
    decode_arithmetic_intensity,
    decode_critical_batch,
    decode_step_time,
    decode_step_time_with_kv,
    decode_throughput,
    decode_tokens_per_s,
    prefill_time,
)
from solutions.memory import (
    MAX_GPUS,
    SERVING_LAYOUTS,
    min_gpus_for_weights,
    min_gpus_serving,
    weight_bytes,
)
from solutions.serving import kv_transfer_time

__all__ = [
    "DECODE_BOUNDS",
    "MAX_GPUS",
    "SERVING_LAYOUTS",
    "decode_arithmetic_intensity",
    "decode_attention_intensity",
    "decode_critical_batch",
    "decode_step_time",
    "decode_step_time_with_kv",
    "decode_throughput",
    "decode_tokens_per_s",
    "gqa_kv_saving",
    "kv_block_count",
    "kv_budget_bytes",
    "kv_bytes_per_token",
    "kv_cache_bytes",
    "kv_transfer_time",
    "max_concurrent_seqs",
    "min_gpus_for_weights",
    "min_gpus_serving",
    "mla_kv_bytes_per_token",
    "prefill_attention_intensity",
    "prefill_time",
    "ridge_point",
    "tp_allreduce_bytes_per_token",
    "weight_bytes",
]
