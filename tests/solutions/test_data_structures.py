"""Hand-worked tests for solutions/data_structures.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution
from solutions import data_structures
from tests.solutions.questions import grid, numeric_questions


def test_bplus_tree_levels_innodb_classic():
    # fanout = 16384 // (8 + 6) = 1170 (16384 / 14 = 1170.3); leaf rows = 16384 // 1024 = 16
    # 1 level: 16 rows; 2 levels: 1170 x 16 = 18,720; 3 levels: 1170^2 x 16 = 21,902,400
    # 20,000,000 rows > 18,720 and <= 21,902,400 -> 3 levels
    got = data_structures.bplus_tree_levels(20_000_000, 16384, 8, 6, 1024)
    assert (got["fanout"], got["leaf_rows"]) == (1170, 16)
    assert got["capacity"] == 21_902_400
    assert got["capacity_below"] == 18_720
    assert got["answer"] == 3


def test_bplus_tree_levels_edges():
    # 100M rows of 1 KB: 21,902,400 < 1e8 <= 1170^3 x 16 = 25,625,808,000 -> 4 levels
    assert data_structures.bplus_tree_levels(100_000_000, 16384, 8, 6, 1024)["answer"] == 4
    # 256-byte rows: 64 per leaf; 1170^2 x 64 = 87,609,600 >= 5e7 -> 3 levels
    assert data_structures.bplus_tree_levels(50_000_000, 16384, 8, 6, 256)["answer"] == 3
    # 16 rows fit in the root leaf: 1 level; 17 rows need a root above two leaves: 2 levels
    assert data_structures.bplus_tree_levels(16, 16384, 8, 6, 1024)["answer"] == 1
    assert data_structures.bplus_tree_levels(17, 16384, 8, 6, 1024)["answer"] == 2


def test_linear_probing_probes():
    # a = 0.5: miss = (1 + 1/0.25) / 2 = (1 + 4) / 2 = 2.5; hit = (1 + 2) / 2 = 1.5
    got = data_structures.linear_probing_unsuccessful_probes(load_factor=0.5)
    assert got["answer"] == pytest.approx(2.5)
    assert got["hit"] == pytest.approx(1.5)
    assert got["chaining_miss"] == pytest.approx(0.5)
    # a = 0.75: 1 / 0.0625 = 16 -> (1 + 16) / 2 = 8.5
    assert data_structures.linear_probing_unsuccessful_probes(load_factor=0.75)[
        "answer"
    ] == pytest.approx(8.5)
    # a = 0.9: 1 / 0.01 = 100 -> (1 + 100) / 2 = 50.5; hit = (1 + 10) / 2 = 5.5
    got = data_structures.linear_probing_unsuccessful_probes(load_factor=0.9)
    assert got["answer"] == pytest.approx(50.5)
    assert got["hit"] == pytest.approx(5.5)


# --- the grids of the questions ----------------------------------------------------------------


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("data_structures"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
