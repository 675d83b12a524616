"""Hand-checked tests for solutions/serving_more.py, used by
question_bank/questions/inference/calc-serving.yaml. Each comment writes the arithmetic out."""

from __future__ import annotations

import pytest

from solutions import serving_more
from tests.presets import d, g, m

# --- chunked prefill ---------------------------------------------------------------------------


def test_chunked_prefill_steps():
    # chunk = 8192 - 32 = 8160; 20000 / 8160 = 2.45 -> 3 steps; last chunk = 20000 - 2*8160 = 3680
    r = serving_more.chunked_prefill_steps(20000, 8192, 32)
    assert r["answer"] == 3
    assert r["chunk"] == 8160
    assert r["last_chunk"] == 3680


def test_chunked_prefill_steps_exact_multiple_does_not_round_up():
    # chunk = 2048 - 48 = 2000; 10000 / 2000 = 5 exactly -> 5 steps, last chunk 2000
    r = serving_more.chunked_prefill_steps(10000, 2048, 48)
    assert r["answer"] == 5
    assert r["last_chunk"] == 2000


def test_chunked_prefill_steps_budget_exhausted():
    with pytest.raises(ValueError):
        serving_more.chunked_prefill_steps(1000, 64, 64)


def test_prefill_stall_ratio_h100():
    # ratio = 2 x P x BW / (mfu x peak x bytes) = 2 x 8192 x 3.35e12 / (0.5 x 989e12 x 2)
    #       = 5.48864e16 / 9.89e14 = 55.497
    r = serving_more.prefill_stall_ratio(m("llama-3-8b"), d("bf16"), g("h100-sxm"), 8192, 0.5)
    assert r["answer"] == pytest.approx(55.497, rel=1e-4)
    # prefill = 2 x 8.03e9 x 8192 / 4.945e14 = 0.26605 s; step = 16.06e9 / 3.35e12 = 4.794 ms
    assert r["prefill"] == pytest.approx(0.26605, rel=1e-4)
    assert r["step"] == pytest.approx(4.794e-3, rel=1e-3)


# --- prefix caching ------------------------------------------------------------------------------


def test_prefix_cache_saved_bytes_block_aligned():
    # floor(1000 / 16) = 62 blocks = 992 tokens shared, 8 tokens private
    # Llama-3-8B BF16: 2 x 32 x 8 x 128 x 2 = 131072 B/token
    # saved = (64 - 1) x 992 x 131072 = 63 x 130,023,424 = 8,191,475,712 B
    r = serving_more.prefix_cache_saved_bytes(m("llama-3-8b"), d("bf16"), 1000, 64, 16)
    assert r["shared_tokens"] == 992
    assert r["private_tokens"] == 8
    assert r["answer"] == 8_191_475_712


def test_multi_turn_prefill_saving():
    # K=10, u=200, a=400: without = 10 x 200 + 600 x 10 x 9 / 2 = 2000 + 27000 = 29000
    # with = 2000; saved = 1 - 2000/29000 = 27/29 = 0.93103
    r = serving_more.multi_turn_prefill_saving(10, 200, 400)
    assert r["without"] == 29000
    assert r["with_cache"] == 2000
    assert r["answer"] == pytest.approx(27 / 29)
    # last prompt = 9 x 600 + 200 = 5600
    assert r["last_prompt"] == 5600


# --- PagedAttention ------------------------------------------------------------------------------


def test_paged_fragmentation_bytes():
    # Llama-3-70B BF16: 2 x 80 x 8 x 128 x 2 = 327680 B/token; (16 - 1)/2 = 7.5 slots
    # 256 x 7.5 x 327680 = 629,145,600 B; worst = 256 x 15 x 327680 = 1,258,291,200 B
    r = serving_more.paged_fragmentation_bytes(m("llama-3-70b"), d("bf16"), 256, 16)
    assert r["answer"] == 629_145_600
    assert r["worst"] == 1_258_291_200


# --- continuous batching -------------------------------------------------------------------------


def test_continuous_vs_static_ratio():
    # static: (2000 + 31 x 200) / 2000 = 8200 / 2000 = 4.1 tokens/step; continuous 32
    # ratio = 32 / 4.1 = 7.8049
    r = serving_more.continuous_vs_static_ratio(32, 2000, 200)
    assert r["static"] == pytest.approx(4.1)
    assert r["answer"] == pytest.approx(32 / 4.1)
    # utilization = 8200 / 64000 = 0.128125
    assert r["utilization"] == pytest.approx(0.128125)


def test_continuous_vs_static_equal_lengths_is_one():
    # all outputs 500 long: static = (500 + 7 x 500) / 500 = 8 tokens/step = batch -> ratio 1
    assert serving_more.continuous_vs_static_ratio(8, 500, 500)["answer"] == pytest.approx(1.0)


# --- latency under load --------------------------------------------------------------------------


def test_burst_mean_ttft():
    # rate = 0.5 x 989e12 / (2 x 8.03e9) = 30,790.8 tokens/s
    # t_p = 2048 / 30790.8 = 0.066513 s; mean = 0.066513 x 33 / 2 = 1.09747 s;
    # last = 32 t_p = 2.1284 s
    r = serving_more.burst_mean_ttft(m("llama-3-8b"), g("h100-sxm"), 0.5, 32, 2048)
    assert r["tokens_per_s"] == pytest.approx(30790.8, rel=1e-5)
    assert r["answer"] == pytest.approx(1.09747, rel=1e-4)
    assert r["last"] == pytest.approx(2.12843, rel=1e-4)


def test_littles_law_concurrency():
    # E2E = 0.3 + 399 x 0.03 = 12.27 s; L = 20 x 12.27 = 245.4
    r = serving_more.littles_law_concurrency(20, 300, 30, 400)
    assert r["e2e"] == pytest.approx(12.27)
    assert r["answer"] == pytest.approx(245.4)


# --- MoE -----------------------------------------------------------------------------------------


def test_ep_expert_bytes_per_gpu_deepseek_v3():
    # expert = 3 x 7168 x 2048 = 44,040,192; 256 / 32 = 8 experts; 61 - 3 = 58 layers
    # 8 x 58 x 44,040,192 = 20,434,649,088 params x 1 B (FP8)
    r = serving_more.ep_expert_bytes_per_gpu(m("deepseek-v3"), d("fp8"), 32, 3)
    assert r["per_expert"] == 44_040_192
    assert r["moe_layers"] == 58
    assert r["answer"] == 20_434_649_088


def test_moe_decode_expert_bytes_mixtral():
    # expert = 3 x 4096 x 14336 = 176,160,768
    # batch 1: distinct = 8 x (1 - 0.75) = 2 -> 32 x 2 x 176,160,768 x 2 B = 22,548,578,304 B
    r1 = serving_more.moe_decode_expert_bytes(m("mixtral-8x7b"), d("bf16"), 1)
    assert r1["distinct"] == pytest.approx(2.0)
    assert r1["answer"] == pytest.approx(22_548_578_304)
    # batch 4: distinct = 8 x (1 - 0.75^4) = 8 x (1 - 0.31640625) = 5.46875
    # bytes = 32 x 5.46875 x 176,160,768 x 2 = 61,656,268,800 B
    r4 = serving_more.moe_decode_expert_bytes(m("mixtral-8x7b"), d("bf16"), 4)
    assert r4["distinct"] == pytest.approx(5.46875)
    assert r4["answer"] == pytest.approx(61_656_268_800)


# --- TP / PP -------------------------------------------------------------------------------------


def test_tp_kv_bytes_per_gpu_token_split_and_replicated():
    # Llama-3-70B BF16, TP 4: 8/4 = 2 heads -> 2 x 80 x 2 x 128 x 2 = 81,920 B
    r4 = serving_more.tp_kv_bytes_per_gpu_token(m("llama-3-70b"), d("bf16"), 4)
    assert r4["answer"] == 81_920
    assert r4["replication"] == 1
    # TP 16: max(1, 8/16) = 1 head -> 2 x 80 x 1 x 128 x 2 = 40,960 B; 16 x 1 / 8 = 2x replication
    r16 = serving_more.tp_kv_bytes_per_gpu_token(m("llama-3-70b"), d("bf16"), 16)
    assert r16["answer"] == 40_960
    assert r16["naive"] == 20_480
    assert r16["replication"] == 2


def test_tp_kv_rejects_uneven_split():
    with pytest.raises(ValueError):
        serving_more.tp_kv_bytes_per_gpu_token(m("llama-3-70b"), d("bf16"), 3)


def test_pp_decode_throughput():
    # p=4, m=2, b=64, t=10 ms: cycle = max(2,4) x 10 ms = 40 ms; 2 x 64 / 0.04 = 3200 tokens/s
    r = serving_more.pp_decode_throughput(4, 2, 64, 10)
    assert r["answer"] == pytest.approx(3200)
    assert r["tpot"] == pytest.approx(0.04)
    assert r["busy"] == pytest.approx(0.5)
    # m=8 >= p=4: cycle = 8 x 5 ms = 40 ms; 8 x 64 / 0.04 = 12800 = b / t = 64 / 0.005
    assert serving_more.pp_decode_throughput(4, 8, 64, 5)["answer"] == pytest.approx(12800)


# --- PD disaggregation ---------------------------------------------------------------------------


def test_pd_decode_instances():
    # prefill: 2 / 0.25 = 8 req/s; decode: 128 / (500 x 0.04 s = 20 s) = 6.4 req/s;
    # 8 / 6.4 = 1.25 -> 2
    r = serving_more.pd_decode_instances(2, 0.25, 128, 501, 40)
    assert r["arrival"] == pytest.approx(8)
    assert r["per_decode"] == pytest.approx(6.4)
    assert r["answer"] == 2


def test_pd_decode_instances_exact_ratio_not_rounded_up():
    # prefill: 2 / 0.2 = 10 req/s; decode: 64 / (200 x 0.032 s = 6.4 s) = 10 req/s -> exactly 1
    r = serving_more.pd_decode_instances(2, 0.2, 64, 201, 32)
    assert r["exact"] == pytest.approx(1.0)
    assert r["answer"] == 1
    # prefill: 2 / 0.1 = 20 req/s; decode: 32 / (200 x 0.05 s = 10 s) = 3.2 req/s -> 6.25 -> 7
    assert serving_more.pd_decode_instances(2, 0.1, 32, 201, 50)["answer"] == 7


# --- speculative decoding ------------------------------------------------------------------------


def test_spec_alpha_for_speedup():
    # k=4, c=0.05: cost = 1.2; needed E = 2.0 x 1.2 = 2.4
    # alpha = 0.62218: 1 + a + a^2 + a^3 + a^4 = 1 + 0.62218 + 0.38711 + 0.24085 + 0.14985 = 2.3999
    r = serving_more.spec_alpha_for_speedup(4, 0.05, 2.0)
    assert r["needed"] == pytest.approx(2.4)
    assert r["answer"] == pytest.approx(0.62218, abs=1e-4)
    a = r["answer"]
    assert sum(a**i for i in range(5)) == pytest.approx(2.4, rel=1e-9)


def test_spec_alpha_for_speedup_unreachable():
    # ceiling = (3 + 1) / (3 x 0.5 + 1) = 1.6 < 2
    with pytest.raises(ValueError):
        serving_more.spec_alpha_for_speedup(3, 0.5, 2.0)


def test_spec_mean_accept_length():
    # draft tokens = 2000 x 4 x 0.9 = 7200; accepted = 7200 x 0.6 = 4320
    # mean length = 1 + 4320 / 2000 = 3.16; rate = 0.6; naive = 4320 / 8000 = 0.54
    r = serving_more.spec_mean_accept_length(2000, 4, 0.9, 0.6)
    assert r["draft_tokens"] == 7200
    assert r["accepted"] == 4320
    assert r["answer"] == pytest.approx(3.16)
    assert r["naive_rate"] == pytest.approx(0.54)


# --- quantization --------------------------------------------------------------------------------


def test_smoothquant_factor():
    # alpha 0.5: s = sqrt(40) / sqrt(0.5) = sqrt(80) = 8.9443;
    # both maxima -> sqrt(40 x 0.5) = 4.4721
    r = serving_more.smoothquant_factor(40, 0.5, 0.5)
    assert r["answer"] == pytest.approx(80**0.5)
    assert r["x_new"] == pytest.approx(20**0.5)
    assert r["w_new"] == pytest.approx(20**0.5)
    # alpha 0.75: s = 16^0.75 / 1^0.25 = 8
    assert serving_more.smoothquant_factor(16, 1.0, 0.75)["answer"] == pytest.approx(8)


def test_kivi_compression():
    # 2-bit, group 32: 2 + 32/32 = 3 bits;
    # avg = (3968 x 3 + 128 x 16) / 4096 = 13952 / 4096 = 3.40625
    # ratio = 16 / 3.40625 = 4.6972
    r = serving_more.kivi_compression(2, 32, 4096, 128)
    assert r["quant_bits"] == pytest.approx(3.0)
    assert r["avg_bits"] == pytest.approx(3.40625)
    assert r["answer"] == pytest.approx(16 / 3.40625)
    assert r["no_residual"] == pytest.approx(16 / 3)


def test_w4a16_weight_bytes_llama3_8b():
    # embed + head = 2 x 128256 x 4096 = 1,050,673,152 params x 2 B = 2,101,346,304 B
    # quantized = 8.03e9 - 1,050,673,152 = 6,979,326,848 params
    # bits = 4 + (16 + 4) / 128 = 4.15625 -> 6,979,326,848 x 4.15625 / 8 = 3,625,978,401.5 B
    # total = 5,727,324,705.5 B
    r = serving_more.w4a16_weight_bytes(m("llama-3-8b"), 128, 16, 4)
    assert r["head_bytes"] == 2_101_346_304
    assert r["bits"] == pytest.approx(4.15625)
    assert r["answer"] == pytest.approx(5_727_324_705.5)
    assert r["ratio"] == pytest.approx(16.06e9 / 5_727_324_705.5)
