"""Hand-worked tests for solutions/serving.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution
from solutions import serving
from tests.presets import d, g, m
from tests.solutions.questions import grid, numeric_questions


def test_kv_transfer_time_qwen7b():
    # 57344 B x 4096 = 234,881,024 B / 25e9 = 9.395 ms
    r = serving.kv_transfer_time(m("qwen2.5-7b"), d("bf16"), 4096, 25)
    assert r["answer"] == pytest.approx(9.3952e-3, rel=1e-4)


def test_pd_link_bandwidth_qwen7b_h100():
    # prefill per token 2 x 7.61e9 / (0.5 x 989e12) = 30.78 us; KV 57344 B
    # 57344 / (0.1 x 30.78e-6) = 18.63e9 B/s (149 Gb/s)
    r = serving.pd_link_bandwidth(m("qwen2.5-7b"), d("bf16"), g("h100-sxm"), 0.5, 0.1)
    assert r["answer"] == pytest.approx(18.63e9, rel=1e-3)
    assert r["gbit_per_s"] == pytest.approx(149.1, rel=1e-3)


def test_chunked_prefill_steps():
    # chunk = 8192 - 32 = 8160; 20000 / 8160 = 2.45 -> 3 steps; last chunk = 20000 - 2*8160 = 3680
    r = serving.chunked_prefill_steps(20000, 8192, 32)
    assert r["answer"] == 3
    assert r["chunk"] == 8160
    assert r["last_chunk"] == 3680


def test_chunked_prefill_steps_exact_multiple_does_not_round_up():
    # chunk = 2048 - 48 = 2000; 10000 / 2000 = 5 exactly -> 5 steps, last chunk 2000
    r = serving.chunked_prefill_steps(10000, 2048, 48)
    assert r["answer"] == 5
    assert r["last_chunk"] == 2000


def test_chunked_prefill_steps_budget_exhausted():
    with pytest.raises(ValueError):
        serving.chunked_prefill_steps(1000, 64, 64)


def test_prefill_stall_ratio_h100():
    # ratio = 2 x P x BW / (mfu x peak x bytes) = 2 x 8192 x 3.35e12 / (0.5 x 989e12 x 2)
    #       = 5.48864e16 / 9.89e14 = 55.497
    r = serving.prefill_stall_ratio(m("llama-3-8b"), d("bf16"), g("h100-sxm"), 8192, 0.5)
    assert r["answer"] == pytest.approx(55.497, rel=1e-4)
    # prefill = 2 x 8.03e9 x 8192 / 4.945e14 = 0.26605 s; step = 16.06e9 / 3.35e12 = 4.794 ms
    assert r["prefill"] == pytest.approx(0.26605, rel=1e-4)
    assert r["step"] == pytest.approx(4.794e-3, rel=1e-3)


def test_continuous_vs_static_ratio():
    # static: (2000 + 31 x 200) / 2000 = 8200 / 2000 = 4.1 tokens/step; continuous 32
    # ratio = 32 / 4.1 = 7.8049
    r = serving.continuous_vs_static_ratio(32, 2000, 200)
    assert r["static"] == pytest.approx(4.1)
    assert r["answer"] == pytest.approx(32 / 4.1)
    # utilization = 8200 / 64000 = 0.128125
    assert r["utilization"] == pytest.approx(0.128125)


def test_continuous_vs_static_equal_lengths_is_one():
    # all outputs 500 long: static = (500 + 7 x 500) / 500 = 8 tokens/step = batch -> ratio 1
    assert serving.continuous_vs_static_ratio(8, 500, 500)["answer"] == pytest.approx(1.0)


def test_burst_mean_ttft():
    # rate = 0.5 x 989e12 / (2 x 8.03e9) = 30,790.8 tokens/s
    # t_p = 2048 / 30790.8 = 0.066513 s; mean = 0.066513 x 33 / 2 = 1.09747 s;
    # last = 32 t_p = 2.1284 s
    r = serving.burst_mean_ttft(m("llama-3-8b"), g("h100-sxm"), 0.5, 32, 2048)
    assert r["tokens_per_s"] == pytest.approx(30790.8, rel=1e-5)
    assert r["answer"] == pytest.approx(1.09747, rel=1e-4)
    assert r["last"] == pytest.approx(2.12843, rel=1e-4)


def test_littles_law_concurrency():
    # E2E = 0.3 + 399 x 0.03 = 12.27 s; L = 20 x 12.27 = 245.4
    r = serving.littles_law_concurrency(20, 300, 30, 400)
    assert r["e2e"] == pytest.approx(12.27)
    assert r["answer"] == pytest.approx(245.4)


def test_pp_decode_throughput():
    # p=4, m=2, b=64, t=10 ms: cycle = max(2,4) x 10 ms = 40 ms; 2 x 64 / 0.04 = 3200 tokens/s
    r = serving.pp_decode_throughput(4, 2, 64, 10)
    assert r["answer"] == pytest.approx(3200)
    assert r["tpot"] == pytest.approx(0.04)
    assert r["busy"] == pytest.approx(0.5)
    # m=8 >= p=4: cycle = 8 x 5 ms = 40 ms; 8 x 64 / 0.04 = 12800 = b / t = 64 / 0.005
    assert serving.pp_decode_throughput(4, 8, 64, 5)["answer"] == pytest.approx(12800)


def test_pd_decode_instances():
    # prefill: 2 / 0.25 = 8 req/s; decode: 128 / (500 x 0.04 s = 20 s) = 6.4 req/s;
    # 8 / 6.4 = 1.25 -> 2
    r = serving.pd_decode_instances(2, 0.25, 128, 501, 40)
    assert r["arrival"] == pytest.approx(8)
    assert r["per_decode"] == pytest.approx(6.4)
    assert r["answer"] == 2


def test_pd_decode_instances_exact_ratio_not_rounded_up():
    # prefill: 2 / 0.2 = 10 req/s; decode: 64 / (200 x 0.032 s = 6.4 s) = 10 req/s -> exactly 1
    r = serving.pd_decode_instances(2, 0.2, 64, 201, 32)
    assert r["exact"] == pytest.approx(1.0)
    assert r["answer"] == 1
    # prefill: 2 / 0.1 = 20 req/s; decode: 32 / (200 x 0.05 s = 10 s) = 3.2 req/s -> 6.25 -> 7
    assert serving.pd_decode_instances(2, 0.1, 32, 201, 50)["answer"] == 7


# --- the grids of the questions ----------------------------------------------------------------


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("serving"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
