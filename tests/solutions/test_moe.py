"""Hand-worked tests for solutions/moe.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution, preset
from solutions import moe
from tests.presets import d, m
from tests.solutions.questions import grid, numeric_questions


def test_expert_params_mixtral() -> None:
    # 3 matrices x 4096 hidden x 14336 ffn = 176,160,768 parameters per expert per layer
    assert moe.expert_params(preset("models", "mixtral-8x7b")) == 176_160_768


def test_ep_expert_bytes_per_gpu_deepseek_v3():
    # expert = 3 x 7168 x 2048 = 44,040,192; 256 / 32 = 8 experts; 61 - 3 = 58 layers
    # 8 x 58 x 44,040,192 = 20,434,649,088 params x 1 B (FP8)
    r = moe.ep_expert_bytes_per_gpu(m("deepseek-v3"), d("fp8"), 32, 3)
    assert r["per_expert"] == 44_040_192
    assert r["moe_layers"] == 58
    assert r["answer"] == 20_434_649_088


def test_moe_decode_expert_bytes_mixtral():
    # expert = 3 x 4096 x 14336 = 176,160,768
    # batch 1: distinct = 8 x (1 - 0.75) = 2 -> 32 x 2 x 176,160,768 x 2 B = 22,548,578,304 B
    r1 = moe.moe_decode_expert_bytes(m("mixtral-8x7b"), d("bf16"), 1)
    assert r1["distinct"] == pytest.approx(2.0)
    assert r1["answer"] == pytest.approx(22_548_578_304)
    # batch 4: distinct = 8 x (1 - 0.75^4) = 8 x (1 - 0.31640625) = 5.46875
    # bytes = 32 x 5.46875 x 176,160,768 x 2 = 61,656,268,800 B
    r4 = moe.moe_decode_expert_bytes(m("mixtral-8x7b"), d("bf16"), 4)
    assert r4["distinct"] == pytest.approx(5.46875)
    assert r4["answer"] == pytest.approx(61_656_268_800)


def test_moe_dispatch_bytes():
    # 16384 tokens x 8 copies x 4096 x 2 B x 7/8 = 939,524,096 B
    got = moe.moe_dispatch_bytes(16384, 4096, d("bf16"), 8, 8)
    assert got["answer"] == pytest.approx(939_524_096)


def test_moe_training_flops_deepseek_v3():
    # 6 x 37e9 active x 14.8e12 tokens = 3.2856e24 FLOPs; dense 6 x 671e9 x 14.8e12 = 5.9585e25
    got = moe.moe_training_flops(m("deepseek-v3"), 14.8e12)
    assert got["answer"] == pytest.approx(3.2856e24)
    assert got["ratio"] == pytest.approx(671 / 37)


# --- the grids of the questions ----------------------------------------------------------------


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("moe"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
