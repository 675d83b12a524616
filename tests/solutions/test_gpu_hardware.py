"""Hand-worked tests for solutions/gpu_hardware.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution, preset
from solutions import gpu_hardware
from tests.presets import g
from tests.solutions.questions import grid, numeric_questions, params


def test_occupancy_refuses_a_launch_that_cannot_fit() -> None:

    with pytest.raises(ValueError, match="not even one block"):
        gpu_hardware.occupancy(preset("gpus", "a100-80gb"), 1024, 255, 0)


def test_gpu_resident_threads():
    # A100: 108 SMs x 2048 = 221,184 threads = 6,912 warps (64 warps per SM)
    got = gpu_hardware.gpu_resident_threads(g("a100-80gb"))
    assert got["answer"] == 221_184
    assert got["warps_per_sm"] == 64
    assert got["warps"] == 6_912
    # 2048 // 1024 = 2 blocks of 1024 threads per SM, no slot left over
    assert got["blocks_1024"] == 2
    assert got["idle_1024"] == 0
    # H100 SXM: 132 x 2048 = 270,336
    assert gpu_hardware.gpu_resident_threads(g("h100-sxm"))["answer"] == 270_336
    # L40S (compute capability 8.9, 1536 threads per SM): 142 x 1536 = 218,112 = 6,816 warps
    got = gpu_hardware.gpu_resident_threads(g("l40s"))
    assert got["answer"] == 218_112
    assert got["warps_per_sm"] == 48
    # 1536 // 1024 = 1 block of 1024 threads per SM, leaving 1536 - 1024 = 512 thread slots unused
    assert got["blocks_1024"] == 1
    assert got["idle_1024"] == 512


def test_warps_no_ilp():
    # latency 8 cycles, ILP 1: each scheduler needs 8 instructions in flight = 8 warps;
    # 4 schedulers -> 32 warps, i.e. 32 / 64 = 50% occupancy.
    got = gpu_hardware.warps_to_hide_latency(latency_cycles=8, ilp=1)
    assert got["answer"] == 32
    assert got["per_scheduler"] == 8
    assert got["occupancy"] == pytest.approx(0.5)


def test_warps_with_ilp_four():
    # latency 16, ILP 4: 16 / 4 = 4 warps per scheduler, 4 x 4 = 16 warps per SM (25% occupancy).
    got = gpu_hardware.warps_to_hide_latency(latency_cycles=16, ilp=4)
    assert got["answer"] == 16
    assert got["occupancy"] == pytest.approx(0.25)


def test_warps_rounds_up():
    # latency 12, ILP 4 divides evenly (3 per scheduler -> 12); latency 6, ILP 4 does not:
    # ceil(1.5) = 2 warps per
    # scheduler -> 8 per SM.
    assert gpu_hardware.warps_to_hide_latency(latency_cycles=12, ilp=4)["answer"] == 12
    assert gpu_hardware.warps_to_hide_latency(latency_cycles=6, ilp=4)["answer"] == 8


def test_worst_case_fits_the_sm():
    # the largest draw (latency 16, ILP 1) needs 4 x 16 = 64 warps, exactly the 64-warp limit.
    assert gpu_hardware.warps_to_hide_latency(latency_cycles=16, ilp=1)["answer"] == 64


def test_bytes_in_flight_h100_600ns():
    # 3350 GB/s x 600 ns = 3350e9 x 600e-9 = 2,010,000 B in flight across the chip
    # per SM: 2,010,000 / 132 = 15,227.27 B (about 15 KB)
    # per thread at 2048 threads/SM: 15,227.27 / 2048 = 7.435 B (about two floats)
    # as warp-wide float4 loads (32 x 16 B = 512 B): 15,227.27 / 512 = 29.74
    got = gpu_hardware.bytes_in_flight_per_sm(gpu=g("h100-sxm"), latency_ns=600)
    assert got["total"] == pytest.approx(2_010_000)
    assert got["answer"] == pytest.approx(15_227.27, rel=1e-6)
    assert got["per_thread"] == pytest.approx(7.435, rel=1e-3)
    assert got["float4_warp_loads"] == pytest.approx(29.74, rel=1e-3)


def test_bytes_in_flight_a100_400ns():
    # 2039 GB/s x 400 ns = 815,600 B; / 108 SMs = 7,551.85 B per SM
    got = gpu_hardware.bytes_in_flight_per_sm(gpu=g("a100-80gb"), latency_ns=400)
    assert got["total"] == pytest.approx(815_600)
    assert got["answer"] == pytest.approx(7_551.85, rel=1e-6)


def test_peak_tensor_tflops_a100_and_h100():
    # A100: 108 x 4 x 256 x 2 = 221,184 FLOP/clk x 1.41e9 = 311.87 TFLOPS
    assert gpu_hardware.peak_tensor_tflops(108, 4, 256, 1.41)["answer"] == pytest.approx(
        311.87e12, rel=1e-4
    )
    # H100 SXM: 132 x 4 x 512 x 2 = 540,672 x 1.83e9 = 989.43 TFLOPS
    assert gpu_hardware.peak_tensor_tflops(132, 4, 512, 1.83)["answer"] == pytest.approx(
        989.43e12, rel=1e-4
    )


def test_occupancy_register_limited():
    # A100, 256 threads, 96 regs, 16 KB: threads 2048/256 = 8; regs 65536/(96 x 256) = 2.67 -> 2;
    # smem 164/16 = 10.25 -> 10; blocks 2 -> 16 warps / 64 = 25%
    got = gpu_hardware.occupancy(g("a100-80gb"), 256, 96, 16)
    assert got["blocks"] == 2
    assert got["answer"] == 0.25


def test_occupancy_smem_limited_l40s():
    # L40S, 128 threads, 32 regs, 48 KB: threads 1536/128 = 12; regs 65536/4096 = 16;
    # smem 100/48 = 2
    # blocks 2 -> 8 warps / 48 = 16.7%
    got = gpu_hardware.occupancy(g("l40s"), 128, 32, 48)
    assert got["blocks"] == 2
    assert got["answer"] == pytest.approx(8 / 48)


def test_max_regs_for_occupancy():
    # 100% of 2048 threads -> 65536 / 2048 = 32; 50% -> 64; 25% -> 128
    assert gpu_hardware.max_regs_for_occupancy(g("h100-sxm"), 256, 1.0)["answer"] == 32
    assert gpu_hardware.max_regs_for_occupancy(g("a100-80gb"), 128, 0.5)["answer"] == 64
    assert gpu_hardware.max_regs_for_occupancy(g("h200"), 512, 0.25)["answer"] == 128


@pytest.mark.parametrize(
    ("stride", "ways"), [(1, 1), (2, 2), (3, 1), (6, 2), (12, 4), (32, 32), (33, 1)]
)
def test_bank_conflict_ways(stride, ways):
    # gcd(stride, 32)
    assert gpu_hardware.bank_conflict_ways(stride)["answer"] == ways


@pytest.mark.parametrize(
    ("stride", "elem", "sectors"),
    [
        (1, 4, 4),  # 32 x 4 B = 128 B -> 4 sectors
        (2, 4, 8),  # lane i at 8i B: 0..248 -> 256 B span -> 8 sectors
        (8, 4, 32),  # 32 B apart: one sector per lane
        (1, 8, 8),  # 32 x 8 B = 256 B -> 8 sectors
        (4, 8, 32),  # 32 B apart
        (32, 8, 32),
    ],
)
def test_warp_sectors(stride, elem, sectors):
    assert gpu_hardware.warp_sectors(stride, elem)["answer"] == sectors


def test_thread_tile_blocks():
    # 64 x 128 / (8 x 8) = 128 threads; 64 + 8 + 8 + 16 = 96 regs; 128 x 96 = 12,288 per block
    # 65536 / 12288 = 5.33 -> 5 blocks; 5 x 4 warps / 64 = 31.25%
    got = gpu_hardware.thread_tile_blocks(64, 128, 8, 8, 16, g("h100-sxm"))
    assert got["answer"] == 5
    assert got["occupancy"] == pytest.approx(0.3125)


# --- the grids of the questions ----------------------------------------------------------------


def test_occupancy_grid_always_launches():
    for combo in grid(params("calc-theoretical-occupancy")):
        assert gpu_hardware.occupancy(**combo)["blocks"] >= 1, combo


def test_thread_tile_grid_fits_register_limits():
    for combo in grid(params("calc-sgemm-thread-tile-registers")):
        got = gpu_hardware.thread_tile_blocks(**combo)
        assert got["regs"] <= 255 and got["answer"] >= 1 and got["threads"] <= 1024, combo


def test_max_regs_grid_whole_blocks():
    for combo in grid(params("calc-max-registers-for-occupancy")):
        gpu, tpb, target = combo["gpu"], combo["threads_per_block"], combo["target_occupancy"]
        assert (target * gpu.max_threads_per_sm) % tpb == 0, combo


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("gpu_hardware"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
