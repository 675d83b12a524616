"""The old home of the collective-communication solutions, kept so that question banks written
before the regrouping (and the test fixtures) still resolve `solutions.comm.<name>`. New questions
name solutions.communication (or solutions.moe for the All-to-All dispatch)."""

from __future__ import annotations

from solutions.communication import (
    ddp_allreduce_time,
    ring_allgather_time,
    ring_allreduce_time,
    ring_share,
    tp_layer_allreduce_time,
)
from solutions.moe import moe_dispatch_bytes

__all__ = [
    "ddp_allreduce_time",
    "moe_dispatch_bytes",
    "ring_allgather_time",
    "ring_allreduce_time",
    "ring_share",
    "tp_layer_allreduce_time",
]
