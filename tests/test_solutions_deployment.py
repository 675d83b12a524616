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

from quizzer.grading.calc import load_solution, preset
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


# --- Databases, consensus, sharding -------------------------------------------------------------


def test_bplus_tree_levels_innodb_classic():
    # fanout = 16384 // (8 + 6) = 1170 (16384 / 14 = 1170.3); leaf rows = 16384 // 1024 = 16
    # 1 level: 16 rows; 2 levels: 1170 x 16 = 18,720; 3 levels: 1170^2 x 16 = 21,902,400
    # 20,000,000 rows > 18,720 and <= 21,902,400 -> 3 levels
    got = dep.bplus_tree_levels(20_000_000, 16384, 8, 6, 1024)
    assert (got["fanout"], got["leaf_rows"]) == (1170, 16)
    assert got["capacity"] == 21_902_400
    assert got["capacity_below"] == 18_720
    assert got["answer"] == 3


def test_bplus_tree_levels_edges():
    # 100M rows of 1 KB: 21,902,400 < 1e8 <= 1170^3 x 16 = 25,625,808,000 -> 4 levels
    assert dep.bplus_tree_levels(100_000_000, 16384, 8, 6, 1024)["answer"] == 4
    # 256-byte rows: 64 per leaf; 1170^2 x 64 = 87,609,600 >= 5e7 -> 3 levels
    assert dep.bplus_tree_levels(50_000_000, 16384, 8, 6, 256)["answer"] == 3
    # 16 rows fit in the root leaf: 1 level; 17 rows need a root above two leaves: 2 levels
    assert dep.bplus_tree_levels(16, 16384, 8, 6, 1024)["answer"] == 1
    assert dep.bplus_tree_levels(17, 16384, 8, 6, 1024)["answer"] == 2


def test_raft_fault_tolerance():
    # n = 3: quorum 2, tolerates 1; n = 5: quorum 3, tolerates 2; n = 4: quorum 3, tolerates 1
    assert dep.raft_fault_tolerance(3)["answer"] == 1
    got = dep.raft_fault_tolerance(5)
    assert (got["quorum"], got["answer"]) == (3, 2)
    # 5 -> 6 voters: quorum 4, still tolerates 2 (an even member adds no tolerance)
    assert (got["plus_one_quorum"], got["plus_one_tolerance"]) == (4, 2)
    assert dep.raft_fault_tolerance(4)["answer"] == 1
    assert dep.raft_fault_tolerance(7)["answer"] == 3


def test_consistent_hash_keys_moved():
    # 10M keys, 9 nodes -> 10 nodes: consistent hashing moves 10M / 10 = 1M keys;
    # mod 9 -> mod 10 keeps 1/10 of keys, moves 9/10 = 9M
    got = dep.consistent_hash_keys_moved(10_000_000, 9)
    assert got["answer"] == pytest.approx(1_000_000)
    assert got["modulo_moved"] == pytest.approx(9_000_000)


def test_mod_n_fraction_matches_brute_force():
    # count keys 0..n(n+1)-1 with h % n == h % (n+1): exactly n of n(n+1), i.e. 1/(n+1) stay
    for n in (4, 7, 12):
        period = n * (n + 1)
        stay = sum(1 for h in range(period) if h % n == h % (n + 1))
        assert stay == n
        assert dep.consistent_hash_keys_moved(period, n)["modulo_moved"] == pytest.approx(
            period - stay
        )


# --- Auto-scheduling search space ---------------------------------------------------------------


def test_tile_search_space_power_of_two():
    # 1024 = 2^10 into 4 ordered factors: stars and bars C(10 + 3, 3) = 286
    # 1024 into 2 factors: C(10 + 1, 1) = 11 -> 286 x 286 x 11 = 899,756
    got = dep.tile_search_space(1024, 1024, 1024, 4, 2)
    assert (got["tm"], got["tn"], got["tk"]) == (286, 286, 11)
    assert got["answer"] == 899_756
    # 512 = 2^9: C(12, 3) = 220; 2048 = 2^11 into 2: 12 -> 220 x 286 x 12 = 755,040
    assert dep.tile_search_space(512, 1024, 2048, 4, 2)["answer"] == 755_040


def test_tile_search_space_non_power_of_two():
    # 12 = 2^2 x 3 into 2 ordered factors = number of divisors = 6; into 3 = C(4,2) x C(3,2) = 18
    assert dep.tile_search_space(12, 12, 12, 2, 3)["answer"] == 6 * 6 * 18


# --- Deployment toolchains ----------------------------------------------------------------------


def test_int8_engine_weight_bytes_resnet50_like():
    # 25.6M params, 8% kept in FP16: INT8 part 25.6e6 x 0.92 x 1 = 23.552e6 B;
    # FP16 part 25.6e6 x 0.08 x 2 = 4.096e6 B; total 27.648e6 B vs FP16 engine 51.2e6 B -> 0.54
    got = dep.int8_engine_weight_bytes(25.6, 0.08)
    assert got["answer"] == pytest.approx(27.648e6)
    assert got["ratio"] == pytest.approx(0.54)
    # nothing kept in FP16: exactly half
    assert dep.int8_engine_weight_bytes(100, 0.0)["ratio"] == pytest.approx(0.5)


def test_conv_bn_folded_bias():
    # s = 1.2 / sqrt(0.25 + 1e-5) = 1.2 / 0.50001 = 2.399952; b' = (0.5 - 0.8) x s + 0.1
    # = -0.7199856 + 0.1 = -0.6199856
    got = dep.conv_bn_folded_bias(0.5, 1.2, 0.1, 0.8, 0.25, 1e-5)
    assert got["s"] == pytest.approx(2.399952, rel=1e-6)
    assert got["answer"] == pytest.approx(-0.6199856, rel=1e-6)


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
            assert math.isfinite(answer), (q["id"], combo)
            assert answer > 0 or q.get("allow_negative"), (q["id"], combo)
        seen += 1
    assert seen >= 1
