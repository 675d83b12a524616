"""Hand-checked tests for solutions/gaps_m4.py (question_bank/questions/cuda/gaps-m4.yaml).
Each comment writes the arithmetic out."""

from __future__ import annotations

import pytest

from solutions import gaps_m4 as s
from tests.presets import g


def test_bytes_in_flight_h100_600ns():
    # 3350 GB/s x 600 ns = 3350e9 x 600e-9 = 2,010,000 B in flight across the chip
    # per SM: 2,010,000 / 132 = 15,227.27 B (about 15 KB)
    # per thread at 2048 threads/SM: 15,227.27 / 2048 = 7.435 B (about two floats)
    # as warp-wide float4 loads (32 x 16 B = 512 B): 15,227.27 / 512 = 29.74
    got = s.bytes_in_flight_per_sm(gpu=g("h100-sxm"), latency_ns=600)
    assert got["total"] == pytest.approx(2_010_000)
    assert got["answer"] == pytest.approx(15_227.27, rel=1e-6)
    assert got["per_thread"] == pytest.approx(7.435, rel=1e-3)
    assert got["float4_warp_loads"] == pytest.approx(29.74, rel=1e-3)


def test_bytes_in_flight_a100_400ns():
    # 2039 GB/s x 400 ns = 815,600 B; / 108 SMs = 7,551.85 B per SM
    got = s.bytes_in_flight_per_sm(gpu=g("a100-80gb"), latency_ns=400)
    assert got["total"] == pytest.approx(815_600)
    assert got["answer"] == pytest.approx(7_551.85, rel=1e-6)


def test_spmv_a100_fp32_32_per_row():
    # n = 1,000,000, 32 nnz/row -> nnz = 32,000,000
    # matrix = 32e6 x (4 + 4) + (1e6 + 1) x 4 = 256,000,000 + 4,000,004 = 260,000,004 B
    # vectors = 2 x 1e6 x 4 = 8,000,000 B; total = 268,000,004 B
    # FLOP = 2 x 32e6 = 64e6; intensity = 64e6 / 268e6 = 0.2388 FLOP/B
    # bound = 0.2388 x 2039e9 = 486.9 GFLOP/s
    got = s.csr_spmv_gflops_bound(gpu=g("a100-80gb"), rows=1_000_000, nnz_per_row=32, dtype="fp32")
    assert got["total_bytes"] == 268_000_004
    assert got["flops"] == 64_000_000
    assert got["answer"] == pytest.approx(486.9e9, rel=1e-3)


def test_spmv_h100_fp64_8_per_row():
    # nnz = 8e6; matrix = 8e6 x (8 + 4) + 4,000,004 = 100,000,004 B; vectors = 2 x 1e6 x 8 = 16e6 B
    # total = 116,000,004 B; FLOP = 16e6; intensity = 0.13793 FLOP/B; x 3350e9 = 462.07 GFLOP/s
    got = s.csr_spmv_gflops_bound(gpu=g("h100-sxm"), rows=1_000_000, nnz_per_row=8, dtype="fp64")
    assert got["total_bytes"] == 116_000_004
    assert got["answer"] == pytest.approx(462.07e9, rel=1e-3)
