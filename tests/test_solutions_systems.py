"""Hand-checked tests for solutions/systems.py, used by the OS and networking questions in
QUESTIONS. Each comment writes the arithmetic out."""

from __future__ import annotations

import itertools
import math

import pytest

from solutions import systems as sy
from tests.conftest import shipped_questions

# The numeric questions these solutions serve (all in prerequisites/os-*.yaml and
# networking-tcp.yaml when written).
QUESTIONS = (
    "os-lock-global-lock-saturation",
    "os-mem-flat-page-table-size",
    "os-mem-four-level-table-size",
    "os-mem-tlb-reach",
    "os-mem-pinned-buffer-pages",
    "os-proc-context-switch-share",
    "net-bdp-window",
    "net-message-transfer-time",
    "net-half-bandwidth-message-size",
)


# --- memory ----------------------------------------------------------------------------------


def test_flat_page_table_32_bit():
    # 32-bit VA, 4 KiB pages -> 12 offset bits, 20 VPN bits, 2^20 = 1,048,576 entries
    # x 4 B = 4,194,304 B = 4 MiB (the classic textbook figure)
    got = sy.flat_page_table_bytes(va_bits=32, page_kib=4, pte_bytes=4)
    assert got["offset_bits"] == 12
    assert got["entries"] == 2**20
    assert got["answer"] == 4 * 2**20


def test_flat_page_table_48_bit():
    # 48-bit VA, 4 KiB pages -> 2^36 entries x 8 B = 2^39 B = 512 GiB per process
    got = sy.flat_page_table_bytes(va_bits=48, page_kib=4, pte_bytes=8)
    assert got["answer"] == 512 * 2**30
    # 64 KiB pages: 16 offset bits, 2^32 entries x 8 B = 32 GiB
    assert sy.flat_page_table_bytes(va_bits=48, page_kib=64, pte_bytes=8)["answer"] == 32 * 2**30


def test_four_level_table_16_gib_4k_pages():
    # 16 GiB / 2 MiB = 8192 leaf tables; 16 GiB / 1 GiB = 16 PMD tables; 1 PUD; 1 PGD
    # 8210 tables x 4096 B = 33,628,160 B ~ 32.07 MiB, i.e. ~0.2% of 16 GiB (8 B per 4 KiB page)
    got = sy.four_level_table_bytes(region_gib=16, page_kib=4)
    assert got["pte_tables"] == 8192
    assert got["pmd_tables"] == 16
    assert got["tables"] == 8210
    assert got["answer"] == 8210 * 4096
    assert got["overhead"] == pytest.approx(8210 * 4096 / (16 * 2**30))
    assert got["flat"] == 512 * 2**30


def test_four_level_table_16_gib_2m_pages():
    # huge pages: no leaf tables; 16 PMD + 1 PUD + 1 PGD = 18 tables x 4 KiB = 73,728 B = 72 KiB
    got = sy.four_level_table_bytes(region_gib=16, page_kib=2048)
    assert got["pte_tables"] == 0
    assert got["answer"] == 18 * 4096
    assert got["pages"] == 8192


def test_tlb_reach():
    # 1536 entries x 4 KiB = 6 MiB; x 2 MiB = 3 GiB; ratio 512
    small = sy.tlb_reach_bytes(entries=1536, page_kib=4)
    assert small["answer"] == 6 * 2**20
    huge = sy.tlb_reach_bytes(entries=1536, page_kib=2048)
    assert huge["answer"] == 3 * 2**30
    assert huge["ratio"] == 512


def test_pinned_buffer_pages():
    # 32 GiB / 4 KiB = 2^35 / 2^12 = 2^23 = 8,388,608 pages; PTEs 8 B each = 64 MiB
    got = sy.pinned_buffer_pages(buffer_gib=32, page_kib=4)
    assert got["answer"] == 8_388_608
    assert got["pte_bytes_total"] == 64 * 2**20
    # with 2 MiB pages: 2^35 / 2^21 = 16,384 pages
    assert sy.pinned_buffer_pages(buffer_gib=32, page_kib=2048)["answer"] == 16_384


# --- concurrency and processes ---------------------------------------------------------------


def test_lock_saturation_threads():
    # 2 us inside the lock, 30 us outside: N* = 32 / 2 = 16 threads; lock caps 1 / 2 us = 500k/s
    got = sy.lock_saturation_threads(t_in_us=2, t_out_us=30)
    assert got["answer"] == pytest.approx(16)
    assert got["max_ops"] == pytest.approx(500_000)
    # each thread alone: 1 / 32 us = 31,250 ops/s; 16 x 31,250 = 500,000, the cap
    assert 16 * got["per_thread_ops"] == pytest.approx(got["max_ops"])


def test_context_switch_share():
    # 20,000 switches/s x 5 us = 100,000 us = 0.1 s of every second -> 10%
    got = sy.context_switch_share(switches_per_s=20_000, switch_us=5)
    assert got["answer"] == pytest.approx(0.10)
    assert got["busy_us_per_s"] == pytest.approx(100_000)


# --- networking ------------------------------------------------------------------------------


def test_bdp_10g_80ms():
    # 10 Gbit/s = 1.25e9 B/s; x 0.080 s = 1.0e8 B = 100 MB in flight
    got = sy.bdp_window_bytes(link_gbit=10, rtt_ms=80)
    assert got["answer"] == pytest.approx(100e6)
    # a 64 KiB window: 65,536 B / 0.080 s = 819,200 B/s ~ 0.82 MB/s ~ 6.6 Mbit/s
    assert got["small_window_bw"] == pytest.approx(819_200)
    assert got["small_window_share"] == pytest.approx(819_200 / 1.25e9)


def test_message_time():
    # 1 MiB = 1,048,576 B over 50 GB/s: 20.97 us on the wire; + 5 us latency = 25.97 us
    got = sy.message_time(size_kib=1024, latency_us=5, bw_gbs=50)
    assert got["wire"] == pytest.approx(1_048_576 / 50e9)
    assert got["answer"] == pytest.approx(5e-6 + 20.97152e-6)
    # 4 KiB: 4096 / 50e9 = 0.082 us; T = 5.082 us; effective 4096 / 5.082 us = 0.806 GB/s (1.6%)
    small = sy.message_time(size_kib=4, latency_us=5, bw_gbs=50)
    assert small["answer"] == pytest.approx(5.08192e-6)
    assert small["eff_share"] == pytest.approx(4096 / 5.08192e-6 / 50e9)


def test_half_bandwidth_size():
    # alpha = 5 us, B = 50 GB/s: n_1/2 = 5e-6 x 50e9 = 250,000 B = 250 KB
    got = sy.half_bandwidth_size(latency_us=5, bw_gbs=50)
    assert got["answer"] == pytest.approx(250_000)
    # check: T = 5 us + 250,000 / 50e9 = 5 us + 5 us = 10 us; 250 KB / 10 us = 25 GB/s = B / 2
    t = 5e-6 + got["answer"] / 50e9
    assert got["answer"] / t == pytest.approx(25e9)
    assert got["n90"] == pytest.approx(2_250_000)


# --- grids of the questions ------------------------------------------------------------------


def _questions():
    yield from shipped_questions(QUESTIONS)


def _grid(params: dict):
    names, values = [], []
    for name, spec in params.items():
        names.append(name)
        if "choose" in spec:
            values.append(spec["choose"])
        elif "range" in spec:
            low, high = spec["range"]
            values.append([low, high])
        else:
            values.append([spec["value"]])
    for combo in itertools.product(*values):
        yield dict(zip(names, combo, strict=True))


def test_every_question_solves_on_its_whole_grid():
    from quizzer.grading.calc import load_solution

    seen = 0
    for q in _questions():
        func = load_solution(q["solution"])
        for combo in _grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen == 9


def test_regions_fit_one_pgd_entry():
    # four_level_table_bytes assumes one PUD table: the region must be at most 512 GiB
    for q in _questions():
        if q["solution"].endswith("four_level_table_bytes"):
            assert max(q["params"]["region_gib"]["choose"]) <= 512
