"""Temporary re-exports while the tests and question files move to the subject modules."""

from __future__ import annotations

from solutions.gpu_hardware import bytes_in_flight_per_sm
from solutions.kernels import csr_spmv_gflops_bound

__all__ = ["bytes_in_flight_per_sm", "csr_spmv_gflops_bound"]
