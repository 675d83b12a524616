"""Hand-worked tests for solutions/latency.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution
from solutions import latency
from tests.presets import d, g, m
from tests.solutions.questions import grid, numeric_questions, params


def test_decode_step_roofline_large_batch_turns_compute_bound():
    # Llama-3-8B BF16 weights, FP8 KV, A100 80GB, batch 512, context 128
    # weights 8.03e9 x 2 = 16.06e9 B; KV 2 x 32 x 8 x 128 x 1 = 65,536 B/token
    #   x 128 x 512 = 4,294,967,296 B
    # memory: 20,354,967,296 / 2.039e12 = 9.9828 ms
    # compute: 2 x 8.03e9 x 512 = 8.22272e12 FLOP / 312e12 = 26.355 ms -> roofline 26.355 ms
    args = (m("llama-3-8b"), d("bf16"), d("fp8"), g("a100-80gb"), 512, 128)
    memory = latency.decode_step_time_with_kv(*args, "memory")
    roofline = latency.decode_step_time_with_kv(*args, "roofline")
    assert memory["answer"] == pytest.approx(9.9828e-3, rel=1e-4)
    assert roofline["answer"] == pytest.approx(26.355e-3, rel=1e-4)
    assert roofline["limit"] == "compute"
    # crossover: ridge 312 / 2.039 = 153.02; K / W = 8,388,608 / 16.06e9 = 5.2233e-4
    # 153.02 / (1 - 153.02 x 5.2233e-4) = 153.02 / 0.92007 = 166.3 -> 167
    assert roofline["critical_batch"] == 167


def test_decode_step_roofline_long_context_stays_memory_bound():
    # batch 16, context 512, BF16 KV on H100: KV 131,072 x 512 x 16 = 1,073,741,824 B
    # memory (16.06e9 + 1.0737e9) / 3.35e12 = 5.1145 ms; compute 2 x 8.03e9 x 16 / 989e12 =
    # 0.2598 ms -> both timing models give 5.1145 ms
    args = (m("llama-3-8b"), d("bf16"), d("bf16"), g("h100-sxm"), 16, 512)
    roofline = latency.decode_step_time_with_kv(*args, "roofline")
    assert roofline["answer"] == pytest.approx(5.1145e-3, rel=1e-4)
    assert roofline["answer"] == latency.decode_step_time_with_kv(*args, "memory")["answer"]
    assert roofline["limit"] == "memory"


def test_decode_critical_batch_is_infinite_when_kv_outweighs_weights_over_ridge():
    # K = 131,072 x 8192 = 1.0737e9 B per sequence; ridge x K / W = 295.2 x 0.06686 = 19.7 > 1
    got = latency.decode_step_time_with_kv(
        m("llama-3-8b"), d("bf16"), d("bf16"), g("h100-sxm"), 8, 8192, "roofline"
    )
    assert got["critical_batch"] == "∞"


def test_decode_batching_speedup_llama3_8b():
    # weights = 8.03e9 x 2 B = 16.06e9 B
    # KV/token = 2 x 32 layers x 8 kv_heads x 128 x 2 B = 131,072 B; x 4096 tokens = 536,870,912 B
    # step(1) = 16.06e9 + 0.536870912e9 = 16.596870912e9 B
    # step(64) = 16.06e9 + 64 x 0.536870912e9 = 16.06e9 + 34.359738368e9 = 50.419738368e9 B
    # speedup = 64 x 16.596870912 / 50.419738368 = 21.067...
    got = latency.decode_batching_speedup(m("llama-3-8b"), d("bf16"), d("bf16"), 64, 4096)
    assert got["kv_seq_bytes"] == 536_870_912
    assert got["answer"] == pytest.approx(64 * 16.596870912 / 50.419738368)
    assert got["answer"] == pytest.approx(21.067, abs=1e-3)
    assert got["efficiency"] == pytest.approx(got["answer"] / 64)


def test_decode_batching_speedup_is_one_at_batch_one_and_below_batch():
    # batch 1: 1 x step1 / step1 = 1 exactly; any batch > 1 gains less than the ideal B
    assert latency.decode_batching_speedup(m("qwen2.5-7b"), d("bf16"), d("fp8"), 1, 8192)[
        "answer"
    ] == pytest.approx(1.0)
    got = latency.decode_batching_speedup(m("qwen2.5-7b"), d("bf16"), d("fp8"), 32, 1024)
    assert 1 < got["answer"] < 32


def test_decode_step_time_llama3_8b_l40s():
    # 8.03e9 x 2 = 16.06e9 B / 864e9 B/s = 18.59 ms
    assert latency.decode_step_time(m("llama-3-8b"), d("bf16"), g("l40s"))[
        "answer"
    ] == pytest.approx(18.588e-3, rel=1e-4)


def test_decode_tokens_per_s_70b_fp8_h100():
    # 3350e9 / 70.6e9 = 47.45 tokens/s
    r = latency.decode_tokens_per_s(m("llama-3-70b"), d("fp8"), g("h100-sxm"))
    assert r["answer"] == pytest.approx(47.45, rel=1e-3)


def test_decode_step_time_with_kv_llama3_8b():
    # weights 16.06e9; KV 65536 (FP8) x 2048 x 8 = 1,073,741,824 B
    # (16.06e9 + 1.0737e9) / 3350e9 = 5.115 ms
    r = latency.decode_step_time_with_kv(
        m("llama-3-8b"), d("bf16"), d("fp8"), g("h100-sxm"), 8, 2048
    )
    assert r["kv_bytes"] == 1073741824
    assert r["answer"] == pytest.approx(5.1146e-3, rel=1e-4)


def test_decode_throughput_qwen7b_batch128():
    # weights 7.61e9 x 2 = 15.22e9; KV 57344 x 512 x 128 = 3,758,096,384 B
    # step = 18.978e9 / 3350e9 = 5.665 ms; 128 / 5.665 ms = 22594 tokens/s
    r = latency.decode_throughput(m("qwen2.5-7b"), d("bf16"), d("bf16"), g("h100-sxm"), 128, 512)
    assert r["answer"] == pytest.approx(22594.5, rel=1e-4)


def test_decode_arithmetic_intensity_int4_batch64():
    # 2 x 64 FLOP per weight / 0.5 B per weight = 256 FLOP/B
    assert latency.decode_arithmetic_intensity(64, d("int4"))["answer"] == 256


def test_decode_critical_batch_h100_int4():
    # ridge 295.2 x 0.5 B / 2 = 73.8
    assert latency.decode_critical_batch(g("h100-sxm"), d("int4"))["answer"] == pytest.approx(
        73.81, rel=1e-3
    )


def test_prefill_time_qwen7b_h200():
    # 2 x 7.61e9 x 8192 = 124.68e12 FLOP / (0.4 x 989e12 = 395.6e12) = 315.2 ms
    r = latency.prefill_time(m("qwen2.5-7b"), g("h200"), 8192, 0.4)
    assert r["answer"] == pytest.approx(0.31517, rel=1e-4)


def test_e2e_ttft_share():
    # 500 + 40 x 19 = 1260 ms; 500 / 1260 = 39.68 %
    assert latency.e2e_ttft_share(500, 40, 20)["answer"] == pytest.approx(0.39683, rel=1e-4)


# --- the grids of the questions ----------------------------------------------------------------


def test_decode_roofline_grid_fits_in_one_gpu_and_reaches_both_limits():
    limits = set()
    for combo in grid(params("calc-decode-step-with-kv")):
        got = latency.decode_step_time_with_kv(**combo)
        assert got["footprint"] <= 0.9 * combo["gpu"].memory_gb * 1e9, combo
        limits.add(got["limit"])
    assert limits == {"memory", "compute"}


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("latency"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
