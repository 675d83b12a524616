"""Operating systems: page-table sizes (flat and x86-64 four-level), TLB reach, the pages
behind a pinned buffer, lock saturation and the cost of context switches.

Every function returns base units (bytes, seconds, fractions) or a pure number, as
{"answer": value, **intermediates}.
"""

from __future__ import annotations

import math

from solutions._units import US, GiB, KiB

PTE_BYTES = 8
"""Bytes per page-table entry on x86-64 (and AArch64)."""

TABLE_BYTES = 4 * KiB
"""One x86-64 page-table page: 512 entries of 8 bytes."""

ENTRIES_PER_TABLE = TABLE_BYTES // PTE_BYTES


# --- page tables and the TLB ------------------------------------------------------------------


def flat_page_table_bytes(va_bits: int, page_kib: int, pte_bytes: int) -> dict[str, float]:
    """Size of a single-level (flat) page table that covers the whole virtual address space:
    one entry per virtual page, 2^va_bits / page_size entries of pte_bytes each."""
    page = page_kib * KiB
    offset_bits = int(math.log2(page))
    vpn_bits = va_bits - offset_bits
    entries = 2**vpn_bits
    return {
        "answer": float(entries * pte_bytes),
        "page": float(page),
        "offset_bits": offset_bits,
        "vpn_bits": vpn_bits,
        "entries": float(entries),
    }


def four_level_table_bytes(region_gib: int, page_kib: int) -> dict[str, float]:
    """Page-table memory of an x86-64 four-level table (48-bit VA, 4 KiB table pages of 512
    8-byte entries) for one 1 GiB-aligned contiguous region of region_gib GiB (at most 512 GiB,
    so it sits under one PGD entry), mapped with 4 KiB pages or 2 MiB huge pages.

    One leaf (PTE) table maps 512 x 4 KiB = 2 MiB; one PMD table maps 512 x 2 MiB = 1 GiB; one
    PUD table maps 512 GiB. With 2 MiB pages the PMD entries point at the pages, so there are no
    leaf tables."""
    region = region_gib * GiB
    pte_tables = region // (2 * 1024 * KiB) if page_kib == 4 else 0
    pmd_tables = math.ceil(region / GiB)
    pud_tables = 1
    pgd_tables = 1
    tables = pte_tables + pmd_tables + pud_tables + pgd_tables
    flat = flat_page_table_bytes(48, page_kib, PTE_BYTES)["answer"]
    return {
        "answer": float(tables * TABLE_BYTES),
        "pages": float(region // (page_kib * KiB)),
        "pte_tables": float(pte_tables),
        "pmd_tables": float(pmd_tables),
        "tables": float(tables),
        "overhead": tables * TABLE_BYTES / region,
        "flat": flat,
    }


def tlb_reach_bytes(entries: int, page_kib: int) -> dict[str, float]:
    """TLB reach: the memory the TLB can map without a miss = entries x page size. Also the
    reach of the same TLB with 4 KiB pages, for comparison."""
    reach = entries * page_kib * KiB
    reach_4k = entries * 4 * KiB
    return {"answer": float(reach), "reach_4k": float(reach_4k), "ratio": reach / reach_4k}


def pinned_buffer_pages(buffer_gib: int, page_kib: int) -> dict[str, float]:
    """Pages the OS must pin (and the driver must list in its DMA mapping) for a buffer of
    buffer_gib GiB with pages of page_kib KiB, plus the 8-byte PTEs that map them."""
    buffer = buffer_gib * GiB
    pages = buffer // (page_kib * KiB)
    return {
        "answer": float(pages),
        "buffer": float(buffer),
        "pte_bytes_total": float(pages * PTE_BYTES),
        "pages_4k": float(buffer // (4 * KiB)),
    }


# --- threads and scheduling -------------------------------------------------------------------


def lock_saturation_threads(t_in_us: float, t_out_us: float) -> dict[str, float]:
    """Threads at which one global lock saturates. Each operation holds the lock for t_in and
    works outside it for t_out. The lock serves at most 1 / t_in operations/s; N threads offer
    N / (t_in + t_out). They meet at N* = (t_in + t_out) / t_in; beyond N* throughput stays flat
    (and in practice drops, from contention)."""
    t_in = t_in_us * US
    t_out = t_out_us * US
    n_star = (t_in + t_out) / t_in
    return {
        "answer": n_star,
        "max_ops": 1 / t_in,
        "per_thread_ops": 1 / (t_in + t_out),
    }


def context_switch_share(switches_per_s: float, switch_us: float) -> dict[str, float]:
    """Share of one core's time spent switching: switches per second x cost per switch (cost
    including the cache and TLB refill the switch causes)."""
    share = switches_per_s * switch_us * US
    return {"answer": share, "busy_us_per_s": switches_per_s * switch_us}
