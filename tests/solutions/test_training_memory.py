"""Hand-worked tests for solutions/training_memory.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution
from solutions import training_memory
from tests.presets import g, m
from tests.solutions.questions import grid, numeric_questions, params


@pytest.mark.parametrize(
    ("accounting", "optim", "total"),
    [
        ("fp32-master-fp32-moments", 12, 16),  # 4 + 4 + 4; + 2 + 2
        ("fp32-master-bf16-moments", 8, 12),  # 4 + 2 + 2
        ("no-master-fp32-moments", 8, 12),  # 0 + 4 + 4
        ("fp32-master-8bit-moments", 6, 10),  # 4 + 1 + 1
    ],
)
def test_accountings_bytes_per_parameter(accounting, optim, total):
    assert training_memory.optimizer_bytes(accounting)["per_param"] == optim
    assert training_memory.adam_mixed_bytes(m("llama-3-8b"), accounting)["per_param"] == total


def test_adam_model_states_llama3_8b_each_accounting():
    # 8.03e9 x 16 = 128.48e9; x 12 = 96.36e9; x 10 = 80.3e9
    model = m("llama-3-8b")
    assert training_memory.adam_mixed_bytes(model)["answer"] == pytest.approx(128.48e9)
    assert training_memory.adam_mixed_bytes(model, "fp32-master-bf16-moments")[
        "answer"
    ] == pytest.approx(96.36e9)
    assert training_memory.adam_mixed_bytes(model, "fp32-master-8bit-moments")[
        "answer"
    ] == pytest.approx(80.3e9)


def test_optimizer_state_70b_each_accounting():
    # 70.6e9 x 12 = 847.2e9 (75% of 16 B); x 8 = 564.8e9 (8 / 12 = 66.7%); x 6 = 423.6e9 (60%)
    model = m("llama-3-70b")
    got = training_memory.optimizer_state_bytes(model)
    assert got["answer"] == pytest.approx(847.2e9)
    assert got["share"] == 0.75
    got = training_memory.optimizer_state_bytes(model, "no-master-fp32-moments")
    assert got["answer"] == pytest.approx(564.8e9)
    assert got["master"] == 0
    assert got["share"] == pytest.approx(8 / 12)
    got = training_memory.optimizer_state_bytes(model, "fp32-master-8bit-moments")
    assert got["answer"] == pytest.approx(423.6e9)
    assert got["static"] == pytest.approx(706e9)
    assert got["baseline"] == pytest.approx(847.2e9)


def test_zero_per_gpu_under_other_accountings():
    # Llama-3-70B, ZeRO-3 over 32, no master copy: (2 + 2 + 8) / 32 = 0.375 B/param
    # -> 70.6e9 x 0.375 = 26.475e9 B; DDP would need 12 x 70.6e9 = 847.2e9
    got = training_memory.zero_bytes_per_gpu(m("llama-3-70b"), 32, 3, "no-master-fp32-moments")
    assert got["answer"] == pytest.approx(26.475e9)
    assert got["ddp"] == pytest.approx(847.2e9)
    # ZeRO-1 over 64 with BF16 moments: 2 + 2 + 8/64 = 4.125 B/param -> 291.225e9 B
    got = training_memory.zero_bytes_per_gpu(m("llama-3-70b"), 64, 1, "fp32-master-bf16-moments")
    assert got["answer"] == pytest.approx(291.225e9)
    # the default is the ZeRO paper's 16 bytes: stage 1 over 64 = 4.1875 B/param
    assert training_memory.zero_state_bytes_per_param(64, 1) == (2.0, 2.0, 12 / 64)


@pytest.mark.parametrize(
    ("accounting", "size"),
    [
        ("fp32-master-fp32-moments", 5_681.9e9),  # 405.85e9 x (2 + 12) = 5.68 TB
        ("fp32-master-bf16-moments", 4_058.5e9),  # x (2 + 8)
        ("no-master-fp32-moments", 4_058.5e9),  # x (2 + 8)
        ("fp32-master-8bit-moments", 3_246.8e9),  # x (2 + 6)
    ],
)
def test_checkpoint_bytes_405b(accounting, size):
    got = training_memory.checkpoint_bytes(m("llama-3.1-405b"), accounting)
    assert got["answer"] == pytest.approx(size)
    assert got["weights"] == pytest.approx(811.7e9)  # 2 x 405.85e9, saved every time


def test_offload_cpu_memory_zero_offload_qwen32b_two_nodes():
    # ZeRO-Offload: 14 B/param on the host, partitioned over 16 ranks:
    # 14 x 32.76e9 / 16 = 28.665e9 per rank, x 8 per node = 229.32e9 B
    # each GPU keeps the BF16 weights: 2 x 32.76e9 = 65.52e9 B;
    # ZeRO-2 without offload would keep (2 + 14/16) x 32.76e9 = 94.185e9 B per GPU
    got = training_memory.offload_cpu_bytes_per_node(m("qwen2.5-32b"), 2, 8, "optimizer")
    assert got["answer"] == pytest.approx(229.32e9)
    assert got["per_rank"] == pytest.approx(28.665e9)
    assert got["gpu_weights"] == pytest.approx(65.52e9)
    assert got["gpu_without_offload"] == pytest.approx(94.185e9)


def test_offload_cpu_memory_zero_infinity_qwen32b_two_nodes():
    # all 16 B/param on the host: 16 x 32.76e9 / 2 nodes = 262.08e9 B per node;
    # ZeRO-3 without offload: 16 / 16 x 32.76e9 = 32.76e9 B per GPU
    got = training_memory.offload_cpu_bytes_per_node(m("qwen2.5-32b"), 2, 8, "optimizer-and-params")
    assert got["answer"] == pytest.approx(262.08e9)
    assert got["gpu_weights"] == 0
    assert got["gpu_without_offload"] == pytest.approx(32.76e9)


@pytest.mark.parametrize(
    ("recompute", "total"),
    [
        # Llama-3-70B, s = 4096, b = 1, t = 8: sbh = 4096 x 8192 = 33,554,432; 5as/h = 160
        ("none", 65_095_598_080),  # 33,554,432 x 194 / 8 = 813,694,976 per layer x 80
        ("selective", 11_408_506_880),  # 33,554,432 x 34 / 8 = 142,606,336 x 80
        ("full", 671_088_640),  # 2 x 33,554,432 / 8 = 8,388,608 x 80
    ],
)
def test_activation_bytes_recompute_70b_tp8(recompute, total):
    got = training_memory.activation_bytes_recompute(m("llama-3-70b"), 4096, 1, 8, recompute)
    assert got["score_term"] == 160
    assert got["answer"] == total


@pytest.mark.parametrize(("stage", "expected"), [(0, 16.0), (1, 5.5), (2, 3.75), (3, 2.0)])
def test_zero_bytes_per_param_dp8(stage: int, expected: float) -> None:
    # dp=8: stage 1 = 2 + 2 + 12/8 = 5.5; stage 2 = 2 + 14/8 = 3.75; stage 3 = 16/8 = 2
    assert training_memory.zero_bytes_per_param(8, stage) == pytest.approx(expected)


def test_zero_state_bytes_per_param_splits_the_16_bytes() -> None:

    # dp=4, stage 2: weights 2, grads 2/4 = 0.5, optimizer 12/4 = 3
    assert training_memory.zero_state_bytes_per_param(4, 2) == (2.0, 0.5, 3.0)
    # stage 0 keeps all 2 + 2 + 12 = 16 bytes on every GPU
    assert sum(training_memory.zero_state_bytes_per_param(4, 0)) == 16.0


def test_megatron_activation_llama2_7b():
    # sbh = 2048 x 1 x 4096 = 8,388,608; 5as/h = 5 x 32 x 2048 / 4096 = 80
    # per layer = 8,388,608 x 114 = 956,301,312 B; x 32 layers = 30,601,641,984 B (30.6 GB)
    # full recompute: 2 x 8,388,608 x 32 = 536,870,912 B
    got = training_memory.megatron_activation_bytes(m("llama-2-7b"), 2048, 1)
    assert got["score_term"] == 80
    assert got["answer"] == 30_601_641_984
    assert got["full_recompute"] == 536_870_912


def test_three_d_states_405b():
    # DP = 1024 / (8 x 16) = 8; shard = 405.85e9 / 128 = 3.170703125e9
    # bytes/param = 2 + 2 + 12/8 = 5.5 -> 17,438,867,187.5 B (17.4 GB)
    got = training_memory.three_d_states_per_gpu(m("llama-3.1-405b"), 1024, 8, 16)
    assert got["dp"] == 8
    assert got["answer"] == pytest.approx(17_438_867_187.5)


def test_adam_step_time_h100():
    # 1e9 params x 28 B = 28e9 B / 3350e9 B/s = 8.358 ms
    got = training_memory.adam_step_time(1e9, g("h100-sxm"))
    assert got["per_param"] == 28
    assert got["answer"] == pytest.approx(28 / 3350)


def test_adam_mixed_bytes_llama3_8b():
    # 16 B x 8.03e9 = 128.48e9 B
    assert training_memory.adam_mixed_bytes(m("llama-3-8b"))["answer"] == pytest.approx(128.48e9)


def test_optimizer_state_bytes_70b():
    # 12 B x 70.6e9 = 847.2e9 B, 75% of 16 B x 70.6e9 = 1129.6e9 B
    got = training_memory.optimizer_state_bytes(m("llama-3-70b"))
    assert got["answer"] == pytest.approx(847.2e9)
    assert got["share"] == 0.75


@pytest.mark.parametrize(
    ("stage", "expected"),
    [
        # 70.6e9 x (2 + 2 + 12/64) = 70.6e9 x 4.1875 = 295.64e9
        (1, 295.6375e9),
        # 70.6e9 x (2 + 14/64) = 70.6e9 x 2.21875 = 156.64e9
        (2, 156.64375e9),
        # 70.6e9 x 16/64 = 17.65e9
        (3, 17.65e9),
    ],
)
def test_zero_bytes_per_gpu_70b_dp64(stage, expected):
    assert training_memory.zero_bytes_per_gpu(m("llama-3-70b"), 64, stage)[
        "answer"
    ] == pytest.approx(expected)


def test_zero3_min_gpus_70b_h200():
    # 16 x 70.6e9 = 1129.6e9 B; 141e9 x 0.5 = 70.5e9 B per GPU; 1129.6 / 70.5 = 16.02 -> 17
    got = training_memory.zero3_min_gpus(m("llama-3-70b"), g("h200"), 0.5)
    assert got["answer"] == 17


def test_zero_max_params_stage2_dp8():
    # 80e9 x 0.7 = 56e9 B; 2 + 14/8 = 3.75 B/param; 56e9 / 3.75 = 14.933e9 params
    got = training_memory.zero_max_params(80, 8, 2, 0.7)
    assert got["answer"] == pytest.approx(14.9333e9, rel=1e-4)
    # stage 3 over 512: 16/512 = 0.03125 B/param -> 56e9 / 0.03125 = 1.792e12
    assert training_memory.zero_max_params(80, 512, 3, 0.7)["answer"] == pytest.approx(1.792e12)


# --- the grids of the questions ----------------------------------------------------------------


def test_offload_grid_keeps_the_bf16_weights_within_an_80gb_gpu():
    for combo in grid(params("calc-zero-offload-cpu-memory")):
        assert training_memory.offload_cpu_bytes_per_node(**combo)["gpu_weights"] <= 80e9, combo


def test_zero3_min_gpus_never_near_an_integer():
    for combo in grid(params("calc-zero3-min-gpus")):
        exact = training_memory.zero3_min_gpus(**combo)["exact"]
        # an exact fit (e.g. 2800 GB / 20 GB = 140) is fine; only "just above/below" is ambiguous
        assert abs(exact - round(exact)) < 1e-9 or abs(exact - round(exact)) > 0.01, combo


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("training_memory"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
