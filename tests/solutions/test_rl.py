"""Hand-worked tests for solutions/rl.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from solutions import rl
from tests.presets import m
from tests.solutions.questions import grid, numeric_questions, question

ALL = "all linear layers (q, k, v, o, gate, up, down)"
ATTN = "all four attention projections (q, k, v, o)"
QV = "q_proj and v_proj"


def test_ppo_model_states_7b_policy_3b_rm():
    # actor 7e9 x 16 = 112e9; critic 3e9 x 16 = 48e9; reference 7e9 x 2 = 14e9; RM 3e9 x 2 = 6e9
    # total = 112 + 48 + 14 + 6 = 180 GB; GRPO keeps actor + reference = 126 GB
    got = rl.ppo_model_state_bytes(policy_b=7, rm_b=3, trained_bytes=16, frozen_bytes=2)
    assert got["answer"] == pytest.approx(180e9)
    assert got["critic"] == pytest.approx(48e9)
    assert got["grpo"] == pytest.approx(126e9)
    assert got["trained_share"] == pytest.approx(160 / 180)


def test_ppo_model_states_70b_fp32_grads():
    # (70 + 7)e9 trained x 18 + (70 + 7)e9 frozen x 2 = 77e9 x 20 = 1,540 GB
    got = rl.ppo_model_state_bytes(policy_b=70, rm_b=7, trained_bytes=18, frozen_bytes=2)
    assert got["answer"] == pytest.approx(1540e9)
    assert got["gpus_80gb"] == pytest.approx(1540 / 80)


def test_rollout_share_worked_example():
    # sequences 256 x 8 = 2,048; generated 2,048 x 8,192 = 16,777,216 tokens
    # rollout = 16,777,216 / (128 x 1,500 = 192,000 tok/s) = 87.3813 s
    # trained tokens 2,048 x (1,024 + 8,192) = 18,874,368; FLOPs 8 x 7e9 x 18,874,368 = 1.05696e18
    # training = 1.05696e18 / (128 x 400e12 = 5.12e16) = 20.6438 s
    # share = 87.3813 / 108.0252 = 0.80890
    got = rl.rl_step_rollout_share(
        n_b=7,
        prompts=256,
        samples=8,
        prompt_len=1024,
        resp_len=8192,
        gpus=128,
        decode_tps_per_gpu=1500,
        achieved_tflops=400,
        flops_factor=8,
    )
    assert got["gen_tokens"] == 16_777_216
    assert got["train_tokens"] == 18_874_368
    assert got["t_rollout"] == pytest.approx(16_777_216 / 192_000)
    assert got["t_train"] == pytest.approx(8 * 7e9 * 18_874_368 / 5.12e16)
    assert got["answer"] == pytest.approx(0.80890, abs=1e-5)


def test_rollout_share_independent_of_batch_and_gpus():
    # t_rollout / t_train = resp x F / (tps x f x N x (prompt + resp)),
    # free of prompts, samples and gpus:
    # 2048 x 300e12 / (3000 x 8 x 14e9 x 3072) = 0.59524 -> share = 0.59524 / 1.59524 = 0.37313
    kwargs = dict(
        n_b=14,
        prompt_len=1024,
        resp_len=2048,
        decode_tps_per_gpu=3000,
        achieved_tflops=300,
        flops_factor=8,
    )
    a = rl.rl_step_rollout_share(prompts=256, samples=8, gpus=64, **kwargs)["answer"]
    b = rl.rl_step_rollout_share(prompts=512, samples=16, gpus=128, **kwargs)["answer"]
    ratio = 2048 * 300e12 / (3000 * 8 * 14e9 * 3072)
    assert a == pytest.approx(b)
    assert a == pytest.approx(ratio / (1 + ratio))


def test_weight_sync_llama3_8b_one_nic():
    # 8.03e9 x 2 B = 16.06e9 B; 200 Gb/s / 8 = 25e9 B/s x 0.8 = 20e9 B/s -> 0.803 s
    got = rl.weight_sync_seconds(
        m("llama-3-8b"), dtype_bytes=2, nics=1, nic_gbit=200, efficiency=0.8
    )
    assert got["size"] == pytest.approx(16.06e9)
    assert got["per_nic"] == pytest.approx(25e9)
    assert got["answer"] == pytest.approx(0.803)


def test_weight_sync_deepseek_v3_eight_nics():
    # 671e9 x 2 B = 1,342e9 B; 8 x 50e9 x 0.8 = 320e9 B/s -> 4.19375 s; one NIC: 33.55 s
    got = rl.weight_sync_seconds(
        m("deepseek-v3"), dtype_bytes=2, nics=8, nic_gbit=400, efficiency=0.8
    )
    assert got["answer"] == pytest.approx(4.19375)
    assert got["one_nic"] == pytest.approx(33.55)


def test_gae_lambda_one_is_return_minus_baseline():
    # r = (-0.02, -0.05, 0.6), V = (0.5, 0.4, 0.8), gamma = lambda = 1
    # d2 = 0.6 - 0.8 = -0.2; d1 = -0.05 + 0.8 - 0.4 = 0.35; d0 = -0.02 + 0.4 - 0.5 = -0.12
    # A0 = -0.12 + 0.35 - 0.2 = 0.03 = (-0.02 - 0.05 + 0.6) - 0.5
    got = rl.gae_first_advantage(-0.02, -0.05, 0.6, 0.5, 0.4, 0.8, gamma=1.0, lam=1.0)
    assert got["d2"] == pytest.approx(-0.2)
    assert got["d1"] == pytest.approx(0.35)
    assert got["d0"] == pytest.approx(-0.12)
    assert got["answer"] == pytest.approx(0.03)
    assert got["answer"] == pytest.approx(got["mc"])


def test_gae_discounted():
    # r = (0, 0, 1), V = (0.5, 0.6, 0.8), gamma 0.99, lambda 0.95 -> gl = 0.9405
    # d2 = 1 - 0.8 = 0.2; d1 = 0.99 x 0.8 - 0.6 = 0.192; d0 = 0.99 x 0.6 - 0.5 = 0.094
    # A1 = 0.192 + 0.9405 x 0.2 = 0.3801; A0 = 0.094 + 0.9405 x 0.3801 = 0.45148405
    got = rl.gae_first_advantage(0.0, 0.0, 1.0, 0.5, 0.6, 0.8, gamma=0.99, lam=0.95)
    assert got["a1"] == pytest.approx(0.3801)
    assert got["answer"] == pytest.approx(0.45148405)
    assert got["ret0"] == pytest.approx(0.95148405)


def test_grpo_population_std():
    # [1,0,0,1,0,0,0,1]: mean 3/8 = 0.375; squared deviations 3 x 0.390625 + 5 x 0.140625 = 1.875
    # population sigma = sqrt(1.875 / 8) = 0.484123; response 1: 0.625 / 0.484123 = 1.290994
    got = rl.grpo_advantage([1, 0, 0, 1, 0, 0, 0, 1], 1, "mean and std", "population")
    assert got["mean"] == pytest.approx(0.375)
    assert got["sigma"] == pytest.approx(math.sqrt(1.875 / 8))
    assert got["answer"] == pytest.approx(1.290994, abs=1e-6)


def test_grpo_sample_std_and_mean_only():
    # sample sigma = sqrt(1.875 / 7) = 0.517549 -> 0.625 / 0.517549 = 1.207615
    got = rl.grpo_advantage([1, 0, 0, 1, 0, 0, 0, 1], 1, "mean and std", "sample")
    assert got["answer"] == pytest.approx(1.207615, abs=1e-6)
    # mean only, response 2 (reward 0): 0 - 0.375 = -0.375
    got = rl.grpo_advantage([1, 0, 0, 1, 0, 0, 0, 1], 2, "mean only", "sample")
    assert got["answer"] == pytest.approx(-0.375)


def test_grpo_advantages_sum_to_zero():
    rewards = [0.9, 0.2, 0.5, 0.4]
    total = sum(
        rl.grpo_advantage(rewards, i, "mean and std", "population")["answer"] for i in range(1, 5)
    )
    assert total == pytest.approx(0.0, abs=1e-12)


def test_grpo_rejects_unknown_convention():
    with pytest.raises(ValueError):
        rl.grpo_advantage([1, 0], 1, "mean and std", "median")


def test_dpo_loss_negative_margin():
    # chosen -42.5 - (-41) = -1.5; rejected -46 - (-45) = -1; margin -0.5; z = 0.5 x -0.5 = -0.25
    # loss = log(1 + e^0.25) = log(2.2840254) = 0.8259394
    got = rl.dpo_loss(beta=0.5, pol_w=-42.5, ref_w=-41.0, pol_l=-46.0, ref_l=-45.0)
    assert got["margin"] == pytest.approx(-0.5)
    assert got["answer"] == pytest.approx(0.8259394, abs=1e-6)


def test_dpo_loss_positive_margin_and_init():
    # chosen -39 - (-42) = 3; rejected -46 - (-45) = -1; margin 4; z = 0.4
    # loss = log(1 + e^-0.4) = log(1.6703200) = 0.5130153
    got = rl.dpo_loss(beta=0.1, pol_w=-39.0, ref_w=-42.0, pol_l=-46.0, ref_l=-45.0)
    assert got["answer"] == pytest.approx(0.5130153, abs=1e-6)
    # policy = reference: z = 0, loss = ln 2
    assert rl.dpo_loss(0.1, -40.0, -40.0, -45.0, -45.0)["answer"] == pytest.approx(math.log(2))


def test_lora_params_llama3_8b_all_linear():
    # q, o: 16 x (4096 + 4096) = 131,072 each; k, v: 16 x (4096 + 1024) = 81,920 each
    # gate, up, down: 16 x (4096 + 14336) = 294,912 each
    # layer = 2 x 131,072 + 2 x 81,920 + 3 x 294,912 = 1,310,720; x 32 = 41,943,040 (PEFT's figure)
    got = rl.lora_params(m("llama-3-8b"), 16, ALL)
    assert got["per_layer"] == 1_310_720
    assert got["answer"] == 41_943_040
    assert got["fraction"] == pytest.approx(41_943_040 / 8.03e9)


def test_lora_params_llama2_7b_qv_rank8():
    # MHA: q and v are 4096 x 4096: 8 x 8192 = 65,536 each -> 131,072 per layer x 32 = 4,194,304
    got = rl.lora_params(m("llama-2-7b"), 8, QV)
    assert got["answer"] == 4_194_304


def test_lora_params_llama3_70b_attention():
    # q, o: 16 x (8192 + 8192) = 262,144; k, v: 16 x (8192 + 1024) = 147,456
    # layer = 2 x 262,144 + 2 x 147,456 = 819,200; x 80 = 65,536,000
    got = rl.lora_params(m("llama-3-70b"), 16, ATTN)
    assert got["answer"] == 65_536_000


def test_lora_memory_bf16_and_nf4():
    # adapters 41,943,040 x 16 B = 671,088,640 B
    # BF16 base: 8.03e9 x 2 = 16.06e9 -> 16.731088640e9
    got = rl.lora_finetune_memory(m("llama-3-8b"), 16, base_bits=16, adapter_bytes=16)
    assert got["states"] == pytest.approx(671_088_640)
    assert got["answer"] == pytest.approx(16.73108864e9)
    assert got["full"] == pytest.approx(128.48e9)
    # NF4 + double quant: 8.03e9 x 4.127 / 8 = 4.14247625e9 -> 4.81356489e9
    got = rl.lora_finetune_memory(m("llama-3-8b"), 16, base_bits=4.127, adapter_bytes=16)
    assert got["answer"] == pytest.approx(4.81356489e9)


# --- the grids of the questions ----------------------------------------------------------------


def test_grpo_question_never_asks_about_an_average_sample():
    # a response whose reward equals the group mean would have advantage 0: no such draws
    q = question("rl-grpo-group-advantage")
    for combo in grid(q["params"]):
        assert abs(rl.grpo_advantage(**combo)["centred"]) > 0.05, combo


def test_rollout_share_stays_plausible():
    # every draw gives a rollout share between a third and nine tenths of the step
    q = question("rl-sys-rollout-time-share")
    shares = [rl.rl_step_rollout_share(**c)["answer"] for c in grid(q["params"])]
    assert min(shares) > 0.33 and max(shares) < 0.9


def test_every_question_solves_on_its_whole_grid():
    from quizzer.grading.calc import load_solution

    seen = 0
    for q in numeric_questions("rl"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer), (q["id"], combo)
            if not q.get("allow_negative"):
                assert answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 3
