"""Hand-checked tests for solutions/applications.py, used by the LLM-application questions in
question_bank/questions/inference/rag-agents.yaml, diffusion-multimodal.yaml and
kv-compression.yaml. Each comment writes the arithmetic out."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
import yaml

from quizzer.grading.calc import preset
from solutions import applications as ap
from tests.presets import d, g, m

BANK = Path(__file__).resolve().parent.parent / "question_bank" / "questions" / "inference"
FILES = [BANK / "rag-agents.yaml", BANK / "diffusion-multimodal.yaml", BANK / "kv-compression.yaml"]


# --- RAG: vector index and retrieval ----------------------------------------------------------


def test_vector_index_bytes_100m_768_fp32_m32():
    # vectors: 1e8 x 768 x 4 B = 307,200,000,000 B; links: 1e8 x (2 x 32) x 4 B = 25,600,000,000 B
    # total = 332,800,000,000 B = 332.8 GB; graph share = 25.6 / 332.8 = 7.7%
    got = ap.vector_index_bytes(n_vectors=100_000_000, dim=768, dtype=d("fp32"), hnsw_m=32)
    assert got["vec"] == 307_200_000_000
    assert got["graph"] == 25_600_000_000
    assert got["answer"] == 332_800_000_000
    assert got["graph_share"] == pytest.approx(25.6 / 332.8)


def test_vector_index_bytes_int8_makes_links_matter():
    # 1e7 x 768 x 1 B = 7.68 GB of vectors; 1e7 x 64 x 4 B = 2.56 GB of links -> 10.24 GB, links 25%
    got = ap.vector_index_bytes(n_vectors=10_000_000, dim=768, dtype=d("int8"), hnsw_m=32)
    assert got["answer"] == 10_240_000_000
    assert got["graph_share"] == pytest.approx(0.25)


def test_ivf_distance_computations():
    # per list = 1e8 / 4096 = 24,414.0625; scanned = 64 x 24,414.0625 = 1,562,500
    # total = 4096 + 1,562,500 = 1,566,596; speedup = 1e8 / 1,566,596 = 63.83
    got = ap.ivf_distance_computations(n_vectors=100_000_000, nlist=4096, nprobe=64)
    assert got["scanned"] == pytest.approx(1_562_500)
    assert got["answer"] == pytest.approx(1_566_596)
    assert got["speedup"] == pytest.approx(63.83, rel=1e-3)
    assert got["fraction"] == pytest.approx(64 / 4096)


def test_rag_prefill_time_llama3_8b_h200():
    # T = 500 + 5 x 1024 + 30 = 5650
    # linear = 2 x 8.03e9 x 5650 = 9.0739e13
    # attention = 2 x 32 x 5650^2 x (32 x 128) = 64 x 31,922,500 x 4096 = 8.36829184e12
    # total = 9.910729184e13; rate = 0.6 x 989e12 = 5.934e14 -> 0.16702 s
    got = ap.rag_prefill_time(
        model=m("llama-3-8b"),
        gpu=g("h200"),
        system_tokens=500,
        chunks=5,
        chunk_tokens=1024,
        question_tokens=30,
        mfu=0.6,
    )
    assert got["tokens"] == 5650
    assert got["linear"] == pytest.approx(9.0739e13)
    assert got["attn"] == pytest.approx(8.36829184e12)
    assert got["answer"] == pytest.approx(9.910729184e13 / 5.934e14)
    assert got["answer"] == pytest.approx(0.16702, rel=1e-4)


def test_agent_kv_reload_vs_recompute_mistral_a100():
    # KV/token = 2 x 32 x 8 x 128 x 2 B = 131,072 B; size = 65,536 x 131,072 = 8,589,934,592 B
    # reload = 8.589934592e9 / 32e9 = 0.268435456 s
    # recompute = 2 x 7.24e9 x 65,536 = 9.4896128e14 FLOP / (0.6 x 312e12 = 1.872e14) = 5.06924 s
    # ratio = 5.06924 / 0.268435456 = 18.884
    got = ap.agent_kv_reload_vs_recompute(
        model=m("mistral-7b"), gpu=g("a100-80gb"), dtype=d("bf16"), context_tokens=65536, mfu=0.6
    )
    assert got["per_token"] == 131_072
    assert got["reload"] == pytest.approx(0.268435456)
    assert got["recompute"] == pytest.approx(9.4896128e14 / 1.872e14)
    assert got["answer"] == pytest.approx(18.884, rel=1e-3)


def test_agent_ratio_does_not_depend_on_context_length():
    # both times are linear in T when attention FLOPs are ignored
    a = ap.agent_kv_reload_vs_recompute(m("qwen2.5-7b"), g("h100-sxm"), d("fp8"), 8192, 0.5)
    b = ap.agent_kv_reload_vs_recompute(m("qwen2.5-7b"), g("h100-sxm"), d("fp8"), 65536, 0.5)
    assert a["answer"] == pytest.approx(b["answer"])


# --- multimodal -------------------------------------------------------------------------------


def test_vit_image_tokens_with_and_without_merge():
    # 448 / 14 = 32 -> 32 x 32 = 1024 patches; 2 x 2 merge -> 256 tokens
    got = ap.vit_image_tokens(image_h=448, image_w=448, patch=14, merge=2)
    assert got["patches"] == 1024
    assert got["answer"] == 256
    assert got["pixels_per_token"] == 28
    # 1344 x 896 at 14 px: 96 x 64 = 6144 patches; no merge -> 6144 tokens
    assert ap.vit_image_tokens(image_h=1344, image_w=896, patch=14, merge=1)["answer"] == 6144


def test_image_tokens_kv_bytes_qwen25_7b():
    # per image: (1344 / 14)^2 / 4 = 96^2 / 4 = 2304 tokens; 4 images -> 9216 tokens
    # KV/token = 2 x 28 x 4 x 128 x 2 B = 57,344 B -> 9216 x 57,344 = 528,482,304 B
    got = ap.image_tokens_kv_bytes(
        model=m("qwen2.5-7b"), dtype=d("bf16"), images=4, image_side=1344, patch=14, merge=2
    )
    assert got["per_image"] == 2304
    assert got["per_token"] == 57_344
    assert got["answer"] == 528_482_304


# --- diffusion --------------------------------------------------------------------------------


def test_dit_sampling_time_dit_xl_like():
    # N = (1024 / 16)^2 = 4096; params = 12 x 28 x 1152^2 = 445,906,944
    # linear = 2 x 445,906,944 x 4096 = 3,652,869,685,248
    # attention = 4 x 28 x 4096^2 x 1152 = 2,164,663,517,184  (ratio N / 6d = 4096 / 6912 = 0.5926)
    # per pass = 5,817,533,202,432; x 50 steps x 2 (CFG) = 5.817533202432e14 -> / 400e12 = 1.45438 s
    got = ap.dit_sampling_time(
        layers=28, hidden=1152, image_px=1024, steps=50, cfg_passes=2, achieved_tflops=400
    )
    assert got["tokens"] == 4096
    assert got["params"] == 445_906_944
    assert got["linear"] == 3_652_869_685_248
    assert got["attn"] == 2_164_663_517_184
    assert got["attn"] / got["linear"] == pytest.approx(4096 / (6 * 1152))
    assert got["answer"] == pytest.approx(5.817533202432e14 / 4e14)


def test_flow_time_shift():
    # s = 3, t = 0.5: 1.5 / (1 + 2 x 0.5) = 0.75; s = 3, t = 0.2: 0.6 / 1.4 = 0.428571
    assert ap.flow_time_shift(shift=3.0, t=0.5)["answer"] == pytest.approx(0.75)
    assert ap.flow_time_shift(shift=3.0, t=0.2)["answer"] == pytest.approx(0.6 / 1.4)
    # s = 1 is the identity
    assert ap.flow_time_shift(shift=1.0, t=0.3)["answer"] == pytest.approx(0.3)


# --- KV compression ---------------------------------------------------------------------------


def test_kv_window_sink_saved_bytes_llama3_8b():
    # KV/token = 131,072 B; kept = 4 + 2044 = 2048; dropped = 32768 - 2048 = 30,720
    # saved = 8 x 30,720 x 131,072 = 32,212,254,720 B; fraction = 30,720 / 32,768 = 0.9375
    got = ap.kv_window_sink_saved_bytes(
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
    got = ap.sparse_decode_read_ratio(
        context_tokens=131072, topk=2048, kv_bytes=576, index_bytes=128
    )
    assert got["dense"] == 75_497_472
    assert got["sparse"] == 17_956_864
    assert got["answer"] == pytest.approx(4.20438, rel=1e-5)
    assert got["limit"] == pytest.approx(4.5)


# --- grids of the questions ------------------------------------------------------------------


def _questions():
    for path in FILES:
        if path.exists():
            for q in yaml.safe_load(path.read_text("utf-8")):
                if q["kind"] == "numeric":
                    yield q


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
