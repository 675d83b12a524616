"""Temporary re-exports while the tests and question files move to the subject modules."""

from __future__ import annotations

from solutions.flops import (
    RECOMPUTE_FORWARDS,
    matmul_flops,
    matmul_time,
    mfu,
    training_days,
    training_flops,
)
from solutions.parallelism import (
    BUBBLE_MEASURES,
    bubble_fraction,
    interleaved_bubble,
    pipeline_bubble,
)
from solutions.training_memory import (
    ADAM_MIXED_BYTES,
    DEFAULT_ACCOUNTING,
    GRAD_BYTES,
    OPTIMIZER_ACCOUNTINGS,
    WEIGHT_BYTES,
    adam_mixed_bytes,
    optimizer_bytes,
    zero_bytes_per_gpu,
    zero_state_bytes_per_param,
)

__all__ = [
    "ADAM_MIXED_BYTES",
    "BUBBLE_MEASURES",
    "DEFAULT_ACCOUNTING",
    "GRAD_BYTES",
    "OPTIMIZER_ACCOUNTINGS",
    "RECOMPUTE_FORWARDS",
    "WEIGHT_BYTES",
    "adam_mixed_bytes",
    "bubble_fraction",
    "interleaved_bubble",
    "matmul_flops",
    "matmul_time",
    "mfu",
    "optimizer_bytes",
    "pipeline_bubble",
    "training_days",
    "training_flops",
    "zero_bytes_per_gpu",
    "zero_state_bytes_per_param",
]
