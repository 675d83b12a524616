"""Hand-checked tests for the solutions used by the Module 4 calculation questions (ids calc-*).
Each comment writes the arithmetic out."""

from __future__ import annotations

import math

import pytest

from solutions import comm, inference, quant, serving_extra, speculative
from tests.conftest import shipped_questions
from tests.presets import d, g, m

# --- weights -------------------------------------------------------------------------------


def test_weight_bytes_llama3_70b_bf16():
    # 70.6e9 params x 2 B = 141.2e9 B
    assert inference.weight_bytes(m("llama-3-70b"), d("bf16"))["answer"] == pytest.approx(141.2e9)


def test_weight_bytes_qwen72b_fp8_in_gib():
    # 72.7e9 x 1 B = 72.7e9 B; / 2^30 = 67.71 GiB
    got = inference.weight_bytes(m("qwen2.5-72b"), d("fp8"))["answer"] / 2**30
    assert got == pytest.approx(67.707, rel=1e-4)


def test_min_gpus_405b_bf16_h100():
    # 405.85e9 x 2 = 811.7 GB; per GPU 80 GB x 0.9 = 72 GB; 811.7 / 72 = 11.27 -> 12 GPUs
    r = inference.min_gpus_for_weights(m("llama-3.1-405b"), d("bf16"), g("h100-sxm"), 0.9)
    assert r["answer"] == 12
    assert r["exact"] == pytest.approx(811.7 / 72)


def test_min_gpus_70b_fp8_h200_fits_on_one():
    # 70.6 GB / (141 GB x 0.9 = 126.9 GB) = 0.556 -> 1 GPU
    assert inference.min_gpus_for_weights(m("llama-3-70b"), d("fp8"), g("h200"), 0.9)["answer"] == 1


# --- KV cache --------------------------------------------------------------------------------


def test_kv_bytes_per_token_llama3_8b_bf16():
    # 2 (K,V) x 32 layers x 8 kv heads x 128 dim x 2 bytes = 131072 bytes
    assert inference.kv_bytes_per_token(m("llama-3-8b"), d("bf16"))["answer"] == 131072


def test_kv_bytes_per_token_llama2_7b_mha():
    # MHA: 2 x 32 x 32 x 128 x 2 = 524288 bytes (4x Llama-3-8B)
    assert inference.kv_bytes_per_token(m("llama-2-7b"), d("bf16"))["answer"] == 524288


def test_kv_cache_bytes_qwen72b_32k_batch64():
    # per token 2 x 80 x 8 x 128 x 2 = 327680 B; x 32768 x 64 = 687,194,767,360 B
    r = inference.kv_cache_bytes(m("qwen2.5-72b"), d("bf16"), 32768, 64)
    assert r["answer"] == 327680 * 32768 * 64
    assert r["answer"] == pytest.approx(687.19e9, rel=1e-4)


def test_mla_kv_bytes_per_token_deepseek_v3():
    # 61 layers x (512 latent + 64 rope) x 2 B = 70272 B; MHA would be 2 x 128 x 128 = 32768
    # elements per layer, 32768 / 576 = 56.9x more
    r = inference.mla_kv_bytes_per_token(m("deepseek-v3"), d("bf16"))
    assert r["answer"] == 70272
    assert r["ratio"] == pytest.approx(56.89, rel=1e-3)


def test_mla_equivalent_kv_heads_deepseek():
    # (512 + 64) / (2 x 128) = 576 / 256 = 2.25 GQA heads
    assert serving_extra.mla_equivalent_kv_heads(512, 64, 128)["answer"] == 2.25


def test_kv_token_capacity_llama3_70b_fp8_20gb():
    # per token 2 x 80 x 8 x 128 x 1 = 163840 B; 20e9 / 163840 = 122070.3 -> 122070 tokens
    # BF16: 327680 B per token -> 61035 tokens
    r = serving_extra.kv_token_capacity(m("llama-3-70b"), d("fp8"), 20)
    assert r["answer"] == 122070
    assert r["bf16_tokens"] == 61035


# --- concurrency and blocks --------------------------------------------------------------------


def test_max_concurrent_seqs_llama3_8b_h100():
    # budget 80e9 x 0.85 - 8.03e9 x 2 = 68e9 - 16.06e9 = 51.94e9 B
    # per seq (FP8 KV) 65536 B x 4096 = 268,435,456 B; 51.94e9 / 268.4e6 = 193.49 -> 193
    r = inference.max_concurrent_seqs(
        m("llama-3-8b"), d("bf16"), d("fp8"), g("h100-sxm"), 0.85, 4096
    )
    assert r["answer"] == 193


def test_max_concurrent_seqs_qwen72b_tp8():
    # per GPU: 80e9 x 0.9 - 72.7e9 x 2 / 8 = 72e9 - 18.175e9 = 53.825e9 B
    # KV per token per GPU 327680 / 8 = 40960 B; x 8192 = 335,544,320 B; ratio 160.41 -> 160
    r = inference.max_concurrent_seqs(
        m("qwen2.5-72b"), d("bf16"), d("bf16"), g("h100-sxm"), 0.9, 8192, tp=8
    )
    assert r["answer"] == 160


def test_kv_block_count_mistral_l40s():
    # budget 48e9 x 0.9 - 7.24e9 x 2 = 43.2e9 - 14.48e9 = 28.72e9 B
    # block 16 x 131072 = 2,097,152 B; 28.72e9 / 2097152 = 13694.6 -> 13694 blocks
    r = inference.kv_block_count(m("mistral-7b"), d("bf16"), d("bf16"), g("l40s"), 0.9, 16)
    assert r["answer"] == 13694


# --- decode and roofline -----------------------------------------------------------------------


def test_decode_step_time_llama3_8b_l40s():
    # 8.03e9 x 2 = 16.06e9 B / 864e9 B/s = 18.59 ms
    assert inference.decode_step_time(m("llama-3-8b"), d("bf16"), g("l40s"))[
        "answer"
    ] == pytest.approx(18.588e-3, rel=1e-4)


def test_decode_tokens_per_s_70b_fp8_h100():
    # 3350e9 / 70.6e9 = 47.45 tokens/s
    r = inference.decode_tokens_per_s(m("llama-3-70b"), d("fp8"), g("h100-sxm"))
    assert r["answer"] == pytest.approx(47.45, rel=1e-3)


def test_decode_step_time_with_kv_llama3_8b():
    # weights 16.06e9; KV 65536 (FP8) x 2048 x 8 = 1,073,741,824 B
    # (16.06e9 + 1.0737e9) / 3350e9 = 5.115 ms
    r = inference.decode_step_time_with_kv(
        m("llama-3-8b"), d("bf16"), d("fp8"), g("h100-sxm"), 8, 2048
    )
    assert r["kv_bytes"] == 1073741824
    assert r["answer"] == pytest.approx(5.1146e-3, rel=1e-4)


def test_decode_throughput_qwen7b_batch128():
    # weights 7.61e9 x 2 = 15.22e9; KV 57344 x 512 x 128 = 3,758,096,384 B
    # step = 18.978e9 / 3350e9 = 5.665 ms; 128 / 5.665 ms = 22594 tokens/s
    r = inference.decode_throughput(m("qwen2.5-7b"), d("bf16"), d("bf16"), g("h100-sxm"), 128, 512)
    assert r["answer"] == pytest.approx(22594.5, rel=1e-4)


def test_decode_arithmetic_intensity_int4_batch64():
    # 2 x 64 FLOP per weight / 0.5 B per weight = 256 FLOP/B
    assert inference.decode_arithmetic_intensity(64, d("int4"))["answer"] == 256


def test_ridge_point_h100():
    # 989e12 / 3350e9 = 295.2 FLOP/B
    assert inference.ridge_point(g("h100-sxm"))["answer"] == pytest.approx(295.22, rel=1e-4)


def test_decode_critical_batch_h100_int4():
    # ridge 295.2 x 0.5 B / 2 = 73.8
    assert inference.decode_critical_batch(g("h100-sxm"), d("int4"))["answer"] == pytest.approx(
        73.81, rel=1e-3
    )


def test_prefill_time_qwen7b_h200():
    # 2 x 7.61e9 x 8192 = 124.68e12 FLOP / (0.4 x 989e12 = 395.6e12) = 315.2 ms
    r = inference.prefill_time(m("qwen2.5-7b"), g("h200"), 8192, 0.4)
    assert r["answer"] == pytest.approx(0.31517, rel=1e-4)


def test_e2e_ttft_share():
    # 500 + 40 x 19 = 1260 ms; 500 / 1260 = 39.68 %
    assert serving_extra.e2e_ttft_share(500, 40, 20)["answer"] == pytest.approx(0.39683, rel=1e-4)


# --- parallelism and disaggregation -------------------------------------------------------------


def test_tp_allreduce_bytes_per_token_llama3_70b():
    # 2 AllReduces x 8192 x 2 B = 32768 B per layer; x 80 layers = 2,621,440 B
    assert inference.tp_allreduce_bytes_per_token(m("llama-3-70b"), d("bf16"))["answer"] == 2621440


def test_tp_layer_allreduce_time_70b_tp4():
    # S = 8192 x 8192 x 2 = 134,217,728 B; sent = 2 x 2 x 3/4 x S = 402,653,184 B
    # 402.65e6 / 300e9 = 1.342 ms
    r = comm.tp_layer_allreduce_time(m("llama-3-70b"), d("bf16"), 8192, 4, 300)
    assert r["sent"] == 402653184
    assert r["answer"] == pytest.approx(1.3422e-3, rel=1e-4)


def test_kv_transfer_time_qwen7b():
    # 57344 B x 4096 = 234,881,024 B / 25e9 = 9.395 ms
    r = inference.kv_transfer_time(m("qwen2.5-7b"), d("bf16"), 4096, 25)
    assert r["answer"] == pytest.approx(9.3952e-3, rel=1e-4)


def test_pd_link_bandwidth_qwen7b_h100():
    # prefill per token 2 x 7.61e9 / (0.5 x 989e12) = 30.78 us; KV 57344 B
    # 57344 / (0.1 x 30.78e-6) = 18.63e9 B/s (149 Gb/s)
    r = serving_extra.pd_link_bandwidth(m("qwen2.5-7b"), d("bf16"), g("h100-sxm"), 0.5, 0.1)
    assert r["answer"] == pytest.approx(18.63e9, rel=1e-3)
    assert r["gbit_per_s"] == pytest.approx(149.1, rel=1e-3)


# --- quantization --------------------------------------------------------------------------------


def test_symmetric_scale_int4():
    # qmax = 2^3 - 1 = 7; 10.5 / 7 = 1.5
    assert quant.symmetric_scale(10.5, 4)["answer"] == 1.5


def test_symmetric_quantize_int8():
    # scale 6.5 / 127 = 0.051181; 0.87 / 0.051181 = 16.998 -> 17
    assert quant.symmetric_quantize(0.87, 6.5, 8)["answer"] == 17
    # outlier case: scale 40 / 127 = 0.31496; -2.31 / 0.31496 = -7.33 -> -7
    assert quant.symmetric_quantize(-2.31, 40.0, 8)["answer"] == -7


def test_asymmetric_zero_point():
    # scale (5.8 + 0.9) / 255 = 0.026275; 0.9 / 0.026275 = 34.25 -> 34
    assert quant.asymmetric_zero_point(-0.9, 5.8, 8)["answer"] == 34


def test_quantize_dequantize_article_example():
    # x = 0.26, s = 0.1, z = 0 in the article: 2.6 -> 3 -> 0.3 (here with z = 128: q = 131)
    r = serving_extra.quantize_dequantize(0.26, 0.1, 128)
    assert r["q"] == 131
    assert r["answer"] == pytest.approx(0.3)


def test_quantize_dequantize_negative():
    # -0.215 / 0.02 = -10.75 -> -11; q = 117; x_hat = 0.02 x -11 = -0.22
    assert serving_extra.quantize_dequantize(-0.215, 0.02, 128)["answer"] == pytest.approx(-0.22)


def test_round_half_away_tolerates_float_noise():
    # 0.35 / 0.1 = 3.4999999999999996 in floating point; halves go away from zero -> 4
    assert serving_extra.round_half_away(0.35 / 0.1) == 4
    assert serving_extra.round_half_away(-2.5) == -3


def test_group_storage_int4_g128():
    # 4 + 16 / 128 = 4.125 bits = 0.515625 bytes
    r = serving_extra.group_storage_per_weight(4, 128, 16, 0)
    assert r["bits_total"] == 4.125
    assert r["answer"] == 0.515625


def test_int4_weight_bytes_405b():
    # 405.85e9 x 4.125 / 8 = 209.2664e9 B
    assert quant.int4_weight_bytes(m("llama-3.1-405b"), 128)["answer"] == pytest.approx(
        209.2664e9, rel=1e-5
    )


def test_fp8_scale_e4m3_and_e5m2():
    # 896 / 448 = 2; 3140 / 57344 = 0.05476
    assert quant.fp8_scale(896, "e4m3")["answer"] == 2
    assert quant.fp8_scale(3140, "e5m2")["answer"] == pytest.approx(0.054757, rel=1e-4)


def test_fp8_spacing():
    # E4M3 in [1, 2): 2^(0 - 3) = 0.125; in [8, 16): 2^(3 - 3) = 1; E5M2 at 100: 2^(6 - 2) = 16
    assert serving_extra.fp8_spacing("e4m3", 1.3)["answer"] == 0.125
    assert serving_extra.fp8_spacing("e4m3", 10.0)["answer"] == 1
    assert serving_extra.fp8_spacing("e5m2", 100.0)["answer"] == 16


def test_block_fp4_bits():
    # MXFP4: 4 + 8/32 = 4.25 bits; NVFP4: 4 + 8/16 = 4.5 bits
    assert serving_extra.block_fp4_storage_per_element(32, 8)["bits_total"] == 4.25
    assert serving_extra.block_fp4_storage_per_element(16, 8)["bits_total"] == 4.5
    assert serving_extra.block_fp4_storage_per_element(16, 8)["answer"] == 4.5 / 8


# --- speculative decoding -------------------------------------------------------------------------


def test_expected_tokens_per_step():
    # (1 - 0.8^4) / (1 - 0.8) = (1 - 0.4096) / 0.2 = 2.952
    assert speculative.expected_tokens_per_step(0.8, 3)["answer"] == pytest.approx(2.952)


def test_speculative_speedup():
    # E = (1 - 0.8^6) / 0.2 = 3.68928; cost 5 x 0.02 + 1 = 1.1; 3.68928 / 1.1 = 3.354
    assert speculative.speculative_speedup(0.8, 5, 0.02)["answer"] == pytest.approx(
        3.35389, rel=1e-5
    )


def test_spec_break_even_draft_cost():
    # E = (1 - 0.5^7) / 0.5 = 1.984375; (E - 1) / 6 = 0.16406
    assert serving_extra.spec_break_even_draft_cost(0.5, 6)["answer"] == pytest.approx(
        0.164063, rel=1e-5
    )


def test_break_even_makes_speedup_one():
    # at c = (E - 1) / k the speedup is exactly 1
    c = serving_extra.spec_break_even_draft_cost(0.7, 4)["answer"]
    assert speculative.speculative_speedup(0.7, 4, c)["answer"] == pytest.approx(1.0)


# --- the curated parameter lists avoid rounding ties ----------------------------------------------


def _params(qid: str) -> dict:
    [question] = shipped_questions([qid])
    return question["params"]


def _distance_from_half(v: float) -> float:
    return abs(abs(v) % 1 - 0.5)


def test_symmetric_quantize_params_have_no_near_ties():
    p = _params("calc-symmetric-quantize-value")
    for x in p["x"]["choose"]:
        for absmax in p["absmax"]["choose"]:
            assert _distance_from_half(x * 127 / absmax) >= 0.15, (x, absmax)


def test_zero_point_params_have_no_near_ties():
    p = _params("calc-asymmetric-zero-point")
    for lo in p["x_min"]["choose"]:
        for hi in p["x_max"]["choose"]:
            assert _distance_from_half(-lo * 255 / (hi - lo)) >= 0.1, (lo, hi)


def test_roundtrip_params_have_no_ties_and_no_clamping():
    p = _params("calc-quant-dequant-roundtrip")
    for x in p["x"]["choose"]:
        for s in p["scale"]["choose"]:
            assert _distance_from_half(x / s) >= 0.2, (x, s)
            for z in p["zero_point"]["choose"]:
                steps = serving_extra.round_half_away(x / s)
                assert 0 <= steps + z <= 255


def test_fp8_spacing_params_are_normal_non_powers_of_two():
    p = _params("calc-fp8-spacing")
    for v in p["value"]["choose"]:
        assert not math.log2(v).is_integer()
        assert v >= 2**-6
        assert v <= 448
