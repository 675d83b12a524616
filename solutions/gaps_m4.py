"""Solutions for the m4 gap questions (question_bank/questions/cuda/gaps-m4.yaml): Little's law for
GPU memory and the bandwidth bound of a CSR sparse matrix-vector product."""

from __future__ import annotations

from quizzer.grading.calc import Preset
from solutions._units import GBPS, KB

_VALUE_BYTES = {"fp32": 4, "fp64": 8}
_INDEX_BYTES = 4
"""CSR column indices and row pointers as 32-bit integers."""


def bytes_in_flight_per_sm(gpu: Preset, latency_ns: float) -> dict[str, float]:
    """Little's law for DRAM: to sustain bandwidth B with average load latency L, the GPU must keep
    B x L bytes of loads outstanding. Spread evenly over the SMs, each SM needs B x L / SMs bytes in
    flight. Also reported: the same amount per resident thread at full occupancy."""
    bandwidth = gpu.hbm_gbps * GBPS
    total = bandwidth * latency_ns * 1e-9
    per_sm = total / gpu.sms
    return {
        "answer": per_sm,
        "total": total,
        "per_sm_kb": per_sm / KB,
        "per_thread": per_sm / gpu.max_threads_per_sm,
        "fp32_loads_per_thread": per_sm / gpu.max_threads_per_sm / 4,
        "float4_warp_loads": per_sm / (32 * 16),
    }


def csr_spmv_gflops_bound(gpu: Preset, rows: int, nnz_per_row: int, dtype: str) -> dict[str, float]:
    """Upper bound on the FLOP rate of y = A x for an n x n CSR matrix held in HBM. Minimum traffic,
    assuming perfect cache reuse of x: values (nnz x value bytes) + column indices (nnz x 4 B) + row
    pointers ((n + 1) x 4 B) + x read once (n x value bytes) + y written once (n x value bytes).
    FLOP = 2 per non-zero (multiply + add). Bound = FLOP / (bytes / bandwidth)."""
    v = _VALUE_BYTES[dtype]
    nnz = rows * nnz_per_row
    matrix_bytes = nnz * (v + _INDEX_BYTES) + (rows + 1) * _INDEX_BYTES
    vector_bytes = 2 * rows * v
    total = matrix_bytes + vector_bytes
    flops = 2 * nnz
    bandwidth = gpu.hbm_gbps * GBPS
    seconds = total / bandwidth
    return {
        "answer": flops / seconds,
        "nnz": nnz,
        "matrix_bytes": matrix_bytes,
        "vector_bytes": vector_bytes,
        "total_bytes": total,
        "flops": flops,
        "intensity": flops / total,
        "seconds": seconds,
        "value_bytes": v,
    }
