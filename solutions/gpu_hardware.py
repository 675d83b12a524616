"""GPU hardware limits: occupancy from the per-SM thread, register and shared-memory
limits, the register budget of a thread-tiled kernel, shared-memory bank conflicts, global-memory
sectors, latency hiding, resident threads, bytes in flight and the Tensor Core peak.

Every function returns base units (counts, bytes, FLOP/s, fractions) as
{"answer": value, **intermediates}. GPU arguments are presets from question_bank/data/.
"""

from __future__ import annotations

import math
from typing import Any

from solutions._units import GBPS, KB

WARP = 32

BANKS = 32

SECTOR_BYTES = 32
"""Global-memory accesses are served in 32-byte sectors."""

MAX_WARPS_PER_SM = 64
"""Resident-warp limit per SM on A100 and H100 (2,048 threads / 32)."""


# --- occupancy and registers ------------------------------------------------------------------


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


def max_regs_for_occupancy(
    gpu: Any, threads_per_block: int, target_occupancy: float
) -> dict[str, float]:
    """Most registers per thread that still allow `target_occupancy` of the SM's thread slots:
    resident threads = target x max_threads_per_sm (whole blocks), regs <= regs_per_sm / threads.
    Allocation granularity ignored; capped at the 255-register hardware limit."""
    threads = round(target_occupancy * gpu.max_threads_per_sm)
    blocks = threads // threads_per_block
    resident = blocks * threads_per_block
    regs = min(255, gpu.regs_per_sm // resident)
    return {"answer": regs, "threads": resident, "blocks": blocks}


def thread_tile_blocks(
    bm: int, bn: int, tm: int, tn: int, extra_regs: int, gpu: Any
) -> dict[str, float]:
    """Register-limited resident blocks of a thread-tiled SGEMM: BM x BN tile, each thread owns a
    TM x TN accumulator, so threads = BM BN / (TM TN); registers per thread = TM TN accumulators
    + TM + TN fragment values + `extra_regs` for addresses/indices; blocks = floor(regs_per_sm /
    (threads x regs)). Allocation granularity ignored."""
    threads = bm * bn // (tm * tn)
    regs = tm * tn + tm + tn + extra_regs
    blocks = gpu.regs_per_sm // (threads * regs)
    warps = blocks * threads // WARP
    return {
        "answer": blocks,
        "threads": threads,
        "regs": regs,
        "per_block": threads * regs,
        "occupancy": warps / (gpu.max_threads_per_sm // WARP),
    }


def gpu_resident_threads(gpu: Any) -> dict[str, float]:
    """Threads the whole GPU can hold resident at once: SMs x the per-SM thread limit (the
    occupancy ceiling), as cudaGetDeviceProperties reports them (multiProcessorCount and
    maxThreadsPerMultiProcessor). Also returns the warps per SM and in total, and how many
    1024-thread blocks fit on one SM with the thread slots they leave unused."""
    per_sm = gpu.max_threads_per_sm
    total = gpu.sms * per_sm
    blocks_1024 = per_sm // 1024
    return {
        "answer": total,
        "per_sm": per_sm,
        "warps_per_sm": per_sm // 32,
        "warps": total // 32,
        "blocks_1024": blocks_1024,
        "idle_1024": per_sm - blocks_1024 * 1024,
    }


# --- memory access ----------------------------------------------------------------------------


def bank_conflict_ways(stride_words: int) -> dict[str, float]:
    """32 threads read word tid*stride: lanes collide on gcd(stride, 32) banks-deep."""
    ways = math.gcd(stride_words, BANKS)
    return {"answer": ways, "distinct_banks": BANKS // ways}


def warp_sectors(stride_elems: int, elem_bytes: int) -> dict[str, float]:
    """32-byte sectors touched when lane i of a warp loads element i x stride (base aligned to
    the sector), and the fraction of fetched bytes that were requested."""
    sectors = {(lane * stride_elems * elem_bytes) // SECTOR_BYTES for lane in range(WARP)}
    count = len(sectors)
    useful = WARP * elem_bytes
    return {
        "answer": count,
        "useful": useful,
        "fetched": count * SECTOR_BYTES,
        "efficiency": useful / (count * SECTOR_BYTES),
    }


# --- latency hiding ---------------------------------------------------------------------------


def warps_to_hide_latency(latency_cycles: int, ilp: int, schedulers: int = 4) -> dict[str, float]:
    """Little's law for a warp scheduler: to issue one instruction every cycle while each result
    takes `latency_cycles` to become usable, a scheduler needs `latency_cycles` independent
    instructions in flight. A warp whose thread has `ilp` independent instructions supplies `ilp`
    of them, so each scheduler needs ceil(latency / ilp) warps, and the SM `schedulers` times
    that."""
    per_scheduler = math.ceil(latency_cycles / ilp)
    warps = schedulers * per_scheduler
    return {
        "answer": warps,
        "in_flight": latency_cycles,
        "per_scheduler": per_scheduler,
        "occupancy": warps / MAX_WARPS_PER_SM,
    }


def bytes_in_flight_per_sm(gpu: Any, latency_ns: float) -> dict[str, float]:
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


# --- peak throughput --------------------------------------------------------------------------


def peak_tensor_tflops(
    sms: int, tensor_cores_per_sm: int, fma_per_clock: int, clock_ghz: float
) -> dict[str, float]:
    """Datasheet dense peak = SMs x Tensor Cores per SM x FMA per clock per Tensor Core x 2 FLOP
    x clock."""
    per_clock = sms * tensor_cores_per_sm * fma_per_clock * 2
    return {"answer": per_clock * clock_ghz * 1e9, "per_clock": per_clock}
