"""Hand-worked tests for solutions/networking.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import pytest

from solutions import networking


def test_bdp_10g_80ms():
    # 10 Gbit/s = 1.25e9 B/s; x 0.080 s = 1.0e8 B = 100 MB in flight
    got = networking.bdp_window_bytes(link_gbit=10, rtt_ms=80)
    assert got["answer"] == pytest.approx(100e6)
    # a 64 KiB window: 65,536 B / 0.080 s = 819,200 B/s ~ 0.82 MB/s ~ 6.6 Mbit/s
    assert got["small_window_bw"] == pytest.approx(819_200)
    assert got["small_window_share"] == pytest.approx(819_200 / 1.25e9)


def test_message_time():
    # 1 MiB = 1,048,576 B over 50 GB/s: 20.97 us on the wire; + 5 us latency = 25.97 us
    got = networking.message_time(size_kib=1024, latency_us=5, bw_gbs=50)
    assert got["wire"] == pytest.approx(1_048_576 / 50e9)
    assert got["answer"] == pytest.approx(5e-6 + 20.97152e-6)
    # 4 KiB: 4096 / 50e9 = 0.082 us; T = 5.082 us; effective 4096 / 5.082 us = 0.806 GB/s (1.6%)
    small = networking.message_time(size_kib=4, latency_us=5, bw_gbs=50)
    assert small["answer"] == pytest.approx(5.08192e-6)
    assert small["eff_share"] == pytest.approx(4096 / 5.08192e-6 / 50e9)


def test_half_bandwidth_size():
    # alpha = 5 us, B = 50 GB/s: n_1/2 = 5e-6 x 50e9 = 250,000 B = 250 KB
    got = networking.half_bandwidth_size(latency_us=5, bw_gbs=50)
    assert got["answer"] == pytest.approx(250_000)
    # check: T = 5 us + 250,000 / 50e9 = 5 us + 5 us = 10 us; 250 KB / 10 us = 25 GB/s = B / 2
    t = 5e-6 + got["answer"] / 50e9
    assert got["answer"] / t == pytest.approx(25e9)
    assert got["n90"] == pytest.approx(2_250_000)
