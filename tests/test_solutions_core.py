"""Hand-worked checks for the solution functions not covered by the per-topic test files."""

from __future__ import annotations

import pytest

from quizzer.grading.calc import preset
from solutions import inference, quant, serving_more, training_extra


def test_gqa_kv_saving_llama3_70b() -> None:
    # 64 query heads / 8 KV heads = 8x smaller KV cache than MHA
    assert inference.gqa_kv_saving(preset("models", "llama-3-70b"))["answer"] == 8


def test_kv_budget_bytes_llama3_8b_on_h100() -> None:
    # 80e9 x 0.9 = 72e9 usable; minus 8.03e9 x 2 B = 16.06e9 -> 55.94e9 bytes left for KV
    budget = inference.kv_budget_bytes(
        preset("models", "llama-3-8b"), preset("dtypes", "bf16"), preset("gpus", "h100-sxm"), 0.9
    )
    assert budget == pytest.approx(55.94e9)


def test_kv_budget_bytes_shards_weights_under_tp() -> None:
    # 70.6e9 x 2 B / 4 GPUs = 35.3e9 per GPU; 80e9 x 0.9 - 35.3e9 = 36.7e9
    budget = inference.kv_budget_bytes(
        preset("models", "llama-3-70b"),
        preset("dtypes", "bf16"),
        preset("gpus", "h100-sxm"),
        0.9,
        tp=4,
    )
    assert budget == pytest.approx(36.7e9)


def test_group_bits_per_weight_int4_g128_fp16_scale_and_zero() -> None:
    # 4 bits + (16-bit scale + 4-bit zero point) / 128 weights = 4 + 20/128 = 4.15625 bits
    assert quant.group_bits_per_weight(4, 128, 16, 4)["answer"] == pytest.approx(4.15625)


def test_block_fp4_bits_mxfp4_and_nvfp4() -> None:
    # MXFP4: 4 + 8/32 = 4.25 bits; NVFP4: 4 + 8/16 = 4.5 bits
    assert quant.block_fp4_bits(32, 8)["answer"] == pytest.approx(4.25)
    assert quant.block_fp4_bits(16, 8)["answer"] == pytest.approx(4.5)


def test_symmetric_quantize_rounds_halves_away_from_zero() -> None:
    # absmax 127 -> scale 1.0; 2.5 rounds to 3 (not to even 2), -2.5 to -3
    assert quant.symmetric_quantize(2.5, 127.0, 8)["answer"] == 3
    assert quant.symmetric_quantize(-2.5, 127.0, 8)["answer"] == -3


def test_asymmetric_zero_point_is_clamped_for_an_all_positive_range() -> None:
    # range [2, 10], 8 bits: scale 8/255; -min/scale = -63.75 -> clamped to 0
    assert quant.asymmetric_zero_point(2.0, 10.0, 8)["answer"] == 0
    # range [-1, 3]: scale 4/255; 1/scale = 63.75 -> 64
    assert quant.asymmetric_zero_point(-1.0, 3.0, 8)["answer"] == 64


def test_expert_params_mixtral() -> None:
    # 3 matrices x 4096 hidden x 14336 ffn = 176,160,768 parameters per expert per layer
    assert serving_more.expert_params(preset("models", "mixtral-8x7b")) == 176_160_768


def test_measured_tokens_per_s_rounds_to_three_figures() -> None:
    # 0.4 x 8 x 989e12 / (6 x 8.03e9) = 3.1648e12 / 4.818e10 = 65,687 -> 65,700 tokens/s
    value = training_extra.measured_tokens_per_s(
        preset("models", "llama-3-8b"), 8, preset("gpus", "h100-sxm"), 0.4
    )
    assert value == pytest.approx(65_700)


@pytest.mark.parametrize(("stage", "expected"), [(0, 16.0), (1, 5.5), (2, 3.75), (3, 2.0)])
def test_zero_bytes_per_param_dp8(stage: int, expected: float) -> None:
    # dp=8: stage 1 = 2 + 2 + 12/8 = 5.5; stage 2 = 2 + 14/8 = 3.75; stage 3 = 16/8 = 2
    assert training_extra.zero_bytes_per_param(8, stage) == pytest.approx(expected)


def test_effective_bandwidth_share_of_peak() -> None:
    # 1e8 elements x 12 B = 1.2e9 B in 600 us -> 2.0e12 B/s; / 3.35e12 peak = 0.597
    result = training_extra.effective_bandwidth(1e8, 12, 600, preset("gpus", "h100-sxm"))
    assert result["achieved"] == pytest.approx(2.0e12)
    assert result["answer"] == pytest.approx(2.0 / 3.35)


def test_occupancy_refuses_a_launch_that_cannot_fit() -> None:
    from solutions import kernels

    with pytest.raises(ValueError, match="not even one block"):
        kernels.occupancy(preset("gpus", "a100-80gb"), 1024, 255, 0)


def test_zero_state_bytes_per_param_splits_the_16_bytes() -> None:
    from solutions import training

    # dp=4, stage 2: weights 2, grads 2/4 = 0.5, optimizer 12/4 = 3
    assert training.zero_state_bytes_per_param(4, 2) == (2.0, 0.5, 3.0)
    # stage 0 keeps all 2 + 2 + 12 = 16 bytes on every GPU
    assert sum(training.zero_state_bytes_per_param(4, 0)) == 16.0
