"""Temporary re-exports while the tests and question files move to the subject modules."""

from __future__ import annotations

from solutions.cpu import cfs_throttled_time
from solutions.data_structures import linear_probing_unsuccessful_probes
from solutions.gpu_hardware import gpu_resident_threads

__all__ = ["cfs_throttled_time", "gpu_resident_threads", "linear_probing_unsuccessful_probes"]
