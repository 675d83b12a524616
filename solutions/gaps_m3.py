"""Temporary re-exports while the tests and question files move to the subject modules."""

from __future__ import annotations

from solutions.flops import chinchilla_optimal_params
from solutions.gpu_hardware import MAX_WARPS_PER_SM, warps_to_hide_latency

__all__ = ["MAX_WARPS_PER_SM", "chinchilla_optimal_params", "warps_to_hide_latency"]
