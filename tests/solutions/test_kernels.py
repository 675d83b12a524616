"""Hand-worked tests for solutions/kernels.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution, preset
from solutions import kernels
from tests.presets import d, g
from tests.solutions.questions import grid, numeric_questions


def test_typed_kernel_time_is_used_as_measured():
    # vector add of 67,108,864 elements x 12 B in 191 us on an H200: 4216.3 GB/s = 87.84%
    got = kernels.effective_bandwidth_measured(67_108_864, 12, g("h200"), 0.55, 191)
    assert got["answer"] == pytest.approx(0.87840, rel=1e-4)


def test_effective_bandwidth_share_of_peak() -> None:
    # 1e8 elements x 12 B = 1.2e9 B in 600 us -> 2.0e12 B/s; / 3.35e12 peak = 0.597
    result = kernels.effective_bandwidth(1e8, 12, 600, preset("gpus", "h100-sxm"))
    assert result["achieved"] == pytest.approx(2.0e12)
    assert result["answer"] == pytest.approx(2.0 / 3.35)


def test_tile_search_space_power_of_two():
    # 1024 = 2^10 into 4 ordered factors: stars and bars C(10 + 3, 3) = 286
    # 1024 into 2 factors: C(10 + 1, 1) = 11 -> 286 x 286 x 11 = 899,756
    got = kernels.tile_search_space(1024, 1024, 1024, 4, 2)
    assert (got["tm"], got["tn"], got["tk"]) == (286, 286, 11)
    assert got["answer"] == 899_756
    # 512 = 2^9: C(12, 3) = 220; 2048 = 2^11 into 2: 12 -> 220 x 286 x 12 = 755,040
    assert kernels.tile_search_space(512, 1024, 2048, 4, 2)["answer"] == 755_040


def test_tile_search_space_non_power_of_two():
    # 12 = 2^2 x 3 into 2 ordered factors = number of divisors = 6; into 3 = C(4,2) x C(3,2) = 18
    assert kernels.tile_search_space(12, 12, 12, 2, 3)["answer"] == 6 * 6 * 18


def test_reduction_launches_2_pow_26():
    # 512 elements per block (256 threads x 2): 2^26 -> 2^17 -> 2^8 = 256 -> 1: 3 launches
    got = kernels.reduction_launches(2**26, 256, 2)
    assert got["answer"] == 3
    assert got["chain"] == "67,108,864 → 131,072 → 256 → 1"
    assert got["tree_steps"] == 8


def test_reduction_launches_1e8_block128():
    # 1e8 / 128 = 781,250 -> ceil(6103.5) = 6,104 -> ceil(47.7) = 48 -> 1: 4 launches
    got = kernels.reduction_launches(100_000_000, 128, 1)
    assert got["answer"] == 4
    assert got["first_blocks"] == 781_250


def test_spmv_a100_fp32_32_per_row():
    # n = 1,000,000, 32 nnz/row -> nnz = 32,000,000
    # matrix = 32e6 x (4 + 4) + (1e6 + 1) x 4 = 256,000,000 + 4,000,004 = 260,000,004 B
    # vectors = 2 x 1e6 x 4 = 8,000,000 B; total = 268,000,004 B
    # FLOP = 2 x 32e6 = 64e6; intensity = 64e6 / 268e6 = 0.2388 FLOP/B
    # bound = 0.2388 x 2039e9 = 486.9 GFLOP/s
    got = kernels.csr_spmv_gflops_bound(
        gpu=g("a100-80gb"), rows=1_000_000, nnz_per_row=32, dtype="fp32"
    )
    assert got["total_bytes"] == 268_000_004
    assert got["flops"] == 64_000_000
    assert got["answer"] == pytest.approx(486.9e9, rel=1e-3)


def test_spmv_h100_fp64_8_per_row():
    # nnz = 8e6; matrix = 8e6 x (8 + 4) + 4,000,004 = 100,000,004 B; vectors = 2 x 1e6 x 8 = 16e6 B
    # total = 116,000,004 B; FLOP = 16e6; intensity = 0.13793 FLOP/B; x 3350e9 = 462.07 GFLOP/s
    got = kernels.csr_spmv_gflops_bound(
        gpu=g("h100-sxm"), rows=1_000_000, nnz_per_row=8, dtype="fp64"
    )
    assert got["total_bytes"] == 116_000_004
    assert got["answer"] == pytest.approx(462.07e9, rel=1e-3)


def test_ridge_point_h100():
    # 989e12 / 3350e9 = 295.2 FLOP/B
    assert kernels.ridge_point(g("h100-sxm"))["answer"] == pytest.approx(295.22, rel=1e-4)


def test_attainable_tflops():
    # H100: min(989, 10 x 3350e9 = 33.5e12) = 33.5 TFLOPS; at 1000 FLOP/B -> 989 TFLOPS
    assert kernels.attainable_tflops(g("h100-sxm"), 10)["answer"] == pytest.approx(33.5e12)
    assert kernels.attainable_tflops(g("h100-sxm"), 1000)["answer"] == pytest.approx(989e12)


def test_gemm_intensity():
    # 2 x 4096 x 4096 x 8192 = 2.749e11; (4096x8192 + 8192x4096 + 4096x4096) x 4 = 335,544,320 B
    # 274,877,906,944 / 335,544,320 = 819.2
    assert kernels.gemm_intensity(4096, 4096, 8192, d("fp32"))["answer"] == pytest.approx(819.2)
    # GEMV M = 1, BF16: 2 x 4096 x 4096 / ((4096 + 4096^2 + 4096) x 2) = 0.9995
    assert kernels.gemm_intensity(1, 4096, 4096, d("bf16"))["answer"] == pytest.approx(
        0.99951, rel=1e-4
    )


def test_elementwise_time_vector_add():
    # 1e9 x 12 B = 12e9 B; / 864e9 B/s = 13.889 ms
    assert kernels.elementwise_time(1e9, 12, g("l40s"))["answer"] == pytest.approx(
        13.889e-3, rel=1e-4
    )


def test_effective_bandwidth_measured():
    # 67,108,864 x 12 = 805,306,368 B; at 0.88 x 4800e9: 190.65 us -> 191 us
    # 805,306,368 / 191e-6 = 4216.3 GB/s; / 4800 = 87.84%
    got = kernels.effective_bandwidth_measured(67_108_864, 12, g("h200"), 0.88)
    assert got["time_us"] == 191
    assert got["answer"] == pytest.approx(0.87840, rel=1e-4)


def test_smem_tile_bytes():
    # (128 x 32 + 32 x 128) x 2 B = 16,384 B per stage; x 4 stages = 65,536 B = 64 KiB
    assert kernels.smem_tile_bytes(128, 128, 32, d("bf16"), 4)["answer"] == 65_536


def test_block_tile_intensity():
    # FP32 128 x 128: 2 x 128 x 128 / (256 x 4) = 32; naive 2 / (2 x 4) = 0.25
    got = kernels.block_tile_intensity(128, 128, d("fp32"))
    assert got["answer"] == 32
    assert got["naive"] == 0.25


# --- the grids of the questions ----------------------------------------------------------------


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("kernels"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
