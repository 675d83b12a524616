"""Arithmetic for the numeric gap questions written from the interview map (writer m1):
CFS bandwidth throttling of a CPU-limited container, expected probes of a linear-probing hash
table, and the number of threads a whole GPU can keep resident.

Every function returns base units (seconds, counts) as {"answer": value, **intermediates}, like the
other solution modules.
"""

from __future__ import annotations

from typing import Any

from solutions._units import MS


def cfs_throttled_time(limit_cores: float, threads: int, period_ms: float) -> dict[str, float]:
    """Wall-clock time per CFS period during which a CPU-limited container is throttled.

    The limit becomes a quota of limit_cores x period of CPU time per period. `threads` busy threads
    start together at the beginning of a period on otherwise idle cores, so they burn the quota
    `threads` times faster than one thread: it is used up after quota / threads of wall time, and
    the container is throttled for the rest of the period. Assumes threads > limit_cores (otherwise
    nothing is throttled)."""
    period = period_ms * MS
    quota = limit_cores * period
    run = min(period, quota / threads)
    throttled = period - run
    return {"answer": throttled, "quota": quota, "run": run, "period": period}


def linear_probing_unsuccessful_probes(load_factor: float) -> dict[str, float]:
    """Expected probes of an unsuccessful lookup in a linear-probing hash table at load factor a
    (Knuth's approximation for a large table with a uniform hash): (1 + 1 / (1 - a)^2) / 2.
    Also returns the successful-lookup figure (1 + 1 / (1 - a)) / 2 and, for comparison, the
    number of nodes a separate-chaining table compares on a miss (a, the mean chain length)."""
    a = load_factor
    miss = 0.5 * (1 + 1 / (1 - a) ** 2)
    hit = 0.5 * (1 + 1 / (1 - a))
    return {"answer": miss, "hit": hit, "chaining_miss": a}


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
