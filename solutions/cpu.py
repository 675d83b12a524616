"""CPUs and C++: struct layout under natural alignment, std::vector growth, AVX-512 peak
FLOP/s, cache lines touched by a strided loop, the cache address split, Amdahl's law, false
sharing and the CFS throttling of a CPU-limited container.

Every function returns base units (bytes, FLOP/s, seconds, counts, ratios) as {"answer": value,
**intermediates}, like the other solution modules. Assumptions (LP64 Linux on x86-64, 64-byte cache
lines) are stated in each docstring and in the prompts.
"""

from __future__ import annotations

import math

from solutions._rounding import ceil_div
from solutions._units import MS

CACHE_LINE = 64
"""Bytes in one cache line on current x86-64 and most Arm server cores."""

# Size in bytes of each scalar type on LP64 (x86-64 Linux, System V ABI); natural alignment equals
# the size for all of them.
_SCALAR_BYTES = {
    "char": 1,
    "bool": 1,
    "int8_t": 1,
    "short": 2,
    "int16_t": 2,
    "int": 4,
    "float": 4,
    "int32_t": 4,
    "long": 8,
    "double": 8,
    "int64_t": 8,
    "void*": 8,
    "char*": 8,
    "int*": 8,
}


def _parse_members(layout: str) -> list[tuple[str, str, int, int]]:
    """'char a; int b[2];' -> [(type, name, size, align), ...]; arrays multiply the size only."""
    members = []
    for decl in layout.split(";"):
        decl = decl.strip()
        if not decl:
            continue
        type_name, name = decl.rsplit(" ", 1)
        type_name = type_name.replace(" *", "*").strip()
        count = 1
        if "[" in name:
            name, rest = name.split("[", 1)
            count = int(rest.rstrip("]"))
        if type_name not in _SCALAR_BYTES:
            raise ValueError(f"unknown member type {type_name!r}")
        size = _SCALAR_BYTES[type_name]
        members.append((type_name, name, size * count, size))
    return members


def _layout(members: list[tuple[str, str, int, int]]) -> tuple[int, int, list[str], int]:
    """Place members in order: each at the next multiple of its alignment; the struct's size is
    rounded up to a multiple of its largest member alignment. Returns size, alignment, a
    description of each placement, and the total padding."""
    offset, padding, steps = 0, 0, []
    for _type, name, size, align in members:
        start = ceil_div(offset, align) * align
        if start > offset:
            steps.append(f"pad {start - offset}")
            padding += start - offset
        steps.append(f"{name}@{start} ({size} B)")
        offset = start + size
    struct_align = max(align for *_rest, align in members)
    total = ceil_div(offset, struct_align) * struct_align
    if total > offset:
        steps.append(f"tail pad {total - offset}")
        padding += total - offset
    return total, struct_align, steps, padding


def struct_sizeof(layout: str) -> dict[str, object]:
    """sizeof(struct { layout }) on LP64 with natural alignment and no #pragma pack: each member
    starts at a multiple of its own alignment, and the total is a multiple of the largest member
    alignment (so that arrays of the struct keep every member aligned). Also the size after
    sorting the members by decreasing alignment, the usual fix."""
    members = _parse_members(layout)
    total, align, steps, padding = _layout(members)
    packed = sum(size for _t, _n, size, _a in members)
    best, _, _, _ = _layout(sorted(members, key=lambda m: -m[3]))
    return {
        "answer": total,
        "placement": ", ".join(steps),
        "struct_align": align,
        "padding": padding,
        "member_bytes": packed,
        "sorted_size": best,
    }


def vector_push_back_copies(n: int, growth: float) -> dict[str, float]:
    """Element copies (or moves) done by reallocation during n push_backs into an empty
    std::vector. Model: capacity starts at 0; when size == capacity the vector allocates
    max(capacity + 1, floor(capacity x growth)) and copies the `size` existing elements across.
    growth 2 reproduces libstdc++/libc++ (1, 2, 4, 8 ...), 1.5 reproduces MSVC (1, 2, 3, 4, 6,
    9 ...).
    The copies sum to about capacity / (growth - 1), and capacity < growth x n, so there are fewer
    than about growth / (growth - 1) copies per element ("bound"): amortised O(1)."""
    size = capacity = copies = allocations = 0
    while size < n:
        if size == capacity:
            capacity = max(capacity + 1, math.floor(capacity * growth))
            copies += size
            allocations += 1
        size += 1
    return {
        "answer": copies,
        "allocations": allocations,
        "reallocations": allocations - 1,
        "final_capacity": capacity,
        "per_element": copies / n,
        "bound": growth / (growth - 1),
        "unused": capacity - n,
    }


_DTYPE_BITS = {"fp32": 32, "fp64": 64}


def avx512_peak_flops(cores: int, ghz: float, fma_units: int, dtype: str) -> dict[str, float]:
    """Peak FLOP/s of a CPU socket from AVX-512 FMA: lanes = 512 / bits(dtype); one FMA does a
    multiply and an add per lane (2 FLOP); each core issues one FMA per FMA unit per cycle.
    peak = cores x clock x fma_units x 2 x lanes."""
    lanes = 512 // _DTYPE_BITS[dtype]
    per_cycle_core = fma_units * 2 * lanes
    hz = ghz * 1e9
    return {
        "answer": cores * hz * per_cycle_core,
        "lanes": lanes,
        "per_fma": 2 * lanes,
        "per_cycle_core": per_cycle_core,
        "per_core": hz * per_cycle_core,
    }


def strided_cache_lines(n: int, elem_bytes: int, stride: int) -> dict[str, float]:
    """Distinct 64-byte cache lines touched by `for (i = 0; i < n; i += stride) s += a[i];` over an
    array whose first element starts a cache line. If the step in bytes is at least a line, every
    access lands in a new line; if it is smaller, no line between the first and the last access is
    skipped, so the count is the line index of the last access + 1."""
    accesses = ceil_div(n, stride)
    step = stride * elem_bytes
    last = (accesses - 1) * stride * elem_bytes
    lines = accesses if step >= CACHE_LINE else last // CACHE_LINE + 1
    fetched = lines * CACHE_LINE
    useful = accesses * elem_bytes
    return {
        "answer": lines,
        "accesses": accesses,
        "step_bytes": step,
        "fetched": fetched,
        "useful": useful,
        "efficiency": useful / fetched,
        "dense_lines": ceil_div(n * elem_bytes, CACHE_LINE),
    }


def cache_tag_bits(cache_kib: int, ways: int, address_bits: int) -> dict[str, float]:
    """Tag bits of a set-associative cache with 64-byte lines: sets = size / (ways x line);
    offset = log2(line), index = log2(sets), tag = address bits - index - offset."""
    size = cache_kib * 1024
    sets = size // (ways * CACHE_LINE)
    offset = int(math.log2(CACHE_LINE))
    index = int(math.log2(sets))
    return {
        "answer": address_bits - index - offset,
        "lines": size // CACHE_LINE,
        "sets": sets,
        "offset_bits": offset,
        "index_bits": index,
    }


def amdahl_speedup(serial_fraction: float, workers: int) -> dict[str, float]:
    """Amdahl's law: a fraction f of the one-worker time cannot be parallelised, the rest divides
    perfectly over p workers, so speed-up = 1 / (f + (1 - f) / p), bounded by 1 / f."""
    f, p = serial_fraction, workers
    speedup = 1 / (f + (1 - f) / p)
    return {
        "answer": speedup,
        "parallel_time": (1 - f) / p,
        "time": f + (1 - f) / p,
        "limit": 1 / f,
        "efficiency": speedup / p,
    }


def false_sharing_counters(counter_bytes: int, threads: int) -> dict[str, float]:
    """Per-thread counters packed in one array that starts a 64-byte line: how many threads write
    to the same line (and so fight over it), how many lines the array spans, and the bytes an
    alignas(64) padded version needs (one line per counter)."""
    per_line = CACHE_LINE // counter_bytes
    return {
        "answer": min(per_line, threads),
        "per_line": per_line,
        "array_bytes": threads * counter_bytes,
        "lines": ceil_div(threads * counter_bytes, CACHE_LINE),
        "padded_bytes": threads * CACHE_LINE,
    }


# --- containers -------------------------------------------------------------------------------


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
