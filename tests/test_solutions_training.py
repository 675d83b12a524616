"""Hand-checked tests for the solutions used by the Module 1-3 calculation questions on training,
communication and kernels (QUESTIONS). Each comment writes the arithmetic out."""

from __future__ import annotations

import itertools
import math

import pytest

from quizzer.grading.calc import preset
from solutions import comm, kernels, training, training_extra
from tests.conftest import shipped_questions
from tests.presets import d, g, m

# The questions these solutions serve (the files calc-training, calc-comm and calc-kernels.yaml
# held them before question files followed topics).
QUESTIONS = (
    "calc-matmul-flops",
    "calc-gemm-time-at-efficiency",
    "calc-training-flops-6nd",
    "calc-training-days",
    "calc-mfu-from-throughput",
    "calc-hfu-with-recompute",
    "calc-adam-mixed-precision-states",
    "calc-optimizer-state-memory",
    "calc-zero-stage-per-gpu",
    "calc-zero3-min-gpus",
    "calc-zero-max-model-size",
    "calc-pipeline-bubble-fraction",
    "calc-interleaved-pipeline-bubble",
    "calc-microbatches-for-bubble-target",
    "calc-float-max-value",
    "calc-bf16-fp16-spacing",
    "calc-loss-scale-overflow-limit",
    "calc-loss-scale-underflow-rescue",
    "calc-dynamic-loss-scale",
    "calc-moe-training-flops",
    "calc-training-cost",
    "calc-checkpoint-size",
    "calc-ring-allreduce-time",
    "calc-ring-allgather-time",
    "calc-ddp-gradient-allreduce-time",
    "calc-fsdp-step-traffic",
    "calc-moe-dispatch-bytes",
    "calc-tp-training-layer-comm",
    "calc-nccl-tests-busbw",
    "calc-allreduce-alpha-beta",
    "calc-nvlink-vs-pcie-copy",
    "calc-theoretical-occupancy",
    "calc-max-registers-for-occupancy",
    "calc-bank-conflict-stride",
    "calc-warp-global-sectors",
    "calc-roofline-attainable",
    "calc-gemm-arithmetic-intensity",
    "calc-vector-add-kernel-time",
    "calc-effective-bandwidth-utilization",
    "calc-gemm-smem-multistage",
    "calc-gemm-block-tile-intensity",
    "calc-sgemm-thread-tile-registers",
    "calc-tensor-core-peak-tflops",
    "calc-prefill-attention-intensity",
)


# --- FLOPs, time, MFU ------------------------------------------------------------------------


def test_matmul_flops_4096_cubed():
    # 2 x 4096 x 4096 x 4096 = 137,438,953,472 FLOPs (about 0.137 TFLOP)
    assert training.matmul_flops(4096, 4096, 4096)["answer"] == 137_438_953_472


def test_matmul_time_8192_cubed_h100_70pct():
    # 2 x 8192^3 = 1.0995e12 FLOPs; 989e12 x 0.7 = 692.3e12 FLOP/s; 1.0995e12 / 692.3e12 = 1.588 ms
    got = training.matmul_time(8192, 8192, 8192, g("h100-sxm"), 0.7)["answer"]
    assert got == pytest.approx(1.588e-3, rel=1e-3)


def test_training_flops_gpt3():
    # 6 x 175e9 x 300e9 = 3.15e23 FLOPs
    assert training.training_flops(175e9, 300e9)["answer"] == pytest.approx(3.15e23)


def test_training_days_405b_16k_h100():
    # 6 x 405.85e9 x 15e12 = 3.65265e25 FLOPs; 16384 x 989e12 x 0.4 = 6.4815e18 FLOP/s
    # 3.65265e25 / 6.4815e18 = 5.6355e6 s = 65.23 days
    got = training.training_days(m("llama-3.1-405b"), 15e12, 16384, g("h100-sxm"), 0.4)
    assert got["days"] == pytest.approx(65.23, rel=1e-3)
    assert got["answer"] == pytest.approx(5.6355e6, rel=1e-3)


def test_mfu_direct():
    # 6 x 70.6e9 x 245,000 = 1.03782e17; 256 x 989e12 = 2.53184e17; ratio = 0.40991
    got = training.mfu(m("llama-3-70b"), 245_000, 256, g("h100-sxm"))["answer"]
    assert got == pytest.approx(0.40991, rel=1e-4)


def test_mfu_measured_rounds_throughput_to_3_sig_figs():
    # 0.41 x 256 x 989e12 / (6 x 70.6e9) = 245,088 tokens/s -> shown as 245,000
    got = training_extra.mfu_measured(m("llama-3-70b"), 256, g("h100-sxm"), 0.41)
    assert got["tokens_per_s"] == 245_000
    assert got["answer"] == pytest.approx(0.40991, rel=1e-4)


def test_hfu_is_four_thirds_of_mfu():
    # 0.3 x 1024 x 989e12 / (6 x 70.6e9) = 717,002 -> 717,000 tokens/s
    # HFU = 8 x 70.6e9 x 717,000 / (1024 x 989e12) = 4.04957e17 / 1.012736e18 = 0.39986
    got = training_extra.hfu_measured(m("llama-3-70b"), 1024, g("h100-sxm"), 0.3)
    assert got["tokens_per_s"] == 717_000
    assert got["answer"] == pytest.approx(0.39986, rel=1e-4)
    assert got["answer"] == pytest.approx(got["mfu"] * 8 / 6)


def test_peak_tensor_tflops_a100_and_h100():
    # A100: 108 x 4 x 256 x 2 = 221,184 FLOP/clk x 1.41e9 = 311.87 TFLOPS
    assert training_extra.peak_tensor_tflops(108, 4, 256, 1.41)["answer"] == pytest.approx(
        311.87e12, rel=1e-4
    )
    # H100 SXM: 132 x 4 x 512 x 2 = 540,672 x 1.83e9 = 989.43 TFLOPS
    assert training_extra.peak_tensor_tflops(132, 4, 512, 1.83)["answer"] == pytest.approx(
        989.43e12, rel=1e-4
    )


# --- training memory and ZeRO ----------------------------------------------------------------


def test_adam_mixed_bytes_llama3_8b():
    # 16 B x 8.03e9 = 128.48e9 B
    assert training.adam_mixed_bytes(m("llama-3-8b"))["answer"] == pytest.approx(128.48e9)


def test_optimizer_state_bytes_70b():
    # 12 B x 70.6e9 = 847.2e9 B, 75% of 16 B x 70.6e9 = 1129.6e9 B
    got = training_extra.optimizer_state_bytes(m("llama-3-70b"))
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
    assert training.zero_bytes_per_gpu(m("llama-3-70b"), 64, stage)["answer"] == pytest.approx(
        expected
    )


def test_zero3_min_gpus_70b_h200():
    # 16 x 70.6e9 = 1129.6e9 B; 141e9 x 0.5 = 70.5e9 B per GPU; 1129.6 / 70.5 = 16.02 -> 17
    got = training_extra.zero3_min_gpus(m("llama-3-70b"), g("h200"), 0.5)
    assert got["answer"] == 17


def test_zero_max_params_stage2_dp8():
    # 80e9 x 0.7 = 56e9 B; 2 + 14/8 = 3.75 B/param; 56e9 / 3.75 = 14.933e9 params
    got = training_extra.zero_max_params(80, 8, 2, 0.7)
    assert got["answer"] == pytest.approx(14.9333e9, rel=1e-4)
    # stage 3 over 512: 16/512 = 0.03125 B/param -> 56e9 / 0.03125 = 1.792e12
    assert training_extra.zero_max_params(80, 512, 3, 0.7)["answer"] == pytest.approx(1.792e12)


# --- pipeline ----------------------------------------------------------------------------------


def test_pipeline_bubble():
    # (8 - 1) / (32 + 8 - 1) = 7 / 39 = 0.17949
    assert training.pipeline_bubble(8, 32)["answer"] == pytest.approx(7 / 39)


def test_interleaved_bubble():
    # (8 - 1) / (2 x 8 + 8 - 1) = 7 / 23 = 0.30435; plain 7 / 15
    got = training.interleaved_bubble(8, 8, 2)
    assert got["answer"] == pytest.approx(7 / 23)
    assert got["plain"] == pytest.approx(7 / 15)


def test_microbatches_for_bubble_exact_boundary():
    # p = 16, f = 0.2: 15 x 0.8 / 0.2 = 60 exactly (float gives 59.99999...) -> 60
    # bubble 15 / 75 = 20%
    got = training_extra.microbatches_for_bubble(16, 0.2)
    assert got["answer"] == 60
    assert got["achieved"] == pytest.approx(0.2)
    # p = 8, f = 0.05: 7 x 0.95 / 0.05 = 133 -> 133
    assert training_extra.microbatches_for_bubble(8, 0.05)["answer"] == 133
    # p = 4, f = 0.1: 3 x 0.9 / 0.1 = 27 -> 27
    assert training_extra.microbatches_for_bubble(4, 0.1)["answer"] == 27


# --- floating point and loss scaling ---------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("FP16", 65504.0),  # (2 - 2^-10) x 2^15
        ("BF16", 3.3895313892515355e38),  # (2 - 2^-7) x 2^127
        ("FP32", 3.4028234663852886e38),  # (2 - 2^-23) x 2^127
        ("FP8 E5M2", 57344.0),  # (2 - 2^-2) x 2^15
    ],
)
def test_float_max(fmt, expected):
    assert training_extra.float_max(fmt)["answer"] == expected


def test_float_spacing():
    # BF16 at 1000: floor(log2 1000) = 9, 2^(9-7) = 4 (so 1000 + 1 rounds back to 1000)
    assert training_extra.float_spacing(1000, "BF16")["answer"] == 4.0
    # FP16 at 1000: 2^(9-10) = 0.5
    assert training_extra.float_spacing(1000, "FP16")["answer"] == 0.5
    # BF16 at 3: 2^(1-7) = 1/64
    assert training_extra.float_spacing(3, "BF16")["answer"] == 1 / 64


def test_max_loss_scale():
    # 65504 / 6 = 10917.3 -> 2^13 = 8192 (6 x 16384 = 98304 would overflow)
    assert training_extra.max_loss_scale(6)["answer"] == 8192
    # 65504 / 0.25 = 262016, just below 2^18 -> 2^17 = 131072 (0.25 x 2^18 = 65536 > 65504)
    assert training_extra.max_loss_scale(0.25)["answer"] == 131072


def test_min_loss_scale():
    # 2^-14 / 1e-6 = 61.04 -> 2^6 = 64
    assert training_extra.min_loss_scale(1e-6)["answer"] == 64
    # 2^-14 / 2e-9 = 30517.6 -> 2^15 = 32768
    assert training_extra.min_loss_scale(2e-9)["answer"] == 32768


def test_dynamic_loss_scale():
    # 65536 x 0.5^4 = 4096; floor(1500 / 1000) = 1 doubling -> 8192
    got = training_extra.dynamic_loss_scale(65536, 4, 1500, 1000)
    assert got["answer"] == 8192
    assert got["skipped"] == 4
    # 65536 x 0.5 = 32768; floor(10000 / 2000) = 5 doublings -> 1,048,576
    assert training_extra.dynamic_loss_scale(65536, 1, 10000, 2000)["answer"] == 2**20


# --- communication -----------------------------------------------------------------------------


def test_ring_allreduce_time():
    # 2 x 7/8 x 1e9 = 1.75e9 B; / 450e9 B/s = 3.889 ms
    assert comm.ring_allreduce_time(1, 8, 450)["answer"] == pytest.approx(3.8889e-3, rel=1e-4)


def test_ring_allgather_time():
    # 7/8 x 0.5e9 = 0.4375e9 B; / 300e9 = 1.4583 ms
    assert comm.ring_allgather_time(0.5, 8, 300)["answer"] == pytest.approx(1.4583e-3, rel=1e-4)


def test_ddp_allreduce_time_llama2_7b():
    # 6.74e9 x 2 B = 13.48e9 B; x 2 x 7/8 = 23.59e9 B; / 50e9 = 0.4718 s
    got = comm.ddp_allreduce_time(m("llama-2-7b"), d("bf16"), 8, 50)
    assert got["answer"] == pytest.approx(0.4718, rel=1e-3)


def test_fsdp_step_bytes_is_one_and_a_half_ddp():
    # S = 46.7e9 x 2 = 93.4e9; 3 x 7/8 x 93.4e9 = 245.175e9; DDP 2 x 7/8 x 93.4e9 = 163.45e9
    got = training_extra.fsdp_step_bytes(m("mixtral-8x7b"), d("bf16"), 8)
    assert got["answer"] == pytest.approx(245.175e9)
    assert got["ddp"] == pytest.approx(163.45e9)


def test_moe_dispatch_bytes():
    # 16384 tokens x 8 copies x 4096 x 2 B x 7/8 = 939,524,096 B
    got = comm.moe_dispatch_bytes(16384, 4096, d("bf16"), 8, 8)
    assert got["answer"] == pytest.approx(939_524_096)


def test_tp_train_layer_comm_time():
    # S = 1 x 2048 x 4096 x 2 = 16,777,216 B; one ring AllReduce sends 2 x 3/4 x S = 25,165,824 B
    # 4 per layer (2 fwd + 2 bwd) = 100,663,296 B; / 300e9 = 0.33554 ms
    got = training_extra.tp_train_layer_comm_time(m("llama-3-8b"), d("bf16"), 1, 2048, 4, 300)
    assert got["sent"] == 100_663_296
    assert got["answer"] == pytest.approx(3.3554e-4, rel=1e-4)


def test_nccl_busbw():
    # AllReduce, 8 GPUs: algbw = 1024e6 B / 4720e-6 s = 216.95 GB/s; x 2 x 7/8 = 379.66 GB/s
    got = training_extra.nccl_busbw(1024, 4720, 8, "AllReduce")
    assert got["answer"] == pytest.approx(379.66e9, rel=1e-4)
    # AllGather, 8 GPUs: factor 7/8
    assert training_extra.nccl_busbw(1024, 4720, 8, "AllGather")["factor"] == 7 / 8


def test_nccl_busbw_from_test_rounds_time():
    # 4096e6 x 1.75 / 150e9 = 47,786.7 us -> 47,800 us
    # busbw = 4096e6 / 47.8e-3 x 1.75 = 149.96 GB/s
    got = training_extra.nccl_busbw_from_test(4096, 8, "AllReduce", 150)
    assert got["time_us"] == 47_800
    assert got["answer"] == pytest.approx(149.958e9, rel=1e-4)


def test_ring_allreduce_alpha_beta():
    # latency 2 x 255 x 5 us = 2550 us; bandwidth 2 x 255/256 x 1e6 / 50e9 = 39.84 us
    # total 2589.84 us
    got = training_extra.ring_allreduce_alpha_beta(1, 256, 50, 5)
    assert got["answer"] == pytest.approx(2589.84e-6, rel=1e-5)


def test_p2p_transfer_time():
    # H100: NVLink 900/2 = 450 GB/s -> 16e9 / 450e9 = 35.56 ms; PCIe 64 GB/s -> 250 ms
    got = training_extra.p2p_transfer_time(16, g("h100-sxm"), "NVLink")
    assert got["answer"] == pytest.approx(35.556e-3, rel=1e-4)
    assert training_extra.p2p_transfer_time(16, g("h100-sxm"), "PCIe")["answer"] == pytest.approx(
        0.25
    )
    # ratio on H100: 450 / 64 = 7.03x (on A100 it would be 300 / 32 = 9.4x)
    assert got["ratio"] == pytest.approx(450 / 64)


# --- CUDA kernels ----------------------------------------------------------------------------


def test_occupancy_register_limited():
    # A100, 256 threads, 96 regs, 16 KB: threads 2048/256 = 8; regs 65536/(96 x 256) = 2.67 -> 2;
    # smem 164/16 = 10.25 -> 10; blocks 2 -> 16 warps / 64 = 25%
    got = kernels.occupancy(g("a100-80gb"), 256, 96, 16)
    assert got["blocks"] == 2
    assert got["answer"] == 0.25


def test_occupancy_smem_limited_l40s():
    # L40S, 128 threads, 32 regs, 48 KB: threads 1536/128 = 12; regs 65536/4096 = 16;
    # smem 100/48 = 2
    # blocks 2 -> 8 warps / 48 = 16.7%
    got = kernels.occupancy(g("l40s"), 128, 32, 48)
    assert got["blocks"] == 2
    assert got["answer"] == pytest.approx(8 / 48)


def test_max_regs_for_occupancy():
    # 100% of 2048 threads -> 65536 / 2048 = 32; 50% -> 64; 25% -> 128
    assert training_extra.max_regs_for_occupancy(g("h100-sxm"), 256, 1.0)["answer"] == 32
    assert training_extra.max_regs_for_occupancy(g("a100-80gb"), 128, 0.5)["answer"] == 64
    assert training_extra.max_regs_for_occupancy(g("h200"), 512, 0.25)["answer"] == 128


@pytest.mark.parametrize(
    ("stride", "ways"), [(1, 1), (2, 2), (3, 1), (6, 2), (12, 4), (32, 32), (33, 1)]
)
def test_bank_conflict_ways(stride, ways):
    # gcd(stride, 32)
    assert kernels.bank_conflict_ways(stride)["answer"] == ways


@pytest.mark.parametrize(
    ("stride", "elem", "sectors"),
    [
        (1, 4, 4),  # 32 x 4 B = 128 B -> 4 sectors
        (2, 4, 8),  # lane i at 8i B: 0..248 -> 256 B span -> 8 sectors
        (8, 4, 32),  # 32 B apart: one sector per lane
        (1, 8, 8),  # 32 x 8 B = 256 B -> 8 sectors
        (4, 8, 32),  # 32 B apart
        (32, 8, 32),
    ],
)
def test_warp_sectors(stride, elem, sectors):
    assert training_extra.warp_sectors(stride, elem)["answer"] == sectors


def test_attainable_tflops():
    # H100: min(989, 10 x 3350e9 = 33.5e12) = 33.5 TFLOPS; at 1000 FLOP/B -> 989 TFLOPS
    assert kernels.attainable_tflops(g("h100-sxm"), 10)["answer"] == pytest.approx(33.5e12)
    assert kernels.attainable_tflops(g("h100-sxm"), 1000)["answer"] == pytest.approx(989e12)


def test_gemm_intensity():
    # 2 x 4096 x 4096 x 8192 = 2.749e11; (4096x8192 + 8192x4096 + 4096x4096) x 4 = 335,544,320 B
    # 274,877,906,944 / 335,544,320 = 819.2
    assert kernels.gemm_intensity(4096, 4096, 8192, d("fp32"))["answer"] == pytest.approx(819.2)
    # GEMV M = 1, BF16: 2 x 4096 x 4096 / ((4096 + 4096^2 + 4096) x 2) = 0.9995
    assert kernels.gemm_intensity(1, 4096, 4096, d("bf16"))["answer"] == pytest.approx(
        0.99951, rel=1e-4
    )


def test_elementwise_time_vector_add():
    # 1e9 x 12 B = 12e9 B; / 864e9 B/s = 13.889 ms
    assert kernels.elementwise_time(1e9, 12, g("l40s"))["answer"] == pytest.approx(
        13.889e-3, rel=1e-4
    )


def test_effective_bandwidth_measured():
    # 67,108,864 x 12 = 805,306,368 B; at 0.88 x 4800e9: 190.65 us -> 191 us
    # 805,306,368 / 191e-6 = 4216.3 GB/s; / 4800 = 87.84%
    got = training_extra.effective_bandwidth_measured(67_108_864, 12, g("h200"), 0.88)
    assert got["time_us"] == 191
    assert got["answer"] == pytest.approx(0.87840, rel=1e-4)


def test_smem_tile_bytes():
    # (128 x 32 + 32 x 128) x 2 B = 16,384 B per stage; x 4 stages = 65,536 B = 64 KiB
    assert kernels.smem_tile_bytes(128, 128, 32, d("bf16"), 4)["answer"] == 65_536


def test_block_tile_intensity():
    # FP32 128 x 128: 2 x 128 x 128 / (256 x 4) = 32; naive 2 / (2 x 4) = 0.25
    got = training_extra.block_tile_intensity(128, 128, d("fp32"))
    assert got["answer"] == 32
    assert got["naive"] == 0.25


def test_thread_tile_blocks():
    # 64 x 128 / (8 x 8) = 128 threads; 64 + 8 + 8 + 16 = 96 regs; 128 x 96 = 12,288 per block
    # 65536 / 12288 = 5.33 -> 5 blocks; 5 x 4 warps / 64 = 31.25%
    got = training_extra.thread_tile_blocks(64, 128, 8, 8, 16, g("h100-sxm"))
    assert got["answer"] == 5
    assert got["occupancy"] == pytest.approx(0.3125)


# --- parameter grids: no ambiguous rounding, no impossible configurations --------------------


def _params(qid: str) -> dict:
    [question] = shipped_questions([qid])
    return question["params"]


def _grid(params: dict, skip: tuple[str, ...] = ()) -> list[dict]:
    names = [k for k in params if k not in skip]
    values = []
    for k in names:
        spec = params[k]
        if "value" in spec:
            values.append([spec["value"]])
        elif "preset" in spec:
            values.append([preset(spec["preset"], key) for key in spec["choose"]])
        else:
            values.append(spec["choose"])
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*values)]


def test_zero3_min_gpus_never_near_an_integer():
    for combo in _grid(_params("calc-zero3-min-gpus")):
        exact = training_extra.zero3_min_gpus(**combo)["exact"]
        # an exact fit (e.g. 2800 GB / 20 GB = 140) is fine; only "just above/below" is ambiguous
        assert abs(exact - round(exact)) < 1e-9 or abs(exact - round(exact)) > 0.01, combo


def test_loss_scale_params_not_at_a_power_of_two_boundary():
    for max_grad in _params("calc-loss-scale-overflow-limit")["max_grad"]["choose"]:
        power = math.log2(65504 / max_grad)
        assert abs(power - round(power)) > 0.01, max_grad
    for grad in _params("calc-loss-scale-underflow-rescue")["grad"]["choose"]:
        power = math.log2(2**-14 / grad)
        assert abs(power - round(power)) > 0.01, grad


def test_spacing_params_are_not_powers_of_two():
    for x in _params("calc-bf16-fp16-spacing")["x"]["choose"]:
        assert abs(math.log2(x) - round(math.log2(x))) > 0.01, x


def test_occupancy_grid_always_launches():
    for combo in _grid(_params("calc-theoretical-occupancy")):
        assert kernels.occupancy(**combo)["blocks"] >= 1, combo


def test_thread_tile_grid_fits_register_limits():
    for combo in _grid(_params("calc-sgemm-thread-tile-registers")):
        got = training_extra.thread_tile_blocks(**combo)
        assert got["regs"] <= 255 and got["answer"] >= 1 and got["threads"] <= 1024, combo


def test_max_regs_grid_whole_blocks():
    for combo in _grid(_params("calc-max-registers-for-occupancy")):
        gpu, tpb, target = combo["gpu"], combo["threads_per_block"], combo["target_occupancy"]
        assert (target * gpu.max_threads_per_sm) % tpb == 0, combo


def test_every_numeric_question_solves_on_its_grid_corners():
    """Each question's solution runs and returns a finite positive answer on every combination of
    its `choose` values (the grids are small)."""
    from quizzer.grading.calc import load_solution

    for q in shipped_questions(QUESTIONS):
        func = load_solution(q["solution"])
        for combo in _grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)


def test_moe_training_flops_deepseek_v3():
    # 6 x 37e9 active x 14.8e12 tokens = 3.2856e24 FLOPs; dense 6 x 671e9 x 14.8e12 = 5.9585e25
    got = training_extra.moe_training_flops(m("deepseek-v3"), 14.8e12)
    assert got["answer"] == pytest.approx(3.2856e24)
    assert got["ratio"] == pytest.approx(671 / 37)
