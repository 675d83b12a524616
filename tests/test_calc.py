"""Numeric questions: seeded draws, overrides, grading, and `quizzer solve` / `quizzer check`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quizzer.content.bank import load_bank
from quizzer.content.models import NumericQuestion
from quizzer.grading.calc import CalcError, draw_params, format_number, grade, prepare


def numeric(bank_dir: Path, qid: str) -> NumericQuestion:
    q = load_bank(bank_dir, use_cache=False).by_id[qid]
    assert isinstance(q, NumericQuestion)
    return q


def test_same_seed_same_params_other_seed_other_params(mini_bank: Path) -> None:
    q = numeric(mini_bank, "t-numeric-allreduce")
    first = draw_params(q, 1, bank_root=mini_bank)
    assert draw_params(q, 1, bank_root=mini_bank) == first
    others = {json.dumps(draw_params(q, seed, bank_root=mini_bank)) for seed in range(2, 12)}
    assert len(others) > 1 and json.dumps(first) in others | {json.dumps(first)}


def test_overrides_accept_preset_names_and_fields(mini_bank: Path) -> None:
    q = numeric(mini_bank, "t-numeric-weights")
    attempt = prepare(q, 1, {"model": "llama-3-70b", "dtype": "bf16"}, bank_root=mini_bank)
    assert attempt.answer == pytest.approx(141.2)  # 70.6e9 x 2 B = 141.2 GB
    attempt = prepare(
        q, 1, {"model": "llama-3-70b", "dtype": "bf16", "params": "1e9"}, bank_root=mini_bank
    )
    assert attempt.answer == pytest.approx(2.0)
    with pytest.raises(CalcError, match="did you mean 'llama-3-70b'"):
        prepare(q, 1, {"model": "llama-3-70"}, bank_root=mini_bank)


def test_grading_accepts_other_units_and_hints_gib(mini_bank: Path) -> None:
    q = numeric(mini_bank, "t-numeric-weights")
    attempt = prepare(q, 1, {"model": "llama-3-8b", "dtype": "bf16"}, bank_root=mini_bank)
    assert attempt.answer == pytest.approx(16.06)  # 8.03e9 x 2 B
    assert grade(attempt, "16.06").correct
    assert grade(attempt, "16060 MB").correct
    assert grade(attempt, "14.96 GiB").correct
    wrong = grade(attempt, "16.06 GiB")
    assert not wrong.correct and wrong.hint and "GB/GiB" in wrong.hint
    assert not grade(attempt, "24.09").correct  # 1.5x


def test_format_number() -> None:
    assert format_number(140.0) == "140"
    assert format_number(32768) == "32,768"
    assert format_number(1.4e11) == "1.4e11"
    assert format_number(0.0123) == "0.0123"


def test_solve_then_check_round_trip(cli, mini_bank: Path) -> None:  # type: ignore[no-untyped-def]
    for qid in ("t-numeric-weights", "t-numeric-allreduce"):
        solved = json.loads(cli("solve", qid, "--seed", "1", "--json").output)
        assert set(solved) >= {"id", "seed", "params", "answer", "worked"}
        value, unit = solved["answer"]["value"], solved["answer"]["unit"]
        assert cli("check", qid, "--seed", "1", "--answer", repr(value)).exit_code == 0
        assert cli("check", qid, "--seed", "1", "--answer", f"{value} {unit}").exit_code == 0
        assert cli("check", qid, "--seed", "1", "--answer", repr(value * 1.5)).exit_code == 1
    ms = json.loads(cli("solve", "t-numeric-allreduce", "--seed", "1", "--json").output)
    seconds = ms["answer"]["value"] / 1000
    assert (
        cli("check", "t-numeric-allreduce", "--seed", "1", "--answer", f"{seconds} s").exit_code
        == 0
    )


def test_check_refuses_code_and_runs_nothing(cli, mini_bank: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    marker = tmp_path / "x"
    result = cli(
        "check",
        "t-numeric-weights",
        "--seed",
        "1",
        "--answer",
        f"__import__('os').system('touch {marker}')",
    )
    assert result.exit_code == 2
    assert "cannot understand" in result.output
    assert not marker.exists()


def test_check_unknown_unit_exit_2_with_suggestion(cli, mini_bank: Path) -> None:  # type: ignore[no-untyped-def]
    result = cli("check", "t-numeric-weights", "--seed", "1", "--answer", "16 GBs")
    assert result.exit_code == 2 and "did you mean" in result.output


def test_validate_catches_broken_numeric_questions(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import FIXTURES, make_bank

    text = (FIXTURES / "mini-questions.yaml").read_text("utf-8")
    text = text.replace("solutions.inference.weight_bytes", "solutions.inference.weight_bites")
    text = text.replace("bw_gbps: {range: [50, 400], step: 50}", "bandwidth: {range: [50, 400]}")
    bank = make_bank(tmp_path / "b", text)
    result = cli("--bank", str(bank), "validate")
    assert result.exit_code == 1
    assert (
        "mini.yaml:54:3: t-numeric-weights: solution: solutions.inference has no function "
        "'weight_bites'" in result.output
    )
    assert (
        "t-numeric-allreduce: solutions.comm.ring_allreduce_time takes no parameter(s) "
        "bandwidth" in result.output
    )


def test_validate_reports_a_solution_path_that_leads_nowhere(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A question still naming a module or function that solutions/ no longer has (say, after
    a regrouping) is reported at its line, whichever part of the path is wrong."""
    from tests.conftest import FIXTURES, make_bank

    text = (FIXTURES / "mini-questions.yaml").read_text("utf-8")
    text = text.replace("solutions.inference.weight_bytes", "solutions.no_such.weight_bytes")
    text = text.replace("solutions.comm.ring_allreduce_time", "solutions.memory.ring_allreduce")
    bank = make_bank(tmp_path / "b", text)
    result = cli("--bank", str(bank), "validate")
    assert result.exit_code == 1
    assert (
        "mini.yaml:54:3: t-numeric-weights: solution: cannot import solutions.no_such"
        in result.output
    )
    assert (
        "mini.yaml:67:3: t-numeric-allreduce: solution: solutions.memory has no function "
        "'ring_allreduce'" in result.output
    )


def test_validate_catches_negative_and_nan(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import FIXTURES, make_bank

    text = (FIXTURES / "mini-questions.yaml").read_text("utf-8")
    text = text.replace("size_gb: {range: [1, 10]}", "size_gb: {range: [-5, 10]}")
    bank = make_bank(tmp_path / "b", text)
    result = cli("--bank", str(bank), "validate")
    assert result.exit_code == 1 and "returned a negative answer" in result.output
