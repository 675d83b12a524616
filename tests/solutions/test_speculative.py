"""Hand-worked tests for solutions/speculative.py (each comment writes the arithmetic out) and
the grids of the questions it solves."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.calc import load_solution
from solutions import speculative
from tests.solutions.questions import grid, numeric_questions


def test_expected_tokens_per_step():
    # (1 - 0.8^4) / (1 - 0.8) = (1 - 0.4096) / 0.2 = 2.952
    assert speculative.expected_tokens_per_step(0.8, 3)["answer"] == pytest.approx(2.952)


def test_speculative_speedup():
    # E = (1 - 0.8^6) / 0.2 = 3.68928; cost 5 x 0.02 + 1 = 1.1; 3.68928 / 1.1 = 3.354
    assert speculative.speculative_speedup(0.8, 5, 0.02)["answer"] == pytest.approx(
        3.35389, rel=1e-5
    )


def test_spec_break_even_draft_cost():
    # E = (1 - 0.5^7) / 0.5 = 1.984375; (E - 1) / 6 = 0.16406
    assert speculative.spec_break_even_draft_cost(0.5, 6)["answer"] == pytest.approx(
        0.164063, rel=1e-5
    )


def test_break_even_makes_speedup_one():
    # at c = (E - 1) / k the speedup is exactly 1
    c = speculative.spec_break_even_draft_cost(0.7, 4)["answer"]
    assert speculative.speculative_speedup(0.7, 4, c)["answer"] == pytest.approx(1.0)


def test_spec_alpha_for_speedup():
    # k=4, c=0.05: cost = 1.2; needed E = 2.0 x 1.2 = 2.4
    # alpha = 0.62218: 1 + a + a^2 + a^3 + a^4 = 1 + 0.62218 + 0.38711 + 0.24085 + 0.14985 = 2.3999
    r = speculative.spec_alpha_for_speedup(4, 0.05, 2.0)
    assert r["needed"] == pytest.approx(2.4)
    assert r["answer"] == pytest.approx(0.62218, abs=1e-4)
    a = r["answer"]
    assert sum(a**i for i in range(5)) == pytest.approx(2.4, rel=1e-9)


def test_spec_alpha_for_speedup_unreachable():
    # ceiling = (3 + 1) / (3 x 0.5 + 1) = 1.6 < 2
    with pytest.raises(ValueError):
        speculative.spec_alpha_for_speedup(3, 0.5, 2.0)


def test_spec_mean_accept_length():
    # draft tokens = 2000 x 4 x 0.9 = 7200; accepted = 7200 x 0.6 = 4320
    # mean length = 1 + 4320 / 2000 = 3.16; rate = 0.6; naive = 4320 / 8000 = 0.54
    r = speculative.spec_mean_accept_length(2000, 4, 0.9, 0.6)
    assert r["draft_tokens"] == 7200
    assert r["accepted"] == 4320
    assert r["answer"] == pytest.approx(3.16)
    assert r["naive_rate"] == pytest.approx(0.54)


# --- the grids of the questions ----------------------------------------------------------------


def test_every_question_solves_on_its_whole_grid():
    seen = 0
    for q in numeric_questions("speculative"):
        func = load_solution(q["solution"])
        for combo in grid(q["params"]):
            answer = func(**combo)["answer"]
            assert math.isfinite(answer) and answer > 0, (q["id"], combo)
        seen += 1
    assert seen >= 1
