"""Hand-worked tests for solutions/parallelism.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution
from solutions import parallelism
from tests.presets import d, g, m
from tests.solutions.questions import grid, numeric_questions


def test_bubble_fraction_both_measures():
    # 3 idle slots against 12 busy: 3 / 15 = 20% of the step, 3 / 12 = 25% over compute
    assert parallelism.bubble_fraction(3, 12, "step-share") == pytest.approx(0.2)
    assert parallelism.bubble_fraction(3, 12, "over-compute") == pytest.approx(0.25)


def test_pipeline_bubble_over_compute():
    # p = 8, m = 32: Megatron's (p - 1)/m = 7/32 = 21.875%; the step share is 7/39 = 17.95%
    got = parallelism.pipeline_bubble(8, 32, "over-compute")
    assert got["answer"] == pytest.approx(7 / 32)
    assert got["share"] == pytest.approx(7 / 39)


def test_interleaved_bubble_over_compute():
    # p = 8, m = 8, v = 2: 7 / (2 x 8) = 43.75%; without interleaving 7/8 = 87.5%
    got = parallelism.interleaved_bubble(8, 8, 2, "over-compute")
    assert got["answer"] == pytest.approx(7 / 16)
    assert got["plain"] == pytest.approx(7 / 8)
    assert got["share"] == pytest.approx(7 / 23)


@pytest.mark.parametrize(
    ("stages", "target", "m"),
    [(16, 0.2, 75), (8, 0.05, 140), (4, 0.1, 30)],  # (p - 1) / f exactly: 15/0.2, 7/0.05, 3/0.1
)
def test_microbatches_for_bubble_over_compute(stages, target, m):
    got = parallelism.microbatches_for_bubble(stages, target, "over-compute")
    assert got["answer"] == m
    assert got["achieved"] == pytest.approx(target)


def test_ulysses_alltoall_llama3_8b():
    # local tokens 131072 / 8 = 16,384; channels (2x32 + 2x8) x 128 = 10,240
    # local = 16,384 x 10,240 x 2 B = 335,544,320 B; sent = 7/8 x that = 293,601,280 B
    got = parallelism.ulysses_alltoall_bytes(m("llama-3-8b"), d("bf16"), 131072, 1, 8)
    assert got["channels"] == 10_240
    assert got["answer"] == 293_601_280


def test_ring_attention_llama3_8b():
    # block = 2 x 16,384 x 8 x 128 x 2 B = 67,108,864 B; 7 steps -> 469,762,048 B
    got = parallelism.ring_attention_bytes(m("llama-3-8b"), d("bf16"), 131072, 1, 8)
    assert got["block"] == 67_108_864
    assert got["answer"] == 469_762_048


def test_microbatches_per_step():
    # DP = 1024 / (8 x 8) = 16; 1024 / 16 = 64 sequences per replica; micro-batch 1 -> m = 64
    # bubble = 7 / (64 + 7) = 0.0986
    got = parallelism.microbatches_per_step(1024, 1, 1024, 8, 8)
    assert got["answer"] == 64
    assert got["bubble"] == pytest.approx(7 / 71)


def test_fsdp_overlap_tokens_h100():
    # 989e12 x 0.5 / 50e9 = 9,890 tokens; x 63/64 = 9,735.47
    got = parallelism.fsdp_overlap_tokens(g("h100-sxm"), 64, 50, 0.5)
    assert got["answer"] == pytest.approx(9890 * 63 / 64)


def test_pipeline_bubble():
    # (8 - 1) / (32 + 8 - 1) = 7 / 39 = 0.17949
    assert parallelism.pipeline_bubble(8, 32)["answer"] == pytest.approx(7 / 39)


def test_interleaved_bubble():
    # (8 - 1) / (2 x 8 + 8 - 1) = 7 / 23 = 0.30435; plain 7 / 15
    got = parallelism.interleaved_bubble(8, 8, 2)
    assert got["answer"] == pytest.approx(7 / 23)
    assert got["plain"] == pytest.approx(7 / 15)


def test_microbatches_for_bubble_exact_boundary():
    # p = 16, f = 0.2: 15 x 0.8 / 0.2 = 60 exactly (float gives 59.99999...) -> 60
    # bubble 15 / 75 = 20%
    got = parallelism.microbatches_for_bubble(16, 0.2)
    assert got["answer"] == 60
    assert got["achieved"] == pytest.approx(0.2)
    # p = 8, f = 0.05: 7 x 0.95 / 0.05 = 133 -> 133
    assert parallelism.microbatches_for_bubble(8, 0.05)["answer"] == 133
    # p = 4, f = 0.1: 3 x 0.9 / 0.1 = 27 -> 27
    assert parallelism.microbatches_for_bubble(4, 0.1)["answer"] == 27


# --- the grids of the questions ----------------------------------------------------------------


def test_layouts_divide_evenly():
    # every GPU count is a multiple of TP x PP, and every global batch splits into whole
    # micro-batches
    for q in numeric_questions():
        if q["id"] == "calc-3d-gradient-accumulation-steps":
            for c in grid(q["params"]):
                dp = c["gpus"] // (c["tp"] * c["pp"])
                assert c["gpus"] % (c["tp"] * c["pp"]) == 0, c
                assert c["global_batch"] % (dp * c["micro_batch"]) == 0, c
        if q["id"] == "calc-3d-parallel-states-per-gpu":
            for c in grid(q["params"]):
                assert c["gpus"] % (c["tp"] * c["pp"]) == 0, c
        if q["id"] in ("calc-ulysses-alltoall-bytes", "calc-ring-attention-kv-traffic"):
            for c in grid(q["params"]):
                p = c.get("sp") or c.get("cp")
                assert c["seq"] % p == 0, c
                if "sp" in c:
                    assert c["model"].kv_heads % p == 0 and c["model"].heads % p == 0, c


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("parallelism"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
