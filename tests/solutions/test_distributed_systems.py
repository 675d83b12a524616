"""Hand-worked tests for solutions/distributed_systems.py (each comment writes the arithmetic
out) and the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution
from solutions import distributed_systems
from tests.solutions.questions import grid, numeric_questions


def test_raft_fault_tolerance():
    # n = 3: quorum 2, tolerates 1; n = 5: quorum 3, tolerates 2; n = 4: quorum 3, tolerates 1
    assert distributed_systems.raft_fault_tolerance(3)["answer"] == 1
    got = distributed_systems.raft_fault_tolerance(5)
    assert (got["quorum"], got["answer"]) == (3, 2)
    # 5 -> 6 voters: quorum 4, still tolerates 2 (an even member adds no tolerance)
    assert (got["plus_one_quorum"], got["plus_one_tolerance"]) == (4, 2)
    assert distributed_systems.raft_fault_tolerance(4)["answer"] == 1
    assert distributed_systems.raft_fault_tolerance(7)["answer"] == 3


def test_consistent_hash_keys_moved():
    # 10M keys, 9 nodes -> 10 nodes: consistent hashing moves 10M / 10 = 1M keys;
    # mod 9 -> mod 10 keeps 1/10 of keys, moves 9/10 = 9M
    got = distributed_systems.consistent_hash_keys_moved(10_000_000, 9)
    assert got["answer"] == pytest.approx(1_000_000)
    assert got["modulo_moved"] == pytest.approx(9_000_000)


def test_mod_n_fraction_matches_brute_force():
    # count keys 0..n(n+1)-1 with h % n == h % (n+1): exactly n of n(n+1), i.e. 1/(n+1) stay
    for n in (4, 7, 12):
        period = n * (n + 1)
        stay = sum(1 for h in range(period) if h % n == h % (n + 1))
        assert stay == n
        assert distributed_systems.consistent_hash_keys_moved(period, n)[
            "modulo_moved"
        ] == pytest.approx(period - stay)


# --- the grids of the questions ----------------------------------------------------------------


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("distributed_systems"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
