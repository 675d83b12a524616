"""Hand-worked tests for solutions/memory.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution
from solutions import memory
from tests.presets import d, g, m
from tests.solutions.questions import grid, numeric_questions, params


def test_min_gpus_serving_70b_both_layouts():
    # W = 70.6e9 x 2 = 141.2e9 B; KV = 2 x 80 x 8 x 128 x 2 = 327,680 B/token x 16384 x 32
    # = 171,798,691,840 B; total 313.0e9 / (80e9 x 0.9) = 4.347
    # pipeline: ceil -> 5; tensor: G = 4 gives 35.3e9 + 42.95e9 = 78.25e9 > 72e9, G = 8 gives
    # 17.65e9 + 21.47e9 = 39.12e9 -> 8
    args = (m("llama-3-70b"), d("bf16"), d("bf16"), g("h100-sxm"), 0.9, 32, 16384)
    pipeline = memory.min_gpus_serving(*args, "pipeline")
    assert pipeline["kv_bytes"] == 171_798_691_840
    assert pipeline["exact"] == pytest.approx(4.3472, rel=1e-4)
    assert pipeline["answer"] == 5
    assert memory.min_gpus_serving(*args, "tensor")["answer"] == 8


def test_min_gpus_serving_tensor_replicates_kv_heads_past_8():
    # Llama-3.1-405B FP8 weights 405.85e9 B, BF16 KV 2 x 126 x 8 x 128 x 2 = 516,096 B/token
    # x 16384 x 32 = 270.58e9 B. G = 8: 50.73e9 + 33.82e9 = 84.55e9 > 72e9; G = 16: the 8 KV
    # heads cannot split further, so KV stays 270.58e9 / 8 = 33.82e9: 25.37e9 + 33.82e9 =
    # 59.19e9 -> 16. Pipeline: 676.4e9 / 72e9 = 9.39 -> 10
    args = (m("llama-3.1-405b"), d("fp8"), d("bf16"), g("h100-sxm"), 0.9, 32, 16384)
    tensor = memory.min_gpus_serving(*args, "tensor")
    assert tensor["answer"] == 16
    assert tensor["per_gpu"] == pytest.approx(59.188e9, rel=1e-4)
    assert memory.min_gpus_serving(*args, "pipeline")["answer"] == 10


def test_decoder_layer_params_llama2_7b():
    # MHA: 4 x 4096^2 = 67,108,864; SwiGLU: 3 x 4096 x 11008 = 135,266,304; norms 2 x 4096 = 8,192
    # layer = 67,108,864 + 135,266,304 + 8,192 = 202,383,360 (the article's figure)
    got = memory.decoder_layer_params(m("llama-2-7b"))
    assert got["attn"] == 67_108_864
    assert got["ffn"] == 135_266_304
    assert got["answer"] == 202_383_360


def test_layer_ffn_share_llama3_8b():
    # Q and O: 4096 x 4096 = 16,777,216 each; K and V: 4096 x (8 x 128) = 4,194,304 each
    # attention = 2 x 16,777,216 + 2 x 4,194,304 = 41,943,040
    # FFN = 3 x 4096 x 14336 = 176,160,768; norms = 8,192; layer = 218,112,000
    # share = 176,160,768 / 218,112,000 = 0.807659...
    got = memory.layer_ffn_share(m("llama-3-8b"))
    assert got["layer"] == 218_112_000
    assert got["answer"] == pytest.approx(176_160_768 / 218_112_000)
    assert got["answer"] == pytest.approx(0.80766, abs=1e-5)


def test_model_total_params_llama2_7b():
    # 32 x 202,383,360 = 6,476,267,520; embedding 32000 x 4096 = 131,072,000; LM head the same;
    # final norm 4096 -> 6,476,267,520 + 2 x 131,072,000 + 4,096 = 6,738,415,616
    got = memory.model_total_params(m("llama-2-7b"))
    assert got["answer"] == 6_738_415_616
    assert got["embed"] == 131_072_000


def test_model_total_params_llama3_8b_matches_published():
    # 32 x 218,112,000 = 6,979,584,000; 2 x 128256 x 4096 = 1,050,673,152; + 4096
    # = 8,030,261,248, i.e. the published 8.03B
    got = memory.model_total_params(m("llama-3-8b"))
    assert got["answer"] == 8_030_261_248
    assert abs(got["deviation"]) < 1e-3


def test_tied_embedding_saving_llama3_8b():
    # 128256 x 4096 = 525,336,576 saved; / 8.03e9 = 0.065422...
    got = memory.tied_embedding_saving(m("llama-3-8b"))
    assert got["saved"] == 525_336_576
    assert got["answer"] == pytest.approx(525_336_576 / 8.03e9)
    assert got["answer"] == pytest.approx(0.06542, abs=1e-5)


def test_weight_bytes_llama3_70b_bf16():
    # 70.6e9 params x 2 B = 141.2e9 B
    assert memory.weight_bytes(m("llama-3-70b"), d("bf16"))["answer"] == pytest.approx(141.2e9)


def test_weight_bytes_qwen72b_fp8_in_gib():
    # 72.7e9 x 1 B = 72.7e9 B; / 2^30 = 67.71 GiB
    got = memory.weight_bytes(m("qwen2.5-72b"), d("fp8"))["answer"] / 2**30
    assert got == pytest.approx(67.707, rel=1e-4)


def test_min_gpus_405b_bf16_h100():
    # 405.85e9 x 2 = 811.7 GB; per GPU 80 GB x 0.9 = 72 GB; 811.7 / 72 = 11.27 -> 12 GPUs
    r = memory.min_gpus_for_weights(m("llama-3.1-405b"), d("bf16"), g("h100-sxm"), 0.9)
    assert r["answer"] == 12
    assert r["exact"] == pytest.approx(811.7 / 72)


def test_min_gpus_70b_fp8_h200_fits_on_one():
    # 70.6 GB / (141 GB x 0.9 = 126.9 GB) = 0.556 -> 1 GPU
    assert memory.min_gpus_for_weights(m("llama-3-70b"), d("fp8"), g("h200"), 0.9)["answer"] == 1


# --- the grids of the questions ----------------------------------------------------------------


def test_serving_grid_is_unambiguous_and_bounded():
    for combo in grid(params("calc-min-gpus-serving-with-kv")):
        got = memory.min_gpus_serving(**combo)
        exact = got["exact"]
        # a pipeline answer just above or below an integer would be ambiguous at 0.4 tolerance
        assert abs(exact - round(exact)) > 0.01 or exact < 1, combo
        assert got["answer"] <= 32, combo


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("memory"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
