"""Hand-worked tests for solutions/floating_point.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution
from solutions import floating_point
from tests.solutions.questions import grid, numeric_questions, params


def test_fp8_spacing():
    # E4M3 in [1, 2): 2^(0 - 3) = 0.125; in [8, 16): 2^(3 - 3) = 1; E5M2 at 100: 2^(6 - 2) = 16
    assert floating_point.fp8_spacing("e4m3", 1.3)["answer"] == 0.125
    assert floating_point.fp8_spacing("e4m3", 10.0)["answer"] == 1
    assert floating_point.fp8_spacing("e5m2", 100.0)["answer"] == 16


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("FP16", 65504.0),  # (2 - 2^-10) x 2^15
        ("BF16", 3.3895313892515355e38),  # (2 - 2^-7) x 2^127
        ("FP32", 3.4028234663852886e38),  # (2 - 2^-23) x 2^127
        ("FP8 E5M2", 57344.0),  # (2 - 2^-2) x 2^15
    ],
)
def test_float_max(fmt, expected):
    assert floating_point.float_max(fmt)["answer"] == expected


def test_float_spacing():
    # BF16 at 1000: floor(log2 1000) = 9, 2^(9-7) = 4 (so 1000 + 1 rounds back to 1000)
    assert floating_point.float_spacing(1000, "BF16")["answer"] == 4.0
    # FP16 at 1000: 2^(9-10) = 0.5
    assert floating_point.float_spacing(1000, "FP16")["answer"] == 0.5
    # BF16 at 3: 2^(1-7) = 1/64
    assert floating_point.float_spacing(3, "BF16")["answer"] == 1 / 64


def test_max_loss_scale():
    # 65504 / 6 = 10917.3 -> 2^13 = 8192 (6 x 16384 = 98304 would overflow)
    assert floating_point.max_loss_scale(6)["answer"] == 8192
    # 65504 / 0.25 = 262016, just below 2^18 -> 2^17 = 131072 (0.25 x 2^18 = 65536 > 65504)
    assert floating_point.max_loss_scale(0.25)["answer"] == 131072


def test_min_loss_scale():
    # 2^-14 / 1e-6 = 61.04 -> 2^6 = 64
    assert floating_point.min_loss_scale(1e-6)["answer"] == 64
    # 2^-14 / 2e-9 = 30517.6 -> 2^15 = 32768
    assert floating_point.min_loss_scale(2e-9)["answer"] == 32768


def test_dynamic_loss_scale():
    # 65536 x 0.5^4 = 4096; floor(1500 / 1000) = 1 doubling -> 8192
    got = floating_point.dynamic_loss_scale(65536, 4, 1500, 1000)
    assert got["answer"] == 8192
    assert got["skipped"] == 4
    # 65536 x 0.5 = 32768; floor(10000 / 2000) = 5 doublings -> 1,048,576
    assert floating_point.dynamic_loss_scale(65536, 1, 10000, 2000)["answer"] == 2**20


# --- the grids of the questions ----------------------------------------------------------------


def test_fp8_spacing_params_are_normal_non_powers_of_two():
    p = params("calc-fp8-spacing")
    for v in p["value"]["choose"]:
        assert not math.log2(v).is_integer()
        assert v >= 2**-6
        assert v <= 448


def test_loss_scale_params_not_at_a_power_of_two_boundary():
    for max_grad in params("calc-loss-scale-overflow-limit")["max_grad"]["choose"]:
        power = math.log2(65504 / max_grad)
        assert abs(power - round(power)) > 0.01, max_grad
    for grad in params("calc-loss-scale-underflow-rescue")["grad"]["choose"]:
        power = math.log2(2**-14 / grad)
        assert abs(power - round(power)) > 0.01, grad


def test_spacing_params_are_not_powers_of_two():
    for x in params("calc-bf16-fp16-spacing")["x"]["choose"]:
        assert abs(math.log2(x) - round(math.log2(x))) > 0.01, x


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("floating_point"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
