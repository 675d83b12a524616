"""CUDA arithmetic: occupancy, bank conflicts, roofline, arithmetic intensity."""

from __future__ import annotations

import math
from typing import Any

from solutions._units import GBPS, TFLOPS, KiB

WARP = 32
BANKS = 32


def occupancy(
    gpu: Any, threads_per_block: int, regs_per_thread: int, smem_kb_per_block: float
) -> dict[str, float]:
    """Theoretical occupancy = resident warps / max warps, from the three per-SM limits.

    Register and shared-memory allocation granularity are ignored (stated in the prompt)."""
    by_threads = gpu.max_threads_per_sm // threads_per_block
    by_regs = gpu.regs_per_sm // (regs_per_thread * threads_per_block)
    by_smem = math.floor(gpu.smem_kb_per_sm / smem_kb_per_block) if smem_kb_per_block else 10**9
    blocks = min(by_threads, by_regs, by_smem, gpu.max_blocks_per_sm)
    if blocks == 0:
        raise ValueError("not even one block fits on an SM: the launch would fail")
    warps = blocks * threads_per_block // WARP
    max_warps = gpu.max_threads_per_sm // WARP
    return {
        "answer": warps / max_warps,
        "blocks": blocks,
        "by_threads": by_threads,
        "by_regs": by_regs,
        "by_smem": by_smem if smem_kb_per_block else "no limit",
        "warps": warps,
        "max_warps": max_warps,
    }


def bank_conflict_ways(stride_words: int) -> dict[str, float]:
    """32 threads read word tid*stride: lanes collide on gcd(stride, 32) banks-deep."""
    ways = math.gcd(stride_words, BANKS)
    return {"answer": ways, "distinct_banks": BANKS // ways}


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


def gemm_intensity(m: int, n: int, k: int, dtype: Any) -> dict[str, float]:
    """2mnk FLOPs over the bytes of A, B and C each moved once."""
    flops = 2 * m * n * k
    moved = (m * k + k * n + m * n) * dtype.bytes
    return {"answer": flops / moved, "flops": flops, "moved": moved}


def elementwise_time(elements: float, bytes_per_element: float, gpu: Any) -> dict[str, float]:
    """A memory-bound elementwise kernel: bytes moved / HBM bandwidth."""
    moved = elements * bytes_per_element
    return {"answer": moved / (gpu.hbm_gbps * GBPS), "moved": moved}


def smem_tile_bytes(
    tile_m: int, tile_n: int, tile_k: int, dtype: Any, stages: int
) -> dict[str, float]:
    """Shared memory for a GEMM tile: A (tile_m x tile_k) + B (tile_k x tile_n) per stage."""
    per_stage = (tile_m * tile_k + tile_k * tile_n) * dtype.bytes
    return {"answer": per_stage * stages, "per_stage": per_stage, "kib": per_stage * stages / KiB}
