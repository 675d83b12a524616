"""Hand-worked tests for solutions/multimodal.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution
from solutions import multimodal
from tests.presets import d, m
from tests.solutions.questions import grid, numeric_questions


def test_vit_image_tokens_with_and_without_merge():
    # 448 / 14 = 32 -> 32 x 32 = 1024 patches; 2 x 2 merge -> 256 tokens
    got = multimodal.vit_image_tokens(image_h=448, image_w=448, patch=14, merge=2)
    assert got["patches"] == 1024
    assert got["answer"] == 256
    assert got["pixels_per_token"] == 28
    # 1344 x 896 at 14 px: 96 x 64 = 6144 patches; no merge -> 6144 tokens
    assert (
        multimodal.vit_image_tokens(image_h=1344, image_w=896, patch=14, merge=1)["answer"] == 6144
    )


def test_image_tokens_kv_bytes_qwen25_7b():
    # per image: (1344 / 14)^2 / 4 = 96^2 / 4 = 2304 tokens; 4 images -> 9216 tokens
    # KV/token = 2 x 28 x 4 x 128 x 2 B = 57,344 B -> 9216 x 57,344 = 528,482,304 B
    got = multimodal.image_tokens_kv_bytes(
        model=m("qwen2.5-7b"), dtype=d("bf16"), images=4, image_side=1344, patch=14, merge=2
    )
    assert got["per_image"] == 2304
    assert got["per_token"] == 57_344
    assert got["answer"] == 528_482_304


def test_dit_sampling_time_dit_xl_like():
    # N = (1024 / 16)^2 = 4096; params = 12 x 28 x 1152^2 = 445,906,944
    # linear = 2 x 445,906,944 x 4096 = 3,652,869,685,248
    # attention = 4 x 28 x 4096^2 x 1152 = 2,164,663,517,184  (ratio N / 6d = 4096 / 6912 = 0.5926)
    # per pass = 5,817,533,202,432; x 50 steps x 2 (CFG) = 5.817533202432e14 -> / 400e12 = 1.45438 s
    got = multimodal.dit_sampling_time(
        layers=28, hidden=1152, image_px=1024, steps=50, cfg_passes=2, achieved_tflops=400
    )
    assert got["tokens"] == 4096
    assert got["params"] == 445_906_944
    assert got["linear"] == 3_652_869_685_248
    assert got["attn"] == 2_164_663_517_184
    assert got["attn"] / got["linear"] == pytest.approx(4096 / (6 * 1152))
    assert got["answer"] == pytest.approx(5.817533202432e14 / 4e14)


def test_flow_time_shift():
    # s = 3, t = 0.5: 1.5 / (1 + 2 x 0.5) = 0.75; s = 3, t = 0.2: 0.6 / 1.4 = 0.428571
    assert multimodal.flow_time_shift(shift=3.0, t=0.5)["answer"] == pytest.approx(0.75)
    assert multimodal.flow_time_shift(shift=3.0, t=0.2)["answer"] == pytest.approx(0.6 / 1.4)
    # s = 1 is the identity
    assert multimodal.flow_time_shift(shift=1.0, t=0.3)["answer"] == pytest.approx(0.3)


# --- the grids of the questions ----------------------------------------------------------------


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("multimodal"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
