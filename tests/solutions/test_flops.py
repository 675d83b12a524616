"""Hand-worked tests for solutions/flops.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution, preset
from solutions import flops
from tests.presets import g, m
from tests.solutions.questions import grid, numeric_questions


def test_training_flops_without_recomputation_is_6nd():
    # forward 2 x 70e9 x 300e9 = 4.2e22; backward 8.4e22; total 1.26e23 = 6ND
    got = flops.training_flops(70e9, 300e9, "none")
    assert got["forward"] == pytest.approx(4.2e22)
    assert got["backward"] == pytest.approx(8.4e22)
    assert got["recomputed"] == 0
    assert got["answer"] == pytest.approx(1.26e23)
    assert got["factor"] == 6


def test_training_flops_with_full_recomputation_is_8nd():
    # + one more forward 4.2e22 -> 1.68e23 = 8ND; the model FLOPs stay 1.26e23
    got = flops.training_flops(70e9, 300e9, "full")
    assert got["answer"] == pytest.approx(1.68e23)
    assert got["factor"] == 8
    assert got["model_flops"] == pytest.approx(1.26e23)


def test_training_flops_default_is_the_old_6nd():
    # GPT-3: 6 x 175e9 x 300e9 = 3.15e23
    assert flops.training_flops(175e9, 300e9)["answer"] == pytest.approx(3.15e23)


def test_training_cost_70b_h100():
    # C = 6 x 70.6e9 x 2e12 = 8.472e23 FLOP; one H100 at 40% MFU: 989e12 x 0.4 = 3.956e14 FLOP/s
    # GPU-seconds 8.472e23 / 3.956e14 = 2.14156e9 -> 594,877 GPU-hours -> x $2 = $1,189,754
    # on 2048 GPUs: 2.14156e9 / 2048 / 86400 = 12.10 days
    got = flops.training_cost(m("llama-3-70b"), 2e12, g("h100-sxm"), 0.4, 2.0, 2048)
    assert got["gpu_hours"] == pytest.approx(594_877, rel=1e-5)
    assert got["answer"] == pytest.approx(1_189_754, rel=1e-5)
    assert got["days"] == pytest.approx(12.1028, rel=1e-4)


def test_training_cost_does_not_depend_on_the_gpu_count():
    # same GPU-hours on 512 or 8192 GPUs; only the days change (16x)
    few = flops.training_cost(m("llama-3-8b"), 1.5e13, g("a100-80gb"), 0.45, 1.5, 512)
    many = flops.training_cost(m("llama-3-8b"), 1.5e13, g("a100-80gb"), 0.45, 1.5, 8192)
    assert few["answer"] == many["answer"]
    assert few["days"] == pytest.approx(16 * many["days"])
    # 6 x 8.03e9 x 1.5e13 = 7.227e23 / (312e12 x 0.45 = 1.404e14) = 5.1474e9 GPU-s
    # = 1,429,843 GPU-hours x $1.5 = $2,144,765
    assert few["answer"] == pytest.approx(2_144_765, rel=1e-5)


def test_mfu_from_a_typed_throughput():
    # Llama-3-70B on 16,384 H100s at 3.2M tokens/s: 6 x 70.6e9 x 3.2e6 = 1.35552e18 FLOP/s
    # over 16384 x 989e12 = 1.6203776e19 -> 8.3655%
    got = flops.mfu_measured(m("llama-3-70b"), 16384, g("h100-sxm"), 0.33, 3_200_000)
    assert got["tokens_per_s"] == 3_200_000
    assert got["answer"] == pytest.approx(0.083655, rel=1e-4)


def test_typed_observations_reproduce_the_generated_ones():
    # the generated throughput of 0.3 MFU on 1024 H100s is 717,000 tokens/s (see the HFU test);
    # typing it gives the same HFU, 0.39986
    model, gpu = m("llama-3-70b"), g("h100-sxm")
    generated = flops.hfu_measured(model, 1024, gpu, 0.3)
    typed = flops.hfu_measured(model, 1024, gpu, 0.4, 717_000)
    assert typed["answer"] == generated["answer"] == pytest.approx(0.39986, rel=1e-4)


def test_measured_tokens_per_s_rounds_to_three_figures() -> None:
    # 0.4 x 8 x 989e12 / (6 x 8.03e9) = 3.1648e12 / 4.818e10 = 65,687 -> 65,700 tokens/s
    value = flops.measured_tokens_per_s(
        preset("models", "llama-3-8b"), 8, preset("gpus", "h100-sxm"), 0.4
    )
    assert value == pytest.approx(65_700)


def test_chinchilla_1e24():
    # N = sqrt(1e24 / (6 x 20)) = sqrt(8.333e21) = 9.129e10 (about 91B); D = 20 N = 1.826e12 tokens.
    got = flops.chinchilla_optimal_params(compute_flops=1e24)
    assert got["answer"] == pytest.approx(9.129e10, rel=1e-3)
    assert got["tokens"] == pytest.approx(1.826e12, rel=1e-3)
    assert got["check"] == pytest.approx(1e24)


def test_chinchilla_reproduces_the_paper_point():
    # Chinchilla itself: 70B parameters on 1.4T tokens -> C = 6 x 70e9 x 1.4e12 = 5.88e23 FLOP;
    # N = sqrt(5.88e23 / 120) = sqrt(4.9e21) = 7.0e10.
    got = flops.chinchilla_optimal_params(compute_flops=5.88e23)
    assert got["answer"] == pytest.approx(7.0e10, rel=1e-6)
    assert got["tokens"] == pytest.approx(1.4e12, rel=1e-6)


def test_chinchilla_scales_as_square_root():
    # 100x more compute -> 10x the parameters and 10x the tokens.
    small = flops.chinchilla_optimal_params(compute_flops=1e22)["answer"]
    big = flops.chinchilla_optimal_params(compute_flops=1e24)["answer"]
    assert big / small == pytest.approx(10.0)
    assert math.isclose(small, math.sqrt(1e22 / 120))


def test_matmul_flops_4096_cubed():
    # 2 x 4096 x 4096 x 4096 = 137,438,953,472 FLOPs (about 0.137 TFLOP)
    assert flops.matmul_flops(4096, 4096, 4096)["answer"] == 137_438_953_472


def test_matmul_time_8192_cubed_h100_70pct():
    # 2 x 8192^3 = 1.0995e12 FLOPs; 989e12 x 0.7 = 692.3e12 FLOP/s; 1.0995e12 / 692.3e12 = 1.588 ms
    got = flops.matmul_time(8192, 8192, 8192, g("h100-sxm"), 0.7)["answer"]
    assert got == pytest.approx(1.588e-3, rel=1e-3)


def test_training_flops_gpt3():
    # 6 x 175e9 x 300e9 = 3.15e23 FLOPs
    assert flops.training_flops(175e9, 300e9)["answer"] == pytest.approx(3.15e23)


def test_training_days_405b_16k_h100():
    # 6 x 405.85e9 x 15e12 = 3.65265e25 FLOPs; 16384 x 989e12 x 0.4 = 6.4815e18 FLOP/s
    # 3.65265e25 / 6.4815e18 = 5.6355e6 s = 65.23 days
    got = flops.training_days(m("llama-3.1-405b"), 15e12, 16384, g("h100-sxm"), 0.4)
    assert got["days"] == pytest.approx(65.23, rel=1e-3)
    assert got["answer"] == pytest.approx(5.6355e6, rel=1e-3)


def test_mfu_direct():
    # 6 x 70.6e9 x 245,000 = 1.03782e17; 256 x 989e12 = 2.53184e17; ratio = 0.40991
    got = flops.mfu(m("llama-3-70b"), 245_000, 256, g("h100-sxm"))["answer"]
    assert got == pytest.approx(0.40991, rel=1e-4)


def test_mfu_measured_rounds_throughput_to_3_sig_figs():
    # 0.41 x 256 x 989e12 / (6 x 70.6e9) = 245,088 tokens/s -> shown as 245,000
    got = flops.mfu_measured(m("llama-3-70b"), 256, g("h100-sxm"), 0.41)
    assert got["tokens_per_s"] == 245_000
    assert got["answer"] == pytest.approx(0.40991, rel=1e-4)


def test_hfu_is_four_thirds_of_mfu():
    # 0.3 x 1024 x 989e12 / (6 x 70.6e9) = 717,002 -> 717,000 tokens/s
    # HFU = 8 x 70.6e9 x 717,000 / (1024 x 989e12) = 4.04957e17 / 1.012736e18 = 0.39986
    got = flops.hfu_measured(m("llama-3-70b"), 1024, g("h100-sxm"), 0.3)
    assert got["tokens_per_s"] == 717_000
    assert got["answer"] == pytest.approx(0.39986, rel=1e-4)
    assert got["answer"] == pytest.approx(got["mfu"] * 8 / 6)


# --- the grids of the questions ----------------------------------------------------------------


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("flops"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
