"""Temporary re-exports while the tests and question files move to the subject modules."""

from __future__ import annotations

from solutions.networking import GBIT, bdp_window_bytes, half_bandwidth_size, message_time
from solutions.operating_systems import (
    ENTRIES_PER_TABLE,
    PTE_BYTES,
    TABLE_BYTES,
    context_switch_share,
    flat_page_table_bytes,
    four_level_table_bytes,
    lock_saturation_threads,
    pinned_buffer_pages,
    tlb_reach_bytes,
)

__all__ = [
    "ENTRIES_PER_TABLE",
    "GBIT",
    "PTE_BYTES",
    "TABLE_BYTES",
    "bdp_window_bytes",
    "context_switch_share",
    "flat_page_table_bytes",
    "four_level_table_bytes",
    "half_bandwidth_size",
    "lock_saturation_threads",
    "message_time",
    "pinned_buffer_pages",
    "tlb_reach_bytes",
]
