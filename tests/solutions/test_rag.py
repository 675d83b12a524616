"""Hand-worked tests for solutions/rag.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution
from solutions import rag
from tests.presets import d, g, m
from tests.solutions.questions import grid, numeric_questions


def test_vector_index_bytes_100m_768_fp32_m32():
    # vectors: 1e8 x 768 x 4 B = 307,200,000,000 B; links: 1e8 x (2 x 32) x 4 B = 25,600,000,000 B
    # total = 332,800,000,000 B = 332.8 GB; graph share = 25.6 / 332.8 = 7.7%
    got = rag.vector_index_bytes(n_vectors=100_000_000, dim=768, dtype=d("fp32"), hnsw_m=32)
    assert got["vec"] == 307_200_000_000
    assert got["graph"] == 25_600_000_000
    assert got["answer"] == 332_800_000_000
    assert got["graph_share"] == pytest.approx(25.6 / 332.8)


def test_vector_index_bytes_int8_makes_links_matter():
    # 1e7 x 768 x 1 B = 7.68 GB of vectors; 1e7 x 64 x 4 B = 2.56 GB of links -> 10.24 GB, links 25%
    got = rag.vector_index_bytes(n_vectors=10_000_000, dim=768, dtype=d("int8"), hnsw_m=32)
    assert got["answer"] == 10_240_000_000
    assert got["graph_share"] == pytest.approx(0.25)


def test_ivf_distance_computations():
    # per list = 1e8 / 4096 = 24,414.0625; scanned = 64 x 24,414.0625 = 1,562,500
    # total = 4096 + 1,562,500 = 1,566,596; speedup = 1e8 / 1,566,596 = 63.83
    got = rag.ivf_distance_computations(n_vectors=100_000_000, nlist=4096, nprobe=64)
    assert got["scanned"] == pytest.approx(1_562_500)
    assert got["answer"] == pytest.approx(1_566_596)
    assert got["speedup"] == pytest.approx(63.83, rel=1e-3)
    assert got["fraction"] == pytest.approx(64 / 4096)


def test_rag_prefill_time_llama3_8b_h200():
    # T = 500 + 5 x 1024 + 30 = 5650
    # linear = 2 x 8.03e9 x 5650 = 9.0739e13
    # attention = 2 x 32 x 5650^2 x (32 x 128) = 64 x 31,922,500 x 4096 = 8.36829184e12
    # total = 9.910729184e13; rate = 0.6 x 989e12 = 5.934e14 -> 0.16702 s
    got = rag.rag_prefill_time(
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


# --- the grids of the questions ----------------------------------------------------------------


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("rag"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
