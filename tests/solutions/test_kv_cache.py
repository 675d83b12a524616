"""Hand-worked tests for solutions/kv_cache.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution, preset
from solutions import kv_cache
from tests.presets import d, g, m
from tests.solutions.questions import grid, numeric_questions


def test_agent_kv_reload_vs_recompute_mistral_a100():
    # KV/token = 2 x 32 x 8 x 128 x 2 B = 131,072 B; size = 65,536 x 131,072 = 8,589,934,592 B
    # reload = 8.589934592e9 / 32e9 = 0.268435456 s
    # recompute = 2 x 7.24e9 x 65,536 = 9.4896128e14 FLOP / (0.6 x 312e12 = 1.872e14) = 5.06924 s
    # ratio = 5.06924 / 0.268435456 = 18.884
    got = kv_cache.agent_kv_reload_vs_recompute(
        model=m("mistral-7b"), gpu=g("a100-80gb"), dtype=d("bf16"), context_tokens=65536, mfu=0.6
    )
    assert got["per_token"] == 131_072
    assert got["reload"] == pytest.approx(0.268435456)
    assert got["recompute"] == pytest.approx(9.4896128e14 / 1.872e14)
    assert got["answer"] == pytest.approx(18.884, rel=1e-3)


def test_agent_ratio_does_not_depend_on_context_length():
    # both times are linear in T when attention FLOPs are ignored
    a = kv_cache.agent_kv_reload_vs_recompute(m("qwen2.5-7b"), g("h100-sxm"), d("fp8"), 8192, 0.5)
    b = kv_cache.agent_kv_reload_vs_recompute(m("qwen2.5-7b"), g("h100-sxm"), d("fp8"), 65536, 0.5)
    assert a["answer"] == pytest.approx(b["answer"])


def test_kv_window_sink_saved_bytes_llama3_8b():
    # KV/token = 131,072 B; kept = 4 + 2044 = 2048; dropped = 32768 - 2048 = 30,720
    # saved = 8 x 30,720 x 131,072 = 32,212,254,720 B; fraction = 30,720 / 32,768 = 0.9375
    got = kv_cache.kv_window_sink_saved_bytes(
        model=m("llama-3-8b"),
        dtype=d("bf16"),
        context_tokens=32768,
        sink_tokens=4,
        window_tokens=2044,
        batch=8,
    )
    assert got["answer"] == 32_212_254_720
    assert got["fraction"] == pytest.approx(0.9375)


def test_sparse_decode_read_ratio():
    # dense = 131,072 x 576 = 75,497,472; indexer = 131,072 x 128 = 16,777,216
    # selected = 2048 x 576 = 1,179,648; sparse = 17,956,864; ratio = 4.20438; limit 576/128 = 4.5
    got = kv_cache.sparse_decode_read_ratio(
        context_tokens=131072, topk=2048, kv_bytes=576, index_bytes=128
    )
    assert got["dense"] == 75_497_472
    assert got["sparse"] == 17_956_864
    assert got["answer"] == pytest.approx(4.20438, rel=1e-5)
    assert got["limit"] == pytest.approx(4.5)


def test_gqa_kv_saving_llama3_70b() -> None:
    # 64 query heads / 8 KV heads = 8x smaller KV cache than MHA
    assert kv_cache.gqa_kv_saving(preset("models", "llama-3-70b"))["answer"] == 8


def test_kv_budget_bytes_llama3_8b_on_h100() -> None:
    # 80e9 x 0.9 = 72e9 usable; minus 8.03e9 x 2 B = 16.06e9 -> 55.94e9 bytes left for KV
    budget = kv_cache.kv_budget_bytes(
        preset("models", "llama-3-8b"), preset("dtypes", "bf16"), preset("gpus", "h100-sxm"), 0.9
    )
    assert budget == pytest.approx(55.94e9)


def test_kv_budget_bytes_shards_weights_under_tp() -> None:
    # 70.6e9 x 2 B / 4 GPUs = 35.3e9 per GPU; 80e9 x 0.9 - 35.3e9 = 36.7e9
    budget = kv_cache.kv_budget_bytes(
        preset("models", "llama-3-70b"),
        preset("dtypes", "bf16"),
        preset("gpus", "h100-sxm"),
        0.9,
        tp=4,
    )
    assert budget == pytest.approx(36.7e9)


def test_kv_bytes_per_token_llama3_8b_bf16():
    # 2 (K,V) x 32 layers x 8 kv heads x 128 dim x 2 bytes = 131072 bytes
    assert kv_cache.kv_bytes_per_token(m("llama-3-8b"), d("bf16"))["answer"] == 131072


def test_kv_bytes_per_token_llama2_7b_mha():
    # MHA: 2 x 32 x 32 x 128 x 2 = 524288 bytes (4x Llama-3-8B)
    assert kv_cache.kv_bytes_per_token(m("llama-2-7b"), d("bf16"))["answer"] == 524288


def test_kv_cache_bytes_qwen72b_32k_batch64():
    # per token 2 x 80 x 8 x 128 x 2 = 327680 B; x 32768 x 64 = 687,194,767,360 B
    r = kv_cache.kv_cache_bytes(m("qwen2.5-72b"), d("bf16"), 32768, 64)
    assert r["answer"] == 327680 * 32768 * 64
    assert r["answer"] == pytest.approx(687.19e9, rel=1e-4)


def test_mla_kv_bytes_per_token_deepseek_v3():
    # 61 layers x (512 latent + 64 rope) x 2 B = 70272 B; MHA would be 2 x 128 x 128 = 32768
    # elements per layer, 32768 / 576 = 56.9x more
    r = kv_cache.mla_kv_bytes_per_token(m("deepseek-v3"), d("bf16"))
    assert r["answer"] == 70272
    assert r["ratio"] == pytest.approx(56.89, rel=1e-3)


def test_mla_equivalent_kv_heads_deepseek():
    # (512 + 64) / (2 x 128) = 576 / 256 = 2.25 GQA heads
    assert kv_cache.mla_equivalent_kv_heads(512, 64, 128)["answer"] == 2.25


def test_kv_token_capacity_llama3_70b_fp8_20gb():
    # per token 2 x 80 x 8 x 128 x 1 = 163840 B; 20e9 / 163840 = 122070.3 -> 122070 tokens
    # BF16: 327680 B per token -> 61035 tokens
    r = kv_cache.kv_token_capacity(m("llama-3-70b"), d("fp8"), 20)
    assert r["answer"] == 122070
    assert r["bf16_tokens"] == 61035


def test_max_concurrent_seqs_llama3_8b_h100():
    # budget 80e9 x 0.85 - 8.03e9 x 2 = 68e9 - 16.06e9 = 51.94e9 B
    # per seq (FP8 KV) 65536 B x 4096 = 268,435,456 B; 51.94e9 / 268.4e6 = 193.49 -> 193
    r = kv_cache.max_concurrent_seqs(
        m("llama-3-8b"), d("bf16"), d("fp8"), g("h100-sxm"), 0.85, 4096
    )
    assert r["answer"] == 193


def test_max_concurrent_seqs_qwen72b_tp8():
    # per GPU: 80e9 x 0.9 - 72.7e9 x 2 / 8 = 72e9 - 18.175e9 = 53.825e9 B
    # KV per token per GPU 327680 / 8 = 40960 B; x 8192 = 335,544,320 B; ratio 160.41 -> 160
    r = kv_cache.max_concurrent_seqs(
        m("qwen2.5-72b"), d("bf16"), d("bf16"), g("h100-sxm"), 0.9, 8192, tp=8
    )
    assert r["answer"] == 160


def test_kv_block_count_mistral_l40s():
    # budget 48e9 x 0.9 - 7.24e9 x 2 = 43.2e9 - 14.48e9 = 28.72e9 B
    # block 16 x 131072 = 2,097,152 B; 28.72e9 / 2097152 = 13694.6 -> 13694 blocks
    r = kv_cache.kv_block_count(m("mistral-7b"), d("bf16"), d("bf16"), g("l40s"), 0.9, 16)
    assert r["answer"] == 13694


def test_prefix_cache_saved_bytes_block_aligned():
    # floor(1000 / 16) = 62 blocks = 992 tokens shared, 8 tokens private
    # Llama-3-8B BF16: 2 x 32 x 8 x 128 x 2 = 131072 B/token
    # saved = (64 - 1) x 992 x 131072 = 63 x 130,023,424 = 8,191,475,712 B
    r = kv_cache.prefix_cache_saved_bytes(m("llama-3-8b"), d("bf16"), 1000, 64, 16)
    assert r["shared_tokens"] == 992
    assert r["private_tokens"] == 8
    assert r["answer"] == 8_191_475_712


def test_multi_turn_prefill_saving():
    # K=10, u=200, a=400: without = 10 x 200 + 600 x 10 x 9 / 2 = 2000 + 27000 = 29000
    # with = 2000; saved = 1 - 2000/29000 = 27/29 = 0.93103
    r = kv_cache.multi_turn_prefill_saving(10, 200, 400)
    assert r["without"] == 29000
    assert r["with_cache"] == 2000
    assert r["answer"] == pytest.approx(27 / 29)
    # last prompt = 9 x 600 + 200 = 5600
    assert r["last_prompt"] == 5600


def test_paged_fragmentation_bytes():
    # Llama-3-70B BF16: 2 x 80 x 8 x 128 x 2 = 327680 B/token; (16 - 1)/2 = 7.5 slots
    # 256 x 7.5 x 327680 = 629,145,600 B; worst = 256 x 15 x 327680 = 1,258,291,200 B
    r = kv_cache.paged_fragmentation_bytes(m("llama-3-70b"), d("bf16"), 256, 16)
    assert r["answer"] == 629_145_600
    assert r["worst"] == 1_258_291_200


def test_tp_kv_bytes_per_gpu_token_split_and_replicated():
    # Llama-3-70B BF16, TP 4: 8/4 = 2 heads -> 2 x 80 x 2 x 128 x 2 = 81,920 B
    r4 = kv_cache.tp_kv_bytes_per_gpu_token(m("llama-3-70b"), d("bf16"), 4)
    assert r4["answer"] == 81_920
    assert r4["replication"] == 1
    # TP 16: max(1, 8/16) = 1 head -> 2 x 80 x 1 x 128 x 2 = 40,960 B; 16 x 1 / 8 = 2x replication
    r16 = kv_cache.tp_kv_bytes_per_gpu_token(m("llama-3-70b"), d("bf16"), 16)
    assert r16["answer"] == 40_960
    assert r16["naive"] == 20_480
    assert r16["replication"] == 2


def test_tp_kv_rejects_uneven_split():
    with pytest.raises(ValueError):
        kv_cache.tp_kv_bytes_per_gpu_token(m("llama-3-70b"), d("bf16"), 3)


# --- the grids of the questions ----------------------------------------------------------------


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("kv_cache"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
