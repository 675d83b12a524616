"""The presets in question_bank/data/ against their sources: every model's parameter total,
recomputed from its config fields, matches its `params` (and an MoE model's `active_params`)
within 0.1%, and the GPU figures are dense and self-consistent. Each count is written out."""

from __future__ import annotations

from typing import Any

import pytest

from quizzer.grading.calc import presets
from solutions import memory as fm
from tests.presets import g, m

TOLERANCE = 1e-3
"""Published counts are quoted to 3-4 significant figures: 0.1%."""


def _attention(model: Any) -> int:
    """Attention weights of one layer. GQA: Q and O are d x (heads x head_dim), K and V
    d x (kv_heads x head_dim); Qwen2 adds biases on Q, K and V. MLA (DeepSeek-V3): the query
    goes down to q_lora_rank and up to heads x (nope + rope), K and V share a latent of
    kv_lora_rank (+ the rope key) that goes up to heads x (nope + v), and O is heads x v -> d;
    the two latents have an RMSNorm each."""
    d, heads, hd = model.hidden, model.heads, model.head_dim
    if "kv_lora_rank" in model:
        rope, q_rank, kv_rank = model.qk_rope_head_dim, model.q_lora_rank, model.kv_lora_rank
        q = d * q_rank + q_rank + q_rank * heads * (hd + rope)
        kv = d * (kv_rank + rope) + kv_rank + kv_rank * heads * (hd + hd)
        return q + kv + heads * hd * d
    q_dim, kv_dim = heads * hd, model.kv_heads * hd
    weights = d * q_dim + 2 * d * kv_dim + q_dim * d
    if model.get("qkv_bias"):
        weights += q_dim + 2 * kv_dim
    if model.get("biases"):
        weights += q_dim + 2 * kv_dim + d
    return weights


def _mlp(model: Any, ffn: int) -> int:
    """One MLP: SwiGLU has gate, up and down (3 d ffn); GPT-3's GELU MLP has two matrices and
    their biases (2 d ffn + ffn + d)."""
    d = model.hidden
    if model.get("mlp") == "gelu":
        return 2 * d * ffn + ffn + d
    return 3 * d * ffn


def _norms(model: Any) -> int:
    """Two norms per layer: RMSNorm has a weight, LayerNorm (with biases) a weight and a bias."""
    return (4 if model.get("biases") else 2) * model.hidden


def _moe_layer(model: Any, active: bool) -> int:
    """Routed experts (all, or the top-k a token uses), shared experts and the router
    (d x experts; DeepSeek-V3 adds a per-expert bias for its aux-loss-free balancing)."""
    routed = model.experts_per_token if active else model.experts
    experts = (routed + model.shared_experts) * _mlp(model, model.ffn)
    router = model.hidden * model.experts
    if "kv_lora_rank" in model:
        router += model.experts
    return experts + router


def config_params(model: Any, active: bool = False) -> int:
    """Total (or, for an MoE model, per-token active) parameters from the config fields:
    layers x (attention + MLP + norms) + embeddings (+ LM head unless tied, + learned positions)
    + the final norm. The LM head counts as active: every token uses it."""
    d = model.hidden
    dense_layers = model.get("first_dense_layers", 0) if "experts" in model else model.layers
    moe_layers = model.layers - dense_layers
    dense_ffn = model.get("dense_ffn", model.ffn)
    per_layer = _attention(model) + _norms(model)
    total = dense_layers * (per_layer + _mlp(model, dense_ffn))
    if moe_layers:
        total += moe_layers * (per_layer + _moe_layer(model, active))
    embeddings = model.vocab * d * (1 if model.get("tie_embeddings") else 2)
    embeddings += model.get("positions", 0) * d
    final_norm = (2 if model.get("biases") else 1) * d
    return total + embeddings + final_norm


# --- the counter, by hand --------------------------------------------------------------------


def test_count_matches_the_dense_helper_for_llama_layouts():
    # the calc-foundations solution counts the same thing for untied, bias-free models
    for key in ("llama-2-7b", "llama-3-8b", "llama-3-70b", "mistral-7b", "llama-3.1-405b"):
        assert config_params(m(key)) == fm.model_total_params(m(key))["answer"], key


@pytest.mark.parametrize(
    ("key", "total"),
    [
        # 32 x (4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096) + 2 x 32000 x 4096 + 4096
        # = 32 x 202,383,360 + 262,144,000 + 4096
        ("llama-2-7b", 6_738_415_616),
        # 40 x (4 x 5120^2 + 3 x 5120 x 13824 + 2 x 5120) + 2 x 32000 x 5120 + 5120
        # = 40 x 317,204,480 + 327,680,000 + 5120
        ("llama-2-13b", 13_015_864_320),
        # layer: Q, O 8192^2 each + K, V 8192 x 1024 each + 3 x 8192 x 28672 + 2 x 8192
        # = 134,217,728 + 16,777,216 + 704,643,072 + 16,384 = 855,654,400
        # 80 x 855,654,400 + 2 x 32000 x 8192 + 8192
        ("llama-2-70b", 68_976_648_192),
        # same layers, vocabulary 128256: + 2 x 128256 x 8192 = 2,101,346,304
        ("llama-3-70b", 70_553_706_496),
        # layer: 2 x 16384^2 + 2 x 16384 x 1024 + 3 x 16384 x 53248 + 2 x 16384
        # = 536,870,912 + 33,554,432 + 2,617,245,696 + 32,768 = 3,187,703,808
        # 126 x 3,187,703,808 + 2 x 128256 x 16384 + 16384 = 405,853,388,800
        ("llama-3.1-405b", 405_853_388_800),
        # layer: Q, O 896 x 896 + K, V 896 x 128 + biases (896 + 256) + 3 x 896 x 4864 + 2 x 896
        # = 1,605,632 + 229,376 + 1,152 + 13,074,432 + 1,792 = 14,912,384
        # 24 x 14,912,384 + 151936 x 896 (tied) + 896 = 357,897,216 + 136,134,656 + 896
        ("qwen2.5-0.5b", 494_032_768),
        # layer: 2 x 3584^2 + 2 x 3584 x 512 + (3584 + 1024) + 3 x 3584 x 18944 + 2 x 3584
        # = 25,690,112 + 3,670,016 + 4,608 + 203,685,888 + 7,168 = 233,057,792
        # 28 x 233,057,792 + 2 x 152064 x 3584 + 3584
        ("qwen2.5-7b", 7_615_616_512),
        # layer: 2 x 5120^2 + 2 x 5120 x 1024 + (5120 + 2048) + 3 x 5120 x 27648 + 2 x 5120
        # = 52,428,800 + 10,485,760 + 7,168 + 424,673,280 + 10,240 = 487,605,248
        # 64 x 487,605,248 + 2 x 152064 x 5120 + 5120
        ("qwen2.5-32b", 32_763_876_352),
        # layer: 4 x 12288^2 + 4 x 12288 (QKV, O biases) + 2 x 12288 x 49152 + 49152 + 12288
        # + 4 x 12288 (two LayerNorms) = 604,028,928 + 1,208,020,992 + 49,152 = 1,812,099,072
        # 96 x 1,812,099,072 + 50257 x 12288 (tied) + 2048 x 12288 (positions) + 2 x 12288
        # = 173,961,510,912 + 617,558,016 + 25,165,824 + 24,576
        ("gpt-3-175b", 174_604_259_328),
        # layer: attention 41,943,040 + 8 experts x 3 x 4096 x 14336 (1,409,286,144)
        # + router 4096 x 8 + norms 8192 = 1,451,270,144
        # 32 x 1,451,270,144 + 2 x 32000 x 4096 + 4096
        ("mixtral-8x7b", 46_702_792_704),
        # MLA: 7168 x 1536 + 1536 + 1536 x 128 x 192 + 7168 x 576 + 512 + 512 x 128 x 256
        #      + 128 x 128 x 7168 = 187,107,328; norms 14,336
        # 3 dense layers: + 3 x 7168 x 18432 = 396,361,728 -> 583,483,392 each
        # 58 MoE layers: + (256 + 1) x 44,040,192 + 256 x 7168 + 256 = 11,320,164,608
        #   -> 11,507,286,272 each
        # 3 x 583,483,392 + 58 x 11,507,286,272 + 2 x 129280 x 7168 + 7168
        ("deepseek-v3", 671_026_419_200),
    ],
)
def test_config_params_by_hand(key, total):
    assert config_params(m(key)) == total


@pytest.mark.parametrize(
    ("key", "active"),
    [
        # 32 x (41,943,040 + 2 x 176,160,768 + 32,768 + 8192) + 262,144,000 + 4096
        # = 32 x 394,305,536 + 262,148,096
        ("mixtral-8x7b", 12_879_925_248),
        # MoE layer: 187,107,328 + 14,336 + 9 x 44,040,192 + 1,835,264 = 585,318,656
        # 3 x 583,483,392 + 58 x 585,318,656 + 1,853,358,080 + 7168
        ("deepseek-v3", 37_552_297_472),
    ],
)
def test_active_params_by_hand(key, active):
    assert config_params(m(key), active=True) == active


# --- every preset against its published count ------------------------------------------------


@pytest.mark.parametrize("key", sorted(presets("models")))
def test_params_match_the_config_within_a_tenth_of_a_percent(key):
    model = m(key)
    counted = config_params(model)
    assert abs(counted / model.params - 1) < TOLERANCE, (key, counted, model.params)


@pytest.mark.parametrize("key", [k for k, v in presets("models").items() if "active_params" in v])
def test_active_params_match_the_config(key):
    model = m(key)
    counted = config_params(model, active=True)
    if key == "deepseek-v3":
        # The report's "37B activated" rounds down 37.55B (which counts the input embedding and
        # the LM head; without the embedding lookup it is 36.6B): hold it to 2%.
        assert abs(counted / model.active_params - 1) < 0.02, counted
    else:
        assert abs(counted / model.active_params - 1) < TOLERANCE, (key, counted)


def test_model_heads_fit_the_hidden_size():
    # MHA/GQA models: heads x head_dim is the hidden size and the KV heads divide the heads
    for key, fields in presets("models").items():
        model = m(key)
        if "kv_lora_rank" not in fields:
            assert model.heads * model.head_dim == model.hidden, key
        assert model.heads % model.kv_heads == 0, key


# --- GPUs ------------------------------------------------------------------------------------


def test_gpu_figures_are_dense_and_consistent():
    for key, fields in presets("gpus").items():
        gpu = g(key)
        assert "source" in fields and "title" in fields, key
        # FP16 and BF16 run at the same rate on every GPU that has BF16; TF32 at half of it
        if gpu.bf16_tflops:
            assert gpu.fp16_tflops == gpu.bf16_tflops, key
            assert gpu.tf32_tflops == pytest.approx(gpu.bf16_tflops / 2, rel=0.02), key
        # where FP8 exists it is twice BF16 (dense)
        if gpu.fp8_tflops:
            assert gpu.fp8_tflops == pytest.approx(2 * gpu.bf16_tflops, rel=0.02), key


@pytest.mark.parametrize(
    ("key", "bf16", "hbm", "memory"),
    [
        ("a10", 125, 600, 24),  # datasheet: 125 | 250* TFLOPS, 600 GB/s, 24 GB
        ("l4", 121, 300, 24),  # datasheet: 242* TFLOPS with sparsity -> 121 dense
        ("l40s", 362, 864, 48),  # 362.05 | 733*
        ("mi300x", 1307.4, 5300, 192),  # 1307.4 dense, 2614.9 with sparsity
        ("b200", 2250, 8000, 180),  # HGX B200: 36 PFLOPS sparse / 8 GPUs / 2
    ],
)
def test_gpu_headline_figures(key, bf16, hbm, memory):
    gpu = g(key)
    assert (gpu.bf16_tflops, gpu.hbm_gbps, gpu.memory_gb) == (bf16, hbm, memory)


def test_t4_has_no_bf16():
    # Turing Tensor Cores do FP16 (65 TFLOPS) and INT8 (130 TOPS), not BF16, TF32 or FP8
    t4 = g("t4")
    assert (t4.bf16_tflops, t4.tf32_tflops, t4.fp8_tflops) == (0, 0, 0)
    assert (t4.fp16_tflops, t4.int8_tops, t4.hbm_gbps) == (65, 130, 320)
