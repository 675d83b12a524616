"""Kernel performance: the roofline, the arithmetic intensity of a GEMM and of its
thread-block tiles, memory-bound kernels and their measured bandwidth, tree reductions, the
bandwidth bound of a sparse matrix-vector product and the size of an auto-tuning search space.

Every function returns base units (FLOP/s, seconds, bytes, FLOP per byte, counts) as
{"answer": value, **intermediates}. Observation parameters (a measured kernel time) follow
solutions/_measured.py.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from solutions._measured import MEASURED, observed, sig3
from solutions._rounding import ceil_div
from solutions._units import GBPS, TFLOPS, US, KiB

# --- roofline and arithmetic intensity --------------------------------------------------------


def attainable_tflops(gpu: Any, intensity: float) -> dict[str, float]:
    """Roofline: min(peak BF16, intensity x HBM bandwidth), in FLOP/s."""
    peak = gpu.bf16_tflops * TFLOPS
    memory_roof = intensity * gpu.hbm_gbps * GBPS
    return {
        "answer": min(peak, memory_roof),
        "peak": peak,
        "memory_roof": memory_roof,
        "ridge": peak / (gpu.hbm_gbps * GBPS),
    }


def ridge_point(gpu: Any) -> dict[str, float]:
    """Arithmetic intensity where BF16 compute and HBM bandwidth limits meet (FLOP/byte)."""
    peak = gpu.bf16_tflops * TFLOPS
    bandwidth = gpu.hbm_gbps * GBPS
    return {"answer": peak / bandwidth, "peak": peak, "bandwidth": bandwidth}


def gemm_intensity(m: int, n: int, k: int, dtype: Any) -> dict[str, float]:
    """2mnk FLOPs over the bytes of A, B and C each moved once."""
    flops = 2 * m * n * k
    moved = (m * k + k * n + m * n) * dtype.bytes
    return {"answer": flops / moved, "flops": flops, "moved": moved}


def block_tile_intensity(bm: int, bn: int, dtype: Any) -> dict[str, float]:
    """Global-memory arithmetic intensity of a GEMM thread block computing a BM x BN tile of C:
    per K step it loads (BM + BN) x BK elements and does 2 x BM x BN x BK FLOPs, so
    intensity = 2 BM BN / ((BM + BN) x bytes), independent of BK. (C's write is ignored.)"""
    return {"answer": 2 * bm * bn / ((bm + bn) * dtype.bytes), "naive": 2 / (2 * dtype.bytes)}


def smem_tile_bytes(
    tile_m: int, tile_n: int, tile_k: int, dtype: Any, stages: int
) -> dict[str, float]:
    """Shared memory for a GEMM tile: A (tile_m x tile_k) + B (tile_k x tile_n) per stage."""
    per_stage = (tile_m * tile_k + tile_k * tile_n) * dtype.bytes
    return {"answer": per_stage * stages, "per_stage": per_stage, "kib": per_stage * stages / KiB}


# --- memory-bound kernels ---------------------------------------------------------------------


def elementwise_time(elements: float, bytes_per_element: float, gpu: Any) -> dict[str, float]:
    """A memory-bound elementwise kernel: bytes moved / HBM bandwidth."""
    moved = elements * bytes_per_element
    return {"answer": moved / (gpu.hbm_gbps * GBPS), "moved": moved}


def effective_bandwidth(
    elements: float, bytes_per_element: float, time_us: float, gpu: Any
) -> dict[str, float]:
    """Effective bandwidth of a kernel = bytes read + written / kernel time; the answer is its
    share of the HBM peak, with the bandwidth itself as `achieved` (bytes/s)."""
    moved = elements * bytes_per_element
    achieved = moved / (time_us * US)
    return {"answer": achieved / (gpu.hbm_gbps * GBPS), "moved": moved, "achieved": achieved}


def effective_bandwidth_measured(
    elements: float,
    bytes_per_element: float,
    gpu: Any,
    true_fraction: float,
    time_us: float | str = MEASURED,
) -> dict[str, float]:
    """A realistic measured kernel time for a question: the time at `true_fraction` of the HBM
    peak, rounded to 3 significant figures in microseconds (shown in the prompt), or the time
    given (`time_us`); then the effective bandwidth recomputed from it."""
    moved = elements * bytes_per_element
    time_us = observed(time_us, lambda: sig3(moved / (true_fraction * gpu.hbm_gbps * GBPS) / US))
    return {**effective_bandwidth(elements, bytes_per_element, time_us, gpu), "time_us": time_us}


def reduction_launches(n: int, block: int, per_thread: int) -> dict[str, Any]:
    """Multi-kernel tree reduction: each launch gives every block block x per_thread inputs and
    writes one partial sum per block, so n -> ceil(n / (block x per_thread)); repeat until one
    value is left. Inside a block the shared-memory tree takes log2(block) halving steps."""
    per_block = block * per_thread
    counts = [n]
    while counts[-1] > 1:
        counts.append(ceil_div(counts[-1], per_block))
    launches = len(counts) - 1
    return {
        "answer": launches,
        "per_block": per_block,
        "chain": " → ".join(f"{c:,}" for c in counts),
        "first_blocks": counts[1] if launches else 0,
        "tree_steps": int(math.log2(block)),
    }


_VALUE_BYTES = {"fp32": 4, "fp64": 8}

_INDEX_BYTES = 4
"""CSR column indices and row pointers as 32-bit integers."""


def csr_spmv_gflops_bound(gpu: Any, rows: int, nnz_per_row: int, dtype: str) -> dict[str, float]:
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


# --- auto-tuning search space -----------------------------------------------------------------


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
