"""Hand-worked tests for solutions/attention.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution
from solutions import attention
from tests.presets import d, g, m
from tests.solutions.questions import grid, numeric_questions


def test_attention_share_full_mask_doubles_the_score_flops():
    # Llama-3-8B at 8192: weight GEMMs 2 x 218,103,808 = 436,207,616 FLOP per token
    # full: 4 x 8192 keys x 4096 = 134,217,728; share = 134,217,728 / 570,425,344 = 4/17
    got = attention.attention_flops_share(m("llama-3-8b"), 8192, "full")
    assert got["keys"] == 8192
    assert got["attn"] == 134_217_728
    assert got["answer"] == pytest.approx(4 / 17)
    # crossover: 218,103,808 / (2 x 4096) = 26,624 tokens, half the causal 53,248
    assert got["crossover"] == 26_624
    # causal: 4 x 4096 keys x 4096 = 67,108,864; share 2/15, as before
    causal = attention.attention_flops_share(m("llama-3-8b"), 8192, "causal")
    assert causal["attn"] == 67_108_864
    assert causal["answer"] == pytest.approx(2 / 15)


@pytest.mark.parametrize(
    ("key", "kv", "intensity"),
    [
        ("llama-2-7b", "bf16", 1),  # MHA: 2 x 32 / (32 x 2)
        ("llama-3-8b", "bf16", 4),  # 2 x 32 / (8 x 2)
        ("llama-3-70b", "bf16", 8),  # 2 x 64 / (8 x 2)
        ("llama-3-70b", "fp8", 16),  # 2 x 64 / (8 x 1)
    ],
)
def test_decode_attention_intensity(key, kv, intensity):
    got = attention.decode_attention_intensity(m(key), d(kv), 4096)
    assert got["answer"] == intensity
    # independent of the context: 32k gives the same ratio
    assert attention.decode_attention_intensity(m(key), d(kv), 32768)["answer"] == intensity


def test_decode_attention_intensity_by_hand_70b():
    # FLOPs 4 x 4096 x 64 x 128 = 134,217,728; bytes 2 x 4096 x 8 x 128 x 2 = 16,777,216 -> 8
    got = attention.decode_attention_intensity(m("llama-3-70b"), d("bf16"), 4096)
    assert (got["flops"], got["moved"]) == (134_217_728, 16_777_216)


def test_prefill_attention_intensity():
    # Llama-2-7B (MHA), s = 2048, BF16, full: FLOPs 4 x 128 x 32 x 2048^2 = 68,719,476,736;
    # bytes 2048 x 128 x (64 + 64) x 2 = 67,108,864 -> 1024 FLOP/byte; causal halves it: 512
    full = attention.prefill_attention_intensity(m("llama-2-7b"), 2048, d("bf16"), "full")
    assert (full["flops"], full["moved"]) == (68_719_476_736, 67_108_864)
    assert full["answer"] == 1024
    causal = attention.prefill_attention_intensity(m("llama-2-7b"), 2048, d("bf16"), "causal")
    assert causal["answer"] == 512
    # Llama-3-8B (GQA 32/8), s = 8192, causal: 2 x 8192 x 0.5 x 32 / ((32 + 8) x 2) = 3276.8
    gqa = attention.prefill_attention_intensity(m("llama-3-8b"), 8192, d("bf16"), "causal")
    assert gqa["answer"] == pytest.approx(3276.8)


def test_attention_flops_share_llama3_8b_8k():
    # weight matrices = 41,943,040 + 176,160,768 = 218,103,808 -> 2x = 436,207,616 FLOP/token
    # causal scores: 2 x 8192 x 4096 = 67,108,864 FLOP/token
    # share = 67,108,864 / (436,207,616 + 67,108,864) = 0.133333... (exactly 2/15)
    got = attention.attention_flops_share(m("llama-3-8b"), 8192)
    assert got["weights"] == 218_103_808
    assert got["answer"] == pytest.approx(2 / 15)
    # crossover s = 218,103,808 / 4096 = 53,248 tokens
    assert got["crossover"] == 53_248


def test_attention_score_bytes_article_exercise():
    # B=2, Nh=32, S=8192 in FP16: 2 x 32 x 8192^2 x 2 B = 2^1 x 2^5 x 2^26 x 2^1 = 2^33 B = 8 GiB
    got = attention.attention_score_bytes(2, 32, 8192, 128, d("fp16"))
    assert got["answer"] == 2**33
    # Q, K, V, O: 4 x 2 x 32 x 8192 x 128 x 2 B = 2^29 B = 512 MiB; ratio s / 4d = 16
    assert got["qkvo"] == 2**29
    assert got["ratio"] == 16


def test_softmax_kernel_time_three_pass_a100():
    # 4096 x 4096 x 4 B = 67,108,864 B; 3 reads + 1 write = 268,435,456 B
    # / 2039e9 B/s = 131.65 us
    got = attention.softmax_kernel_time(4096, 4096, d("fp32"), "3-pass safe", g("a100-80gb"))
    assert got["moved"] == 268_435_456
    assert got["answer"] == pytest.approx(268_435_456 / 2039e9)
    assert got["answer"] == pytest.approx(131.65e-6, rel=1e-4)


def test_softmax_kernel_time_variants_ratio():
    # 2-pass: 3 x matrix; 1-pass: 2 x matrix -> 3-pass / 1-pass time = 4 / 2 = 2
    three = attention.softmax_kernel_time(8192, 1024, d("bf16"), "3-pass safe", g("h100-sxm"))[
        "answer"
    ]
    two = attention.softmax_kernel_time(8192, 1024, d("bf16"), "2-pass online", g("h100-sxm"))[
        "answer"
    ]
    one = attention.softmax_kernel_time(8192, 1024, d("bf16"), "1-pass cached", g("h100-sxm"))[
        "answer"
    ]
    assert three / one == pytest.approx(2.0)
    assert two / one == pytest.approx(1.5)


def test_flash_v1_q_passes_8k_d128_100kib():
    # M = 100 x 1024 / 2 = 51,200 elements; B_c = ceil(51200 / 512) = 100; B_r = min(100, 128)
    # = 100; T_c = ceil(8192 / 100) = 82
    got = attention.flash_v1_q_passes(8192, 128, 100, d("fp16"))
    assert got["m_elems"] == 51_200
    assert (got["b_c"], got["b_r"]) == (100, 100)
    assert got["answer"] == 82


def test_flash_v1_q_passes_2k_d64():
    # M = 51,200; B_c = ceil(51200 / 256) = 200; B_r = min(200, 64) = 64; T_c = ceil(2048/200) = 11
    got = attention.flash_v1_q_passes(2048, 64, 100, d("bf16"))
    assert (got["b_c"], got["b_r"], got["t_r"]) == (200, 64, 32)
    assert got["answer"] == 11


# --- the grids of the questions ----------------------------------------------------------------


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("attention"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
