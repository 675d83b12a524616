"""Hand-worked tests for solutions/communication.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution
from solutions import communication
from tests.presets import d, g, m
from tests.solutions.questions import grid, numeric_questions


@pytest.mark.parametrize(
    ("recompute", "allreduces", "sent"),
    [
        # S = 1 x 2048 x 4096 x 2 = 16,777,216 B; one ring AllReduce at TP 4 sends
        # 2 x 3/4 x S = 25,165,824 B
        ("none", 4, 100_663_296),  # 4 x 25,165,824
        ("selective", 4, 100_663_296),  # the attention core needs no TP communication
        ("full", 6, 150_994_944),  # + the 2 forward AllReduces rerun: 6 x 25,165,824
    ],
)
def test_tp_layer_allreduces_by_recomputation(recompute, allreduces, sent):
    got = communication.tp_train_layer_comm_time(
        m("llama-3-8b"), d("bf16"), 1, 2048, 4, 300, recompute
    )
    assert got["allreduces"] == allreduces
    assert got["sent"] == sent
    # 150,994,944 / 300e9 = 0.50332 ms; 100,663,296 / 300e9 = 0.33554 ms
    assert got["answer"] == pytest.approx(sent / 300e9)


def test_ring_share():
    # exact (p - 1)/p: 7/8 at 8 GPUs, 63/64 at 64; the large-p convention takes 1
    assert communication.ring_share(8) == 7 / 8
    assert communication.ring_share(64, "exact") == 63 / 64
    assert communication.ring_share(8, "large-p") == 1


def test_ring_allreduce_large_p_limit():
    # 1 GB on 8 GPUs at 450 GB/s: exact 2 x 7/8 x 1e9 = 1.75e9 B -> 3.889 ms;
    # large-p 2 x 1e9 = 2e9 B -> 4.444 ms, 1/7 = 14.3% more
    exact = communication.ring_allreduce_time(1, 8, 450, "exact")
    approx = communication.ring_allreduce_time(1, 8, 450, "large-p")
    assert exact["answer"] == pytest.approx(3.8889e-3, rel=1e-4)
    assert approx["answer"] == pytest.approx(4.4444e-3, rel=1e-4)
    assert approx["gap"] == pytest.approx(1 / 7)
    assert approx["exact_time"] == pytest.approx(exact["answer"])


def test_ring_allgather_large_p_limit():
    # 0.5 GB on 8 GPUs at 300 GB/s: exact 7/8 x 0.5e9 / 300e9 = 1.4583 ms; large-p 1.6667 ms
    assert communication.ring_allgather_time(0.5, 8, 300, "exact")["answer"] == pytest.approx(
        1.4583e-3, rel=1e-4
    )
    assert communication.ring_allgather_time(0.5, 8, 300, "large-p")["answer"] == pytest.approx(
        1.6667e-3, rel=1e-4
    )


def test_fsdp_step_bytes_large_p_limit():
    # Mixtral BF16: S = 46.7e9 x 2 = 93.4e9 B; large-p: 3 x S = 280.2e9 B (DDP 2 x S = 186.8e9);
    # exact at 8 GPUs: 3 x 7/8 x S = 245.175e9 B
    got = communication.fsdp_step_bytes(m("mixtral-8x7b"), d("bf16"), 8, "large-p")
    assert got["answer"] == pytest.approx(280.2e9)
    assert got["ddp"] == pytest.approx(186.8e9)
    exact = communication.fsdp_step_bytes(m("mixtral-8x7b"), d("bf16"), 8, "exact")
    assert exact["answer"] == pytest.approx(245.175e9)


def test_ddp_allreduce_large_p_limit():
    # Llama-2-7B BF16: S = 13.48e9 B; large-p 2 x S = 26.96e9 B / 50e9 = 0.5392 s
    # (exact: 2 x 7/8 x S = 23.59e9 B -> 0.4718 s)
    got = communication.ddp_allreduce_time(m("llama-2-7b"), d("bf16"), 8, 50, "large-p")
    assert got["answer"] == pytest.approx(0.5392)
    assert got["coefficient"] == 2


def test_ring_tree_crossover_8_gpus():
    # S* = 25e9 x 2e-6 x (8 - 1 - 3) / (3 - 7/8) = 50,000 x 4 / 2.125 = 94,117.6 B
    got = communication.ring_tree_crossover(8, 2, 25)
    assert got["answer"] == pytest.approx(50_000 * 4 / 2.125)
    # check: at S*, ring = 14 x 2us + 1.75 x S*/B equals tree = 6 x (2us + S*/B)
    s, bw, a = got["answer"], 25e9, 2e-6
    assert 14 * a + 1.75 * s / bw == pytest.approx(6 * (a + s / bw))


def test_tp_allreduce_bytes_per_token_llama3_70b():
    # 2 AllReduces x 8192 x 2 B = 32768 B per layer; x 80 layers = 2,621,440 B
    assert (
        communication.tp_allreduce_bytes_per_token(m("llama-3-70b"), d("bf16"))["answer"] == 2621440
    )


def test_tp_layer_allreduce_time_70b_tp4():
    # S = 8192 x 8192 x 2 = 134,217,728 B; sent = 2 x 2 x 3/4 x S = 402,653,184 B
    # 402.65e6 / 300e9 = 1.342 ms
    r = communication.tp_layer_allreduce_time(m("llama-3-70b"), d("bf16"), 8192, 4, 300)
    assert r["sent"] == 402653184
    assert r["answer"] == pytest.approx(1.3422e-3, rel=1e-4)


def test_ring_allreduce_time():
    # 2 x 7/8 x 1e9 = 1.75e9 B; / 450e9 B/s = 3.889 ms
    assert communication.ring_allreduce_time(1, 8, 450)["answer"] == pytest.approx(
        3.8889e-3, rel=1e-4
    )


def test_ring_allgather_time():
    # 7/8 x 0.5e9 = 0.4375e9 B; / 300e9 = 1.4583 ms
    assert communication.ring_allgather_time(0.5, 8, 300)["answer"] == pytest.approx(
        1.4583e-3, rel=1e-4
    )


def test_ddp_allreduce_time_llama2_7b():
    # 6.74e9 x 2 B = 13.48e9 B; x 2 x 7/8 = 23.59e9 B; / 50e9 = 0.4718 s
    got = communication.ddp_allreduce_time(m("llama-2-7b"), d("bf16"), 8, 50)
    assert got["answer"] == pytest.approx(0.4718, rel=1e-3)


def test_fsdp_step_bytes_is_one_and_a_half_ddp():
    # S = 46.7e9 x 2 = 93.4e9; 3 x 7/8 x 93.4e9 = 245.175e9; DDP 2 x 7/8 x 93.4e9 = 163.45e9
    got = communication.fsdp_step_bytes(m("mixtral-8x7b"), d("bf16"), 8)
    assert got["answer"] == pytest.approx(245.175e9)
    assert got["ddp"] == pytest.approx(163.45e9)


def test_tp_train_layer_comm_time():
    # S = 1 x 2048 x 4096 x 2 = 16,777,216 B; one ring AllReduce sends 2 x 3/4 x S = 25,165,824 B
    # 4 per layer (2 fwd + 2 bwd) = 100,663,296 B; / 300e9 = 0.33554 ms
    got = communication.tp_train_layer_comm_time(m("llama-3-8b"), d("bf16"), 1, 2048, 4, 300)
    assert got["sent"] == 100_663_296
    assert got["answer"] == pytest.approx(3.3554e-4, rel=1e-4)


def test_typed_nccl_tests_time_is_used_as_measured():
    # nccl-tests: AllReduce of 1024 MB in 4720 us on 8 GPUs -> algbw 216.95 GB/s x 1.75
    # = 379.66 GB/s, whatever true_busbw_gbps says
    got = communication.nccl_busbw_from_test(1024, 8, "AllReduce", 150, 4720)
    assert got["time_us"] == 4720
    assert got["answer"] == pytest.approx(379.66e9, rel=1e-4)


def test_nccl_busbw():
    # AllReduce, 8 GPUs: algbw = 1024e6 B / 4720e-6 s = 216.95 GB/s; x 2 x 7/8 = 379.66 GB/s
    got = communication.nccl_busbw(1024, 4720, 8, "AllReduce")
    assert got["answer"] == pytest.approx(379.66e9, rel=1e-4)
    # AllGather, 8 GPUs: factor 7/8
    assert communication.nccl_busbw(1024, 4720, 8, "AllGather")["factor"] == 7 / 8


def test_nccl_busbw_from_test_rounds_time():
    # 4096e6 x 1.75 / 150e9 = 47,786.7 us -> 47,800 us
    # busbw = 4096e6 / 47.8e-3 x 1.75 = 149.96 GB/s
    got = communication.nccl_busbw_from_test(4096, 8, "AllReduce", 150)
    assert got["time_us"] == 47_800
    assert got["answer"] == pytest.approx(149.958e9, rel=1e-4)


def test_ring_allreduce_alpha_beta():
    # latency 2 x 255 x 5 us = 2550 us; bandwidth 2 x 255/256 x 1e6 / 50e9 = 39.84 us
    # total 2589.84 us
    got = communication.ring_allreduce_alpha_beta(1, 256, 50, 5)
    assert got["answer"] == pytest.approx(2589.84e-6, rel=1e-5)


def test_p2p_transfer_time():
    # H100: NVLink 900/2 = 450 GB/s -> 16e9 / 450e9 = 35.56 ms; PCIe 64 GB/s -> 250 ms
    got = communication.p2p_transfer_time(16, g("h100-sxm"), "NVLink")
    assert got["answer"] == pytest.approx(35.556e-3, rel=1e-4)
    assert communication.p2p_transfer_time(16, g("h100-sxm"), "PCIe")["answer"] == pytest.approx(
        0.25
    )
    # ratio on H100: 450 / 64 = 7.03x (on A100 it would be 300 / 32 = 9.4x)
    assert got["ratio"] == pytest.approx(450 / 64)


# --- the grids of the questions ----------------------------------------------------------------


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("communication"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
