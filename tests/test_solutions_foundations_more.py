"""Hand-checked tests for solutions/foundations_more.py, used by the Module 1-3 calculation
questions in QUESTIONS. Each comment writes the arithmetic out."""

from __future__ import annotations

import itertools
import math

import pytest

from quizzer.grading.calc import preset
from solutions import foundations_more as fm
from tests.conftest import shipped_questions
from tests.presets import d, g, m

# The questions these solutions serve (the files calc-foundations and calc-parallel.yaml held them
# before question files followed topics).
QUESTIONS = (
    "calc-decoder-layer-ffn-share",
    "calc-model-total-params-from-config",
    "calc-tied-embedding-saving",
    "calc-attention-score-flops-share",
    "calc-naive-attention-score-memory",
    "calc-softmax-pass-traffic-time",
    "calc-tree-reduction-kernel-launches",
    "calc-flashattention-v1-q-reloads",
    "calc-megatron-activation-memory",
    "calc-ulysses-alltoall-bytes",
    "calc-ring-attention-kv-traffic",
    "calc-3d-parallel-states-per-gpu",
    "calc-3d-gradient-accumulation-steps",
    "calc-ring-vs-tree-crossover-size",
    "calc-adam-step-memory-time",
    "calc-fsdp-allgather-overlap-tokens",
    "calc-zero-offload-cpu-memory",
    "calc-activation-memory-recompute",
)


# --- Transformer parameters and FLOPs --------------------------------------------------------


def test_decoder_layer_params_llama2_7b():
    # MHA: 4 x 4096^2 = 67,108,864; SwiGLU: 3 x 4096 x 11008 = 135,266,304; norms 2 x 4096 = 8,192
    # layer = 67,108,864 + 135,266,304 + 8,192 = 202,383,360 (the article's figure)
    got = fm.decoder_layer_params(m("llama-2-7b"))
    assert got["attn"] == 67_108_864
    assert got["ffn"] == 135_266_304
    assert got["answer"] == 202_383_360


def test_layer_ffn_share_llama3_8b():
    # Q and O: 4096 x 4096 = 16,777,216 each; K and V: 4096 x (8 x 128) = 4,194,304 each
    # attention = 2 x 16,777,216 + 2 x 4,194,304 = 41,943,040
    # FFN = 3 x 4096 x 14336 = 176,160,768; norms = 8,192; layer = 218,112,000
    # share = 176,160,768 / 218,112,000 = 0.807659...
    got = fm.layer_ffn_share(m("llama-3-8b"))
    assert got["layer"] == 218_112_000
    assert got["answer"] == pytest.approx(176_160_768 / 218_112_000)
    assert got["answer"] == pytest.approx(0.80766, abs=1e-5)


def test_model_total_params_llama2_7b():
    # 32 x 202,383,360 = 6,476,267,520; embedding 32000 x 4096 = 131,072,000; LM head the same;
    # final norm 4096 -> 6,476,267,520 + 2 x 131,072,000 + 4,096 = 6,738,415,616
    got = fm.model_total_params(m("llama-2-7b"))
    assert got["answer"] == 6_738_415_616
    assert got["embed"] == 131_072_000


def test_model_total_params_llama3_8b_matches_published():
    # 32 x 218,112,000 = 6,979,584,000; 2 x 128256 x 4096 = 1,050,673,152; + 4096
    # = 8,030,261,248, i.e. the published 8.03B
    got = fm.model_total_params(m("llama-3-8b"))
    assert got["answer"] == 8_030_261_248
    assert abs(got["deviation"]) < 1e-3


def test_tied_embedding_saving_llama3_8b():
    # 128256 x 4096 = 525,336,576 saved; / 8.03e9 = 0.065422...
    got = fm.tied_embedding_saving(m("llama-3-8b"))
    assert got["saved"] == 525_336_576
    assert got["answer"] == pytest.approx(525_336_576 / 8.03e9)
    assert got["answer"] == pytest.approx(0.06542, abs=1e-5)


def test_attention_flops_share_llama3_8b_8k():
    # weight matrices = 41,943,040 + 176,160,768 = 218,103,808 -> 2x = 436,207,616 FLOP/token
    # causal scores: 2 x 8192 x 4096 = 67,108,864 FLOP/token
    # share = 67,108,864 / (436,207,616 + 67,108,864) = 0.133333... (exactly 2/15)
    got = fm.attention_flops_share(m("llama-3-8b"), 8192)
    assert got["weights"] == 218_103_808
    assert got["answer"] == pytest.approx(2 / 15)
    # crossover s = 218,103,808 / 4096 = 53,248 tokens
    assert got["crossover"] == 53_248


# --- attention, softmax, reduction, FlashAttention ------------------------------------------


def test_attention_score_bytes_article_exercise():
    # B=2, Nh=32, S=8192 in FP16: 2 x 32 x 8192^2 x 2 B = 2^1 x 2^5 x 2^26 x 2^1 = 2^33 B = 8 GiB
    got = fm.attention_score_bytes(2, 32, 8192, 128, d("fp16"))
    assert got["answer"] == 2**33
    # Q, K, V, O: 4 x 2 x 32 x 8192 x 128 x 2 B = 2^29 B = 512 MiB; ratio s / 4d = 16
    assert got["qkvo"] == 2**29
    assert got["ratio"] == 16


def test_softmax_kernel_time_three_pass_a100():
    # 4096 x 4096 x 4 B = 67,108,864 B; 3 reads + 1 write = 268,435,456 B
    # / 2039e9 B/s = 131.65 us
    got = fm.softmax_kernel_time(4096, 4096, d("fp32"), "3-pass safe", g("a100-80gb"))
    assert got["moved"] == 268_435_456
    assert got["answer"] == pytest.approx(268_435_456 / 2039e9)
    assert got["answer"] == pytest.approx(131.65e-6, rel=1e-4)


def test_softmax_kernel_time_variants_ratio():
    # 2-pass: 3 x matrix; 1-pass: 2 x matrix -> 3-pass / 1-pass time = 4 / 2 = 2
    three = fm.softmax_kernel_time(8192, 1024, d("bf16"), "3-pass safe", g("h100-sxm"))["answer"]
    two = fm.softmax_kernel_time(8192, 1024, d("bf16"), "2-pass online", g("h100-sxm"))["answer"]
    one = fm.softmax_kernel_time(8192, 1024, d("bf16"), "1-pass cached", g("h100-sxm"))["answer"]
    assert three / one == pytest.approx(2.0)
    assert two / one == pytest.approx(1.5)


def test_reduction_launches_2_pow_26():
    # 512 elements per block (256 threads x 2): 2^26 -> 2^17 -> 2^8 = 256 -> 1: 3 launches
    got = fm.reduction_launches(2**26, 256, 2)
    assert got["answer"] == 3
    assert got["chain"] == "67,108,864 → 131,072 → 256 → 1"
    assert got["tree_steps"] == 8


def test_reduction_launches_1e8_block128():
    # 1e8 / 128 = 781,250 -> ceil(6103.5) = 6,104 -> ceil(47.7) = 48 -> 1: 4 launches
    got = fm.reduction_launches(100_000_000, 128, 1)
    assert got["answer"] == 4
    assert got["first_blocks"] == 781_250


def test_flash_v1_q_passes_8k_d128_100kib():
    # M = 100 x 1024 / 2 = 51,200 elements; B_c = ceil(51200 / 512) = 100; B_r = min(100, 128)
    # = 100; T_c = ceil(8192 / 100) = 82
    got = fm.flash_v1_q_passes(8192, 128, 100, d("fp16"))
    assert got["m_elems"] == 51_200
    assert (got["b_c"], got["b_r"]) == (100, 100)
    assert got["answer"] == 82


def test_flash_v1_q_passes_2k_d64():
    # M = 51,200; B_c = ceil(51200 / 256) = 200; B_r = min(200, 64) = 64; T_c = ceil(2048/200) = 11
    got = fm.flash_v1_q_passes(2048, 64, 100, d("bf16"))
    assert (got["b_c"], got["b_r"], got["t_r"]) == (200, 64, 32)
    assert got["answer"] == 11


# --- activation memory and context parallelism ----------------------------------------------


def test_megatron_activation_llama2_7b():
    # sbh = 2048 x 1 x 4096 = 8,388,608; 5as/h = 5 x 32 x 2048 / 4096 = 80
    # per layer = 8,388,608 x 114 = 956,301,312 B; x 32 layers = 30,601,641,984 B (30.6 GB)
    # full recompute: 2 x 8,388,608 x 32 = 536,870,912 B
    got = fm.megatron_activation_bytes(m("llama-2-7b"), 2048, 1)
    assert got["score_term"] == 80
    assert got["answer"] == 30_601_641_984
    assert got["full_recompute"] == 536_870_912


def test_ulysses_alltoall_llama3_8b():
    # local tokens 131072 / 8 = 16,384; channels (2x32 + 2x8) x 128 = 10,240
    # local = 16,384 x 10,240 x 2 B = 335,544,320 B; sent = 7/8 x that = 293,601,280 B
    got = fm.ulysses_alltoall_bytes(m("llama-3-8b"), d("bf16"), 131072, 1, 8)
    assert got["channels"] == 10_240
    assert got["answer"] == 293_601_280


def test_ring_attention_llama3_8b():
    # block = 2 x 16,384 x 8 x 128 x 2 B = 67,108,864 B; 7 steps -> 469,762,048 B
    got = fm.ring_attention_bytes(m("llama-3-8b"), d("bf16"), 131072, 1, 8)
    assert got["block"] == 67_108_864
    assert got["answer"] == 469_762_048


# --- 3D layouts, collectives, FSDP, optimizer -------------------------------------------------


def test_three_d_states_405b():
    # DP = 1024 / (8 x 16) = 8; shard = 405.85e9 / 128 = 3.170703125e9
    # bytes/param = 2 + 2 + 12/8 = 5.5 -> 17,438,867,187.5 B (17.4 GB)
    got = fm.three_d_states_per_gpu(m("llama-3.1-405b"), 1024, 8, 16)
    assert got["dp"] == 8
    assert got["answer"] == pytest.approx(17_438_867_187.5)


def test_microbatches_per_step():
    # DP = 1024 / (8 x 8) = 16; 1024 / 16 = 64 sequences per replica; micro-batch 1 -> m = 64
    # bubble = 7 / (64 + 7) = 0.0986
    got = fm.microbatches_per_step(1024, 1, 1024, 8, 8)
    assert got["answer"] == 64
    assert got["bubble"] == pytest.approx(7 / 71)


def test_ring_tree_crossover_8_gpus():
    # S* = 25e9 x 2e-6 x (8 - 1 - 3) / (3 - 7/8) = 50,000 x 4 / 2.125 = 94,117.6 B
    got = fm.ring_tree_crossover(8, 2, 25)
    assert got["answer"] == pytest.approx(50_000 * 4 / 2.125)
    # check: at S*, ring = 14 x 2us + 1.75 x S*/B equals tree = 6 x (2us + S*/B)
    s, bw, a = got["answer"], 25e9, 2e-6
    assert 14 * a + 1.75 * s / bw == pytest.approx(6 * (a + s / bw))


def test_fsdp_overlap_tokens_h100():
    # 989e12 x 0.5 / 50e9 = 9,890 tokens; x 63/64 = 9,735.47
    got = fm.fsdp_overlap_tokens(g("h100-sxm"), 64, 50, 0.5)
    assert got["answer"] == pytest.approx(9890 * 63 / 64)


def test_adam_step_time_h100():
    # 1e9 params x 28 B = 28e9 B / 3350e9 B/s = 8.358 ms
    got = fm.adam_step_time(1e9, g("h100-sxm"))
    assert got["per_param"] == 28
    assert got["answer"] == pytest.approx(28 / 3350)


# --- grids of the questions ------------------------------------------------------------------


def _questions():
    yield from shipped_questions(QUESTIONS)


def _grid(params: dict):
    names, values = [], []
    for name, spec in params.items():
        names.append(name)
        if "preset" in spec:
            values.append([preset(spec["preset"], key) for key in spec["choose"]])
        elif "choose" in spec:
            values.append(spec["choose"])
        else:
            values.append([spec["value"]])
    for combo in itertools.product(*values):
        yield dict(zip(names, combo, strict=True))


def test_every_question_solves_on_its_whole_grid():
    from quizzer.grading.calc import load_solution

    for q in _questions():
        func = load_solution(q["solution"])
        for combo in _grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)


def test_layouts_divide_evenly():
    # every GPU count is a multiple of TP x PP, and every global batch splits into whole
    # micro-batches
    for q in _questions():
        if q["id"] == "calc-3d-gradient-accumulation-steps":
            for c in _grid(q["params"]):
                dp = c["gpus"] // (c["tp"] * c["pp"])
                assert c["gpus"] % (c["tp"] * c["pp"]) == 0, c
                assert c["global_batch"] % (dp * c["micro_batch"]) == 0, c
        if q["id"] == "calc-3d-parallel-states-per-gpu":
            for c in _grid(q["params"]):
                assert c["gpus"] % (c["tp"] * c["pp"]) == 0, c
        if q["id"] in ("calc-ulysses-alltoall-bytes", "calc-ring-attention-kv-traffic"):
            for c in _grid(q["params"]):
                p = c.get("sp") or c.get("cp")
                assert c["seq"] % p == 0, c
                if "sp" in c:
                    assert c["model"].kv_heads % p == 0 and c["model"].heads % p == 0, c
