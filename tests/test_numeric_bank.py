"""Every numeric question in the shipped bank round-trips: the reference answer, the same value
in another unit or as arithmetic, is accepted; 1.5x is not; draws are seeded."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from quizzer.content.bank import Bank
from quizzer.content.models import NumericQuestion
from quizzer.grading.calc import draw_params, grade, prepare
from quizzer.grading.units import parse_unit
from tests.conftest import shipped_bank

ALTERNATIVES = {
    (1, 0, 0, 0): ["MB", "GiB", "KiB"],
    (0, 1, 0, 0): ["s", "ms", "us"],
    (1, -1, 0, 0): ["TB/s", "MB/s"],
    (0, -1, 1, 0): ["PFLOPS", "GFLOPS"],
    (0, 0, 1, 0): ["TFLOP", "GFLOP"],
    (0, -1, 0, 1): ["tokens/s"],
    (0, 0, 0, 1): ["tokens"],
}


@pytest.fixture(scope="module")
def bank() -> Bank:
    return shipped_bank()


def numeric(bank: Bank) -> list[NumericQuestion]:
    return [q for q in bank.questions if isinstance(q, NumericQuestion)]


def test_at_least_50_numeric_questions_over_8_topics(bank: Bank) -> None:
    questions = numeric(bank)
    assert len(questions) >= 50
    assert len({t for q in questions for t in q.topics}) >= 8


def test_every_numeric_question_round_trips(bank: Bank) -> None:
    for q in numeric(bank):
        attempt = prepare(q, 1, bank_root=bank.root)
        value = attempt.answer
        assert grade(attempt, repr(value)).correct, q.id
        assert grade(attempt, f"{value!r} {q.unit}" if q.unit != "1" else repr(value)).correct, q.id
        assert grade(attempt, f"({value!r} * 3) / 3").correct, q.id
        unit = parse_unit(q.unit)
        for other in ALTERNATIVES.get(unit.dim, []):
            if other == q.unit:
                continue
            converted = value * unit.factor / parse_unit(other).factor
            assert grade(attempt, f"{converted!r} {other}").correct, (q.id, other)
            break
        if value != 0:
            assert not grade(attempt, repr(value * 1.5)).correct, q.id


def test_draws_are_seeded_and_vary(bank: Bank) -> None:
    varied = 0
    for q in numeric(bank):
        first = draw_params(q, 1, bank_root=bank.root)
        assert draw_params(q, 1, bank_root=bank.root) == first, q.id
        if any(spec.range or spec.choose or spec.preset for spec in q.params.values()):
            seen = {
                json.dumps(
                    {
                        k: getattr(v, "key", v)
                        for k, v in draw_params(q, s, bank_root=bank.root).items()
                    },
                    default=str,
                )
                for s in range(1, 25)
            }
            varied += len(seen) > 1
    assert varied >= len(numeric(bank)) * 0.9


@pytest.mark.usefixtures("warm_cache")
def test_cli_solve_check_for_a_sample(cli) -> None:  # type: ignore[no-untyped-def]
    ids = [q["id"] for q in json.loads(cli("list", "--kind", "numeric", "--json").output)]
    assert Counter(ids).most_common(1)[0][1] == 1
    for qid in ids[:: max(1, len(ids) // 8)]:
        solved = json.loads(cli("solve", qid, "--seed", "1", "--json").output)
        answer = solved["answer"]
        assert cli("check", qid, "--seed", "1", "--answer", repr(answer["value"])).exit_code == 0
        assert (
            cli("check", qid, "--seed", "1", "--answer", repr(answer["value"] * 1.5)).exit_code == 1
        )
