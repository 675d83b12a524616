"""The answer parser: what a user types becomes a number in the question's unit, or a clear
error; nothing is ever executed."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizzer.grading.answers import AnswerError, parse_answer


@pytest.mark.parametrize(
    ("typed", "unit", "expected"),
    [
        ("140", "GB", 140.0),
        ("140 GB", "GB", 140.0),
        ("1.4e11", "B", 1.4e11),
        ("1.4e11 B", "GB", 140.0),
        ("140000 MB", "GB", 140.0),
        ("2*70e9/2**30 GiB", "GB", 140.0),
        ("2^30 B", "GiB", 1.0),
        ("1,024 MiB", "GiB", 1.0),
        ("70B", "1", 70e9),
        ("1.5M tokens/s", "tokens/s", 1.5e6),
        ("2k", "tokens", 2000.0),
        ("3.35 TB/s", "GB/s", 3350.0),
        ("25 Gbit/s", "GB/s", 3.125),
        ("12 µs", "us", 12.0),
        ("12 us", "ms", 0.012),
        ("0.5 s", "ms", 500.0),
        ("2 min", "s", 120.0),
        ("989 TFLOPS", "TFLOPS", 989.0),
        ("1.2 PFLOP", "TFLOP", 1200.0),
        ("45%", "%", 45.0),
        ("-(3 + 4) * 2", "1", -14.0),
        ("128 KiB", "KB", 131.072),
    ],
)
def test_understands(typed: str, unit: str, expected: float) -> None:
    assert parse_answer(typed, unit).value == pytest.approx(expected)


def test_bare_b_is_bytes_when_the_question_wants_bytes() -> None:
    assert parse_answer("140B", "B").value == 140.0
    assert parse_answer("140B", "1").value == 140e9


def test_unknown_unit_suggests_the_right_one() -> None:
    with pytest.raises(AnswerError, match=r"unknown unit 'GBs' \(did you mean GB/s\?\)"):
        parse_answer("3 GBs", "GB/s")


def test_dimension_mismatch_says_what_each_side_is() -> None:
    with pytest.raises(AnswerError, match="that is a time; this question wants bytes"):
        parse_answer("5 ms", "GB")


@pytest.mark.parametrize(
    "typed",
    [
        "",
        "abc",
        "__import__('os').system('touch /tmp/x')",
        "1/0",
        "9**9**9",
        "1e999",
        "(1",
        "2 +",
        "[1]",
        "lambda: 1",
        "1 if 1 else 2",
        "True",
        "'3'",
        "1; 2",
        "x" * 300,
    ],
)
def test_refuses_with_a_message(typed: str) -> None:
    with pytest.raises(AnswerError):
        parse_answer(typed, "GB")


def test_no_code_runs(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    for attempt in (
        f"__import__('os').system('touch {marker}')",
        f"open('{marker}', 'w')",
        f"exec(\"open('{marker}','w')\")",
    ):
        with pytest.raises(AnswerError):
            parse_answer(attempt, "GB")
    assert not marker.exists()


EXAMPLES = int(os.environ.get("QUIZZER_FUZZ_EXAMPLES", "300"))


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.text(max_size=80))
def test_any_text_gives_a_value_or_a_parse_error(text: str) -> None:
    try:
        parsed = parse_answer(text, "GB")
    except AnswerError:
        return
    assert isinstance(parsed.value, float)


ALPHABET = st.sampled_from(list("0123456789.+-*/()^e ,_") + ["GB", "GiB", "ms", "B", "k", "**"])


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(ALPHABET, max_size=20).map("".join))
def test_arithmetic_like_text_never_crashes(text: str) -> None:
    with contextlib.suppress(AnswerError):
        parse_answer(text, "GB")
