"""Hand-checked tests for solutions/deployment.py, used by calc-decode-batch-throughput
(question_bank/questions/inference/calc-latency.yaml) and the beyond-guide questions in
prerequisites/software-engineering.yaml, cuda/tvm.yaml and inference/deploy-toolchains.yaml.
Each comment writes the arithmetic out."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
import yaml

from quizzer.calc import load_solution, preset
from solutions import deployment as dep
from tests.presets import d, m

BANK = Path(__file__).resolve().parent.parent / "question_bank" / "questions"


# --- Decode batching ----------------------------------------------------------------------------


def test_decode_batching_speedup_llama3_8b():
    # weights = 8.03e9 x 2 B = 16.06e9 B
    # KV/token = 2 x 32 layers x 8 kv_heads x 128 x 2 B = 131,072 B; x 4096 tokens = 536,870,912 B
    # step(1) = 16.06e9 + 0.536870912e9 = 16.596870912e9 B
    # step(64) = 16.06e9 + 64 x 0.536870912e9 = 16.06e9 + 34.359738368e9 = 50.419738368e9 B
    # speedup = 64 x 16.596870912 / 50.419738368 = 21.067...
    got = dep.decode_batching_speedup(m("llama-3-8b"), d("bf16"), d("bf16"), 64, 4096)
    assert got["kv_seq_bytes"] == 536_870_912
    assert got["answer"] == pytest.approx(64 * 16.596870912 / 50.419738368)
    assert got["answer"] == pytest.approx(21.067, abs=1e-3)
    assert got["efficiency"] == pytest.approx(got["answer"] / 64)


def test_decode_batching_speedup_is_one_at_batch_one_and_below_batch():
    # batch 1: 1 x step1 / step1 = 1 exactly; any batch > 1 gains less than the ideal B
    assert dep.decode_batching_speedup(m("qwen2.5-7b"), d("bf16"), d("fp8"), 1, 8192)[
        "answer"
    ] == pytest.approx(1.0)
    got = dep.decode_batching_speedup(m("qwen2.5-7b"), d("bf16"), d("fp8"), 32, 1024)
    assert 1 < got["answer"] < 32


# --- Every question on its whole grid -----------------------------------------------------------


def _questions():
    for path in BANK.rglob("*.yaml"):
        for q in yaml.safe_load(path.read_text("utf-8")) or []:
            if q.get("kind") == "numeric" and q["solution"].startswith("solutions.deployment."):
                yield q


def _grid(params: dict):
    names, values = [], []
    for name, spec in params.items():
        names.append(name)
        if "preset" in spec:
            values.append([preset(spec["preset"], key) for key in spec["choose"]])
        elif "choose" in spec:
            values.append(spec["choose"])
        elif "range" in spec:
            lo, hi = spec["range"]
            step = spec.get("step", 1)
            values.append(list(range(lo, hi + 1, step)))
        else:
            values.append([spec["value"]])
    for combo in itertools.product(*values):
        yield dict(zip(names, combo, strict=True))


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in _questions():
        func = load_solution(q["solution"])
        for combo in _grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
