"""Hand-checked tests for solutions/gaps_m3.py, used by the questions in
question_bank/questions/*/gaps-m3.yaml. Each comment writes the arithmetic out."""

from __future__ import annotations

import math

import pytest

from solutions import gaps_m3


def test_warps_no_ilp():
    # latency 8 cycles, ILP 1: each scheduler needs 8 instructions in flight = 8 warps;
    # 4 schedulers -> 32 warps, i.e. 32 / 64 = 50% occupancy.
    got = gaps_m3.warps_to_hide_latency(latency_cycles=8, ilp=1)
    assert got["answer"] == 32
    assert got["per_scheduler"] == 8
    assert got["occupancy"] == pytest.approx(0.5)


def test_warps_with_ilp_four():
    # latency 16, ILP 4: 16 / 4 = 4 warps per scheduler, 4 x 4 = 16 warps per SM (25% occupancy).
    got = gaps_m3.warps_to_hide_latency(latency_cycles=16, ilp=4)
    assert got["answer"] == 16
    assert got["occupancy"] == pytest.approx(0.25)


def test_warps_rounds_up():
    # latency 12, ILP 4 divides evenly (3 per scheduler -> 12); latency 6, ILP 4 does not:
    # ceil(1.5) = 2 warps per
    # scheduler -> 8 per SM.
    assert gaps_m3.warps_to_hide_latency(latency_cycles=12, ilp=4)["answer"] == 12
    assert gaps_m3.warps_to_hide_latency(latency_cycles=6, ilp=4)["answer"] == 8


def test_worst_case_fits_the_sm():
    # the largest draw (latency 16, ILP 1) needs 4 x 16 = 64 warps, exactly the 64-warp limit.
    assert gaps_m3.warps_to_hide_latency(latency_cycles=16, ilp=1)["answer"] == 64


def test_chinchilla_1e24():
    # N = sqrt(1e24 / (6 x 20)) = sqrt(8.333e21) = 9.129e10 (about 91B); D = 20 N = 1.826e12 tokens.
    got = gaps_m3.chinchilla_optimal_params(compute_flops=1e24)
    assert got["answer"] == pytest.approx(9.129e10, rel=1e-3)
    assert got["tokens"] == pytest.approx(1.826e12, rel=1e-3)
    assert got["check"] == pytest.approx(1e24)


def test_chinchilla_reproduces_the_paper_point():
    # Chinchilla itself: 70B parameters on 1.4T tokens -> C = 6 x 70e9 x 1.4e12 = 5.88e23 FLOP;
    # N = sqrt(5.88e23 / 120) = sqrt(4.9e21) = 7.0e10.
    got = gaps_m3.chinchilla_optimal_params(compute_flops=5.88e23)
    assert got["answer"] == pytest.approx(7.0e10, rel=1e-6)
    assert got["tokens"] == pytest.approx(1.4e12, rel=1e-6)


def test_chinchilla_scales_as_square_root():
    # 100x more compute -> 10x the parameters and 10x the tokens.
    small = gaps_m3.chinchilla_optimal_params(compute_flops=1e22)["answer"]
    big = gaps_m3.chinchilla_optimal_params(compute_flops=1e24)["answer"]
    assert big / small == pytest.approx(10.0)
    assert math.isclose(small, math.sqrt(1e22 / 120))
