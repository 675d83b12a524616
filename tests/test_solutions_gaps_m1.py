"""Hand-checked tests for solutions/gaps_m1.py (numeric gap questions in
question_bank/questions/prerequisites/gaps-m1.yaml and question_bank/questions/cuda/gaps-m1.yaml).
Each comment writes the arithmetic out."""

from __future__ import annotations

import pytest

from solutions import gaps_m1 as gm
from tests.presets import g


def test_cfs_throttled_time_two_cores_sixteen_threads():
    # quota = 2 cores x 100 ms = 200 ms of CPU time per period
    # 16 threads burn it in 200 / 16 = 12.5 ms of wall time -> throttled 100 - 12.5 = 87.5 ms
    got = gm.cfs_throttled_time(limit_cores=2, threads=16, period_ms=100)
    assert got["quota"] == pytest.approx(0.2)
    assert got["run"] == pytest.approx(0.0125)
    assert got["answer"] == pytest.approx(0.0875)


def test_cfs_throttled_time_half_core():
    # quota = 0.5 x 100 ms = 50 ms; 4 threads -> 12.5 ms running, 87.5 ms throttled
    got = gm.cfs_throttled_time(limit_cores=0.5, threads=4, period_ms=100)
    assert got["answer"] == pytest.approx(0.0875)


def test_cfs_not_throttled_when_threads_fit():
    # 2 threads under a 4-core limit use 2 x 100 ms = 200 ms < 400 ms quota: never throttled
    got = gm.cfs_throttled_time(limit_cores=4, threads=2, period_ms=100)
    assert got["answer"] == 0


def test_linear_probing_probes():
    # a = 0.5: miss = (1 + 1/0.25) / 2 = (1 + 4) / 2 = 2.5; hit = (1 + 2) / 2 = 1.5
    got = gm.linear_probing_unsuccessful_probes(load_factor=0.5)
    assert got["answer"] == pytest.approx(2.5)
    assert got["hit"] == pytest.approx(1.5)
    assert got["chaining_miss"] == pytest.approx(0.5)
    # a = 0.75: 1 / 0.0625 = 16 -> (1 + 16) / 2 = 8.5
    assert gm.linear_probing_unsuccessful_probes(load_factor=0.75)["answer"] == pytest.approx(8.5)
    # a = 0.9: 1 / 0.01 = 100 -> (1 + 100) / 2 = 50.5; hit = (1 + 10) / 2 = 5.5
    got = gm.linear_probing_unsuccessful_probes(load_factor=0.9)
    assert got["answer"] == pytest.approx(50.5)
    assert got["hit"] == pytest.approx(5.5)


def test_gpu_resident_threads():
    # A100: 108 SMs x 2048 = 221,184 threads = 6,912 warps (64 warps per SM)
    got = gm.gpu_resident_threads(g("a100-80gb"))
    assert got["answer"] == 221_184
    assert got["warps_per_sm"] == 64
    assert got["warps"] == 6_912
    # 2048 // 1024 = 2 blocks of 1024 threads per SM, no slot left over
    assert got["blocks_1024"] == 2
    assert got["idle_1024"] == 0
    # H100 SXM: 132 x 2048 = 270,336
    assert gm.gpu_resident_threads(g("h100-sxm"))["answer"] == 270_336
    # L40S (compute capability 8.9, 1536 threads per SM): 142 x 1536 = 218,112 = 6,816 warps
    got = gm.gpu_resident_threads(g("l40s"))
    assert got["answer"] == 218_112
    assert got["warps_per_sm"] == 48
    # 1536 // 1024 = 1 block of 1024 threads per SM, leaving 1536 - 1024 = 512 thread slots unused
    assert got["blocks_1024"] == 1
    assert got["idle_1024"] == 512
