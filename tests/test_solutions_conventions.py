"""Hand-checked tests for the conventions the calculation questions let the user choose
(issue 16 §4): activation recomputation (6ND vs 8ND, TP AllReduces), optimizer-state
accountings, causal vs full attention, the ring's exact (p-1)/p vs its large-p limit, and the
decode roofline. Each comment writes the arithmetic out; every convention is tested both ways."""

from __future__ import annotations

import itertools

import pytest

from quizzer.grading.calc import preset
from solutions import comm, costs, inference, training, training_extra
from solutions import foundations_more as fm
from tests.conftest import shipped_questions
from tests.presets import d, g, m

# --- training FLOPs: recomputation --------------------------------------------------------------


def test_training_flops_without_recomputation_is_6nd():
    # forward 2 x 70e9 x 300e9 = 4.2e22; backward 8.4e22; total 1.26e23 = 6ND
    got = training.training_flops(70e9, 300e9, "none")
    assert got["forward"] == pytest.approx(4.2e22)
    assert got["backward"] == pytest.approx(8.4e22)
    assert got["recomputed"] == 0
    assert got["answer"] == pytest.approx(1.26e23)
    assert got["factor"] == 6


def test_training_flops_with_full_recomputation_is_8nd():
    # + one more forward 4.2e22 -> 1.68e23 = 8ND; the model FLOPs stay 1.26e23
    got = training.training_flops(70e9, 300e9, "full")
    assert got["answer"] == pytest.approx(1.68e23)
    assert got["factor"] == 8
    assert got["model_flops"] == pytest.approx(1.26e23)


def test_training_flops_default_is_the_old_6nd():
    # GPT-3: 6 x 175e9 x 300e9 = 3.15e23
    assert training.training_flops(175e9, 300e9)["answer"] == pytest.approx(3.15e23)


# --- optimizer-state accountings ----------------------------------------------------------------


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
    assert training.optimizer_bytes(accounting)["per_param"] == optim
    assert training.adam_mixed_bytes(m("llama-3-8b"), accounting)["per_param"] == total


def test_adam_model_states_llama3_8b_each_accounting():
    # 8.03e9 x 16 = 128.48e9; x 12 = 96.36e9; x 10 = 80.3e9
    model = m("llama-3-8b")
    assert training.adam_mixed_bytes(model)["answer"] == pytest.approx(128.48e9)
    assert training.adam_mixed_bytes(model, "fp32-master-bf16-moments")["answer"] == pytest.approx(
        96.36e9
    )
    assert training.adam_mixed_bytes(model, "fp32-master-8bit-moments")["answer"] == pytest.approx(
        80.3e9
    )


def test_optimizer_state_70b_each_accounting():
    # 70.6e9 x 12 = 847.2e9 (75% of 16 B); x 8 = 564.8e9 (8 / 12 = 66.7%); x 6 = 423.6e9 (60%)
    model = m("llama-3-70b")
    got = training_extra.optimizer_state_bytes(model)
    assert got["answer"] == pytest.approx(847.2e9)
    assert got["share"] == 0.75
    got = training_extra.optimizer_state_bytes(model, "no-master-fp32-moments")
    assert got["answer"] == pytest.approx(564.8e9)
    assert got["master"] == 0
    assert got["share"] == pytest.approx(8 / 12)
    got = training_extra.optimizer_state_bytes(model, "fp32-master-8bit-moments")
    assert got["answer"] == pytest.approx(423.6e9)
    assert got["static"] == pytest.approx(706e9)
    assert got["baseline"] == pytest.approx(847.2e9)


def test_zero_per_gpu_under_other_accountings():
    # Llama-3-70B, ZeRO-3 over 32, no master copy: (2 + 2 + 8) / 32 = 0.375 B/param
    # -> 70.6e9 x 0.375 = 26.475e9 B; DDP would need 12 x 70.6e9 = 847.2e9
    got = training.zero_bytes_per_gpu(m("llama-3-70b"), 32, 3, "no-master-fp32-moments")
    assert got["answer"] == pytest.approx(26.475e9)
    assert got["ddp"] == pytest.approx(847.2e9)
    # ZeRO-1 over 64 with BF16 moments: 2 + 2 + 8/64 = 4.125 B/param -> 291.225e9 B
    got = training.zero_bytes_per_gpu(m("llama-3-70b"), 64, 1, "fp32-master-bf16-moments")
    assert got["answer"] == pytest.approx(291.225e9)
    # the default is the ZeRO paper's 16 bytes: stage 1 over 64 = 4.1875 B/param
    assert training.zero_state_bytes_per_param(64, 1) == (2.0, 2.0, 12 / 64)


# --- attention mask -----------------------------------------------------------------------------


def test_attention_share_full_mask_doubles_the_score_flops():
    # Llama-3-8B at 8192: weight GEMMs 2 x 218,103,808 = 436,207,616 FLOP per token
    # full: 4 x 8192 keys x 4096 = 134,217,728; share = 134,217,728 / 570,425,344 = 4/17
    got = fm.attention_flops_share(m("llama-3-8b"), 8192, "full")
    assert got["keys"] == 8192
    assert got["attn"] == 134_217_728
    assert got["answer"] == pytest.approx(4 / 17)
    # crossover: 218,103,808 / (2 x 4096) = 26,624 tokens, half the causal 53,248
    assert got["crossover"] == 26_624
    # causal: 4 x 4096 keys x 4096 = 67,108,864; share 2/15, as before
    causal = fm.attention_flops_share(m("llama-3-8b"), 8192, "causal")
    assert causal["attn"] == 67_108_864
    assert causal["answer"] == pytest.approx(2 / 15)


# --- tensor-parallel AllReduces and recomputation -----------------------------------------------


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
    got = training_extra.tp_train_layer_comm_time(
        m("llama-3-8b"), d("bf16"), 1, 2048, 4, 300, recompute
    )
    assert got["allreduces"] == allreduces
    assert got["sent"] == sent
    # 150,994,944 / 300e9 = 0.50332 ms; 100,663,296 / 300e9 = 0.33554 ms
    assert got["answer"] == pytest.approx(sent / 300e9)


# --- pipeline bubble: share of the step or over the ideal compute time -------------------------


def test_bubble_fraction_both_measures():
    # 3 idle slots against 12 busy: 3 / 15 = 20% of the step, 3 / 12 = 25% over compute
    assert training.bubble_fraction(3, 12, "step-share") == pytest.approx(0.2)
    assert training.bubble_fraction(3, 12, "over-compute") == pytest.approx(0.25)


def test_pipeline_bubble_over_compute():
    # p = 8, m = 32: Megatron's (p - 1)/m = 7/32 = 21.875%; the step share is 7/39 = 17.95%
    got = training.pipeline_bubble(8, 32, "over-compute")
    assert got["answer"] == pytest.approx(7 / 32)
    assert got["share"] == pytest.approx(7 / 39)


def test_interleaved_bubble_over_compute():
    # p = 8, m = 8, v = 2: 7 / (2 x 8) = 43.75%; without interleaving 7/8 = 87.5%
    got = training.interleaved_bubble(8, 8, 2, "over-compute")
    assert got["answer"] == pytest.approx(7 / 16)
    assert got["plain"] == pytest.approx(7 / 8)
    assert got["share"] == pytest.approx(7 / 23)


@pytest.mark.parametrize(
    ("stages", "target", "m"),
    [(16, 0.2, 75), (8, 0.05, 140), (4, 0.1, 30)],  # (p - 1) / f exactly: 15/0.2, 7/0.05, 3/0.1
)
def test_microbatches_for_bubble_over_compute(stages, target, m):
    got = training_extra.microbatches_for_bubble(stages, target, "over-compute")
    assert got["answer"] == m
    assert got["achieved"] == pytest.approx(target)


# --- ring collectives: exact (p-1)/p or the large-p limit ----------------------------------------


def test_ring_share():
    # exact (p - 1)/p: 7/8 at 8 GPUs, 63/64 at 64; the large-p convention takes 1
    assert comm.ring_share(8) == 7 / 8
    assert comm.ring_share(64, "exact") == 63 / 64
    assert comm.ring_share(8, "large-p") == 1


def test_ring_allreduce_large_p_limit():
    # 1 GB on 8 GPUs at 450 GB/s: exact 2 x 7/8 x 1e9 = 1.75e9 B -> 3.889 ms;
    # large-p 2 x 1e9 = 2e9 B -> 4.444 ms, 1/7 = 14.3% more
    exact = comm.ring_allreduce_time(1, 8, 450, "exact")
    approx = comm.ring_allreduce_time(1, 8, 450, "large-p")
    assert exact["answer"] == pytest.approx(3.8889e-3, rel=1e-4)
    assert approx["answer"] == pytest.approx(4.4444e-3, rel=1e-4)
    assert approx["gap"] == pytest.approx(1 / 7)
    assert approx["exact_time"] == pytest.approx(exact["answer"])


def test_ring_allgather_large_p_limit():
    # 0.5 GB on 8 GPUs at 300 GB/s: exact 7/8 x 0.5e9 / 300e9 = 1.4583 ms; large-p 1.6667 ms
    assert comm.ring_allgather_time(0.5, 8, 300, "exact")["answer"] == pytest.approx(
        1.4583e-3, rel=1e-4
    )
    assert comm.ring_allgather_time(0.5, 8, 300, "large-p")["answer"] == pytest.approx(
        1.6667e-3, rel=1e-4
    )


def test_fsdp_step_bytes_large_p_limit():
    # Mixtral BF16: S = 46.7e9 x 2 = 93.4e9 B; large-p: 3 x S = 280.2e9 B (DDP 2 x S = 186.8e9);
    # exact at 8 GPUs: 3 x 7/8 x S = 245.175e9 B
    got = training_extra.fsdp_step_bytes(m("mixtral-8x7b"), d("bf16"), 8, "large-p")
    assert got["answer"] == pytest.approx(280.2e9)
    assert got["ddp"] == pytest.approx(186.8e9)
    exact = training_extra.fsdp_step_bytes(m("mixtral-8x7b"), d("bf16"), 8, "exact")
    assert exact["answer"] == pytest.approx(245.175e9)


def test_ddp_allreduce_large_p_limit():
    # Llama-2-7B BF16: S = 13.48e9 B; large-p 2 x S = 26.96e9 B / 50e9 = 0.5392 s
    # (exact: 2 x 7/8 x S = 23.59e9 B -> 0.4718 s)
    got = comm.ddp_allreduce_time(m("llama-2-7b"), d("bf16"), 8, 50, "large-p")
    assert got["answer"] == pytest.approx(0.5392)
    assert got["coefficient"] == 2


# --- decode: memory-only or the roofline maximum ------------------------------------------------


def test_decode_step_roofline_large_batch_turns_compute_bound():
    # Llama-3-8B BF16 weights, FP8 KV, A100 80GB, batch 512, context 128
    # weights 8.03e9 x 2 = 16.06e9 B; KV 2 x 32 x 8 x 128 x 1 = 65,536 B/token
    #   x 128 x 512 = 4,294,967,296 B
    # memory: 20,354,967,296 / 2.039e12 = 9.9828 ms
    # compute: 2 x 8.03e9 x 512 = 8.22272e12 FLOP / 312e12 = 26.355 ms -> roofline 26.355 ms
    args = (m("llama-3-8b"), d("bf16"), d("fp8"), g("a100-80gb"), 512, 128)
    memory = inference.decode_step_time_with_kv(*args, "memory")
    roofline = inference.decode_step_time_with_kv(*args, "roofline")
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
    roofline = inference.decode_step_time_with_kv(*args, "roofline")
    assert roofline["answer"] == pytest.approx(5.1145e-3, rel=1e-4)
    assert roofline["answer"] == inference.decode_step_time_with_kv(*args, "memory")["answer"]
    assert roofline["limit"] == "memory"


def test_decode_critical_batch_is_infinite_when_kv_outweighs_weights_over_ridge():
    # K = 131,072 x 8192 = 1.0737e9 B per sequence; ridge x K / W = 295.2 x 0.06686 = 19.7 > 1
    got = inference.decode_step_time_with_kv(
        m("llama-3-8b"), d("bf16"), d("bf16"), g("h100-sxm"), 8, 8192, "roofline"
    )
    assert got["critical_batch"] == "∞"


# --- new calculations: cost, checkpoint, offload, activations, serving, attention intensity ------


def test_training_cost_70b_h100():
    # C = 6 x 70.6e9 x 2e12 = 8.472e23 FLOP; one H100 at 40% MFU: 989e12 x 0.4 = 3.956e14 FLOP/s
    # GPU-seconds 8.472e23 / 3.956e14 = 2.14156e9 -> 594,877 GPU-hours -> x $2 = $1,189,754
    # on 2048 GPUs: 2.14156e9 / 2048 / 86400 = 12.10 days
    got = costs.training_cost(m("llama-3-70b"), 2e12, g("h100-sxm"), 0.4, 2.0, 2048)
    assert got["gpu_hours"] == pytest.approx(594_877, rel=1e-5)
    assert got["answer"] == pytest.approx(1_189_754, rel=1e-5)
    assert got["days"] == pytest.approx(12.1028, rel=1e-4)


def test_training_cost_does_not_depend_on_the_gpu_count():
    # same GPU-hours on 512 or 8192 GPUs; only the days change (16x)
    few = costs.training_cost(m("llama-3-8b"), 1.5e13, g("a100-80gb"), 0.45, 1.5, 512)
    many = costs.training_cost(m("llama-3-8b"), 1.5e13, g("a100-80gb"), 0.45, 1.5, 8192)
    assert few["answer"] == many["answer"]
    assert few["days"] == pytest.approx(16 * many["days"])
    # 6 x 8.03e9 x 1.5e13 = 7.227e23 / (312e12 x 0.45 = 1.404e14) = 5.1474e9 GPU-s
    # = 1,429,843 GPU-hours x $1.5 = $2,144,765
    assert few["answer"] == pytest.approx(2_144_765, rel=1e-5)


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
    got = training_extra.checkpoint_bytes(m("llama-3.1-405b"), accounting)
    assert got["answer"] == pytest.approx(size)
    assert got["weights"] == pytest.approx(811.7e9)  # 2 x 405.85e9, saved every time


def test_offload_cpu_memory_zero_offload_qwen32b_two_nodes():
    # ZeRO-Offload: 14 B/param on the host, partitioned over 16 ranks:
    # 14 x 32.76e9 / 16 = 28.665e9 per rank, x 8 per node = 229.32e9 B
    # each GPU keeps the BF16 weights: 2 x 32.76e9 = 65.52e9 B;
    # ZeRO-2 without offload would keep (2 + 14/16) x 32.76e9 = 94.185e9 B per GPU
    got = training_extra.offload_cpu_bytes_per_node(m("qwen2.5-32b"), 2, 8, "optimizer")
    assert got["answer"] == pytest.approx(229.32e9)
    assert got["per_rank"] == pytest.approx(28.665e9)
    assert got["gpu_weights"] == pytest.approx(65.52e9)
    assert got["gpu_without_offload"] == pytest.approx(94.185e9)


def test_offload_cpu_memory_zero_infinity_qwen32b_two_nodes():
    # all 16 B/param on the host: 16 x 32.76e9 / 2 nodes = 262.08e9 B per node;
    # ZeRO-3 without offload: 16 / 16 x 32.76e9 = 32.76e9 B per GPU
    got = training_extra.offload_cpu_bytes_per_node(m("qwen2.5-32b"), 2, 8, "optimizer-and-params")
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
    got = fm.activation_bytes_recompute(m("llama-3-70b"), 4096, 1, 8, recompute)
    assert got["score_term"] == 160
    assert got["answer"] == total


def test_min_gpus_serving_70b_both_layouts():
    # W = 70.6e9 x 2 = 141.2e9 B; KV = 2 x 80 x 8 x 128 x 2 = 327,680 B/token x 16384 x 32
    # = 171,798,691,840 B; total 313.0e9 / (80e9 x 0.9) = 4.347
    # pipeline: ceil -> 5; tensor: G = 4 gives 35.3e9 + 42.95e9 = 78.25e9 > 72e9, G = 8 gives
    # 17.65e9 + 21.47e9 = 39.12e9 -> 8
    args = (m("llama-3-70b"), d("bf16"), d("bf16"), g("h100-sxm"), 0.9, 32, 16384)
    pipeline = inference.min_gpus_serving(*args, "pipeline")
    assert pipeline["kv_bytes"] == 171_798_691_840
    assert pipeline["exact"] == pytest.approx(4.3472, rel=1e-4)
    assert pipeline["answer"] == 5
    assert inference.min_gpus_serving(*args, "tensor")["answer"] == 8


def test_min_gpus_serving_tensor_replicates_kv_heads_past_8():
    # Llama-3.1-405B FP8 weights 405.85e9 B, BF16 KV 2 x 126 x 8 x 128 x 2 = 516,096 B/token
    # x 16384 x 32 = 270.58e9 B. G = 8: 50.73e9 + 33.82e9 = 84.55e9 > 72e9; G = 16: the 8 KV
    # heads cannot split further, so KV stays 270.58e9 / 8 = 33.82e9: 25.37e9 + 33.82e9 =
    # 59.19e9 -> 16. Pipeline: 676.4e9 / 72e9 = 9.39 -> 10
    args = (m("llama-3.1-405b"), d("fp8"), d("bf16"), g("h100-sxm"), 0.9, 32, 16384)
    tensor = inference.min_gpus_serving(*args, "tensor")
    assert tensor["answer"] == 16
    assert tensor["per_gpu"] == pytest.approx(59.188e9, rel=1e-4)
    assert inference.min_gpus_serving(*args, "pipeline")["answer"] == 10


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
    got = inference.decode_attention_intensity(m(key), d(kv), 4096)
    assert got["answer"] == intensity
    # independent of the context: 32k gives the same ratio
    assert inference.decode_attention_intensity(m(key), d(kv), 32768)["answer"] == intensity


def test_decode_attention_intensity_by_hand_70b():
    # FLOPs 4 x 4096 x 64 x 128 = 134,217,728; bytes 2 x 4096 x 8 x 128 x 2 = 16,777,216 -> 8
    got = inference.decode_attention_intensity(m("llama-3-70b"), d("bf16"), 4096)
    assert (got["flops"], got["moved"]) == (134_217_728, 16_777_216)


def test_prefill_attention_intensity():
    # Llama-2-7B (MHA), s = 2048, BF16, full: FLOPs 4 x 128 x 32 x 2048^2 = 68,719,476,736;
    # bytes 2048 x 128 x (64 + 64) x 2 = 67,108,864 -> 1024 FLOP/byte; causal halves it: 512
    full = inference.prefill_attention_intensity(m("llama-2-7b"), 2048, d("bf16"), "full")
    assert (full["flops"], full["moved"]) == (68_719_476_736, 67_108_864)
    assert full["answer"] == 1024
    causal = inference.prefill_attention_intensity(m("llama-2-7b"), 2048, d("bf16"), "causal")
    assert causal["answer"] == 512
    # Llama-3-8B (GQA 32/8), s = 8192, causal: 2 x 8192 x 0.5 x 32 / ((32 + 8) x 2) = 3276.8
    gqa = inference.prefill_attention_intensity(m("llama-3-8b"), 8192, d("bf16"), "causal")
    assert gqa["answer"] == pytest.approx(3276.8)


# --- the new and changed questions' grids stay realistic ----------------------------------------


def _grid(qid: str) -> list[dict]:
    [question] = shipped_questions([qid])
    params = question["params"]
    names, values = list(params), []
    for spec in params.values():
        if "value" in spec:
            values.append([spec["value"]])
        elif "preset" in spec:
            values.append([preset(spec["preset"], key) for key in spec["choose"]])
        else:
            values.append(spec["choose"])
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*values)]


def test_decode_roofline_grid_fits_in_one_gpu_and_reaches_both_limits():
    limits = set()
    for combo in _grid("calc-decode-step-with-kv"):
        got = inference.decode_step_time_with_kv(**combo)
        assert got["footprint"] <= 0.9 * combo["gpu"].memory_gb * 1e9, combo
        limits.add(got["limit"])
    assert limits == {"memory", "compute"}


def test_serving_grid_is_unambiguous_and_bounded():
    for combo in _grid("calc-min-gpus-serving-with-kv"):
        got = inference.min_gpus_serving(**combo)
        exact = got["exact"]
        # a pipeline answer just above or below an integer would be ambiguous at 0.4 tolerance
        assert abs(exact - round(exact)) > 0.01 or exact < 1, combo
        assert got["answer"] <= 32, combo


def test_offload_grid_keeps_the_bf16_weights_within_an_80gb_gpu():
    for combo in _grid("calc-zero-offload-cpu-memory"):
        assert training_extra.offload_cpu_bytes_per_node(**combo)["gpu_weights"] <= 80e9, combo


# --- observations a user can type instead of the generated measurement --------------------------


def test_mfu_from_a_typed_throughput():
    # Llama-3-70B on 16,384 H100s at 3.2M tokens/s: 6 x 70.6e9 x 3.2e6 = 1.35552e18 FLOP/s
    # over 16384 x 989e12 = 1.6203776e19 -> 8.3655%
    got = training_extra.mfu_measured(m("llama-3-70b"), 16384, g("h100-sxm"), 0.33, 3_200_000)
    assert got["tokens_per_s"] == 3_200_000
    assert got["answer"] == pytest.approx(0.083655, rel=1e-4)


def test_typed_observations_reproduce_the_generated_ones():
    # the generated throughput of 0.3 MFU on 1024 H100s is 717,000 tokens/s (see the HFU test);
    # typing it gives the same HFU, 0.39986
    model, gpu = m("llama-3-70b"), g("h100-sxm")
    generated = training_extra.hfu_measured(model, 1024, gpu, 0.3)
    typed = training_extra.hfu_measured(model, 1024, gpu, 0.4, 717_000)
    assert typed["answer"] == generated["answer"] == pytest.approx(0.39986, rel=1e-4)
    # nccl-tests: AllReduce of 1024 MB in 4720 us on 8 GPUs -> algbw 216.95 GB/s x 1.75
    # = 379.66 GB/s, whatever true_busbw_gbps says
    got = training_extra.nccl_busbw_from_test(1024, 8, "AllReduce", 150, 4720)
    assert got["time_us"] == 4720
    assert got["answer"] == pytest.approx(379.66e9, rel=1e-4)
    # vector add of 67,108,864 elements x 12 B in 191 us on an H200: 4216.3 GB/s = 87.84%
    got = training_extra.effective_bandwidth_measured(67_108_864, 12, g("h200"), 0.55, 191)
    assert got["answer"] == pytest.approx(0.87840, rel=1e-4)
