"""Calculation problems: draw parameters, run the reference solution, render, grade.

This module is the numeric-problem API: it re-exports what formatting.py, presets.py and
params.py define, so callers write ``calc.preset``, ``calc.draw_params``.

One attempt = one seeded draw. The same seed always gives the same parameters, so a review
can be replayed from the seed stored with it. Solutions return values in base units (bytes,
seconds, FLOP, tokens and their ratios; a fraction for %), and the question's ``unit`` says
how the answer is shown and read.
"""

from __future__ import annotations

import importlib
import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from quizzer.content.models import NumericQuestion
from quizzer.grading.formatting import (
    CalcError,
    format_count,
    format_number,
    render,
    with_unit,
)
from quizzer.grading.params import (
    FieldRule,
    accept,
    accept_field,
    describe,
    draw_params,
    draw_value,
    extremes,
    field_rule,
    new_seed,
)
from quizzer.grading.presets import Preset, preset, presets
from quizzer.grading.units import parse_unit

__all__ = [
    "Attempt",
    "CalcError",
    "FieldRule",
    "NumericVerdict",
    "Preset",
    "SolutionError",
    "accept",
    "accept_field",
    "compute",
    "describe",
    "draw_params",
    "draw_value",
    "extremes",
    "field_rule",
    "format_count",
    "format_number",
    "grade",
    "load_solution",
    "new_seed",
    "prepare",
    "preset",
    "presets",
    "render",
    "run_solution",
    "signature_problems",
    "with_unit",
    "within",
]


@cache
def load_solution(dotted: str) -> Callable[..., Any]:
    """Import a reference solution by dotted name (only under ``solutions.``)."""
    if not dotted.startswith("solutions."):
        raise CalcError(f"solution {dotted!r} must live in the solutions package")
    module_name, _, func_name = dotted.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise CalcError(f"cannot import {module_name}: {exc}") from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise CalcError(f"{module_name} has no function {func_name!r}")
    return func


def signature_problems(q: NumericQuestion) -> list[str]:
    """Mismatches between the question's parameters and its solution's arguments."""
    func = load_solution(q.solution)
    sig = inspect.signature(func)
    accepted = {
        name
        for name, p in sig.parameters.items()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }
    required = {
        name
        for name, p in sig.parameters.items()
        if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }
    problems = []
    extra = set(q.params) - accepted
    missing = required - set(q.params)
    if extra:
        problems.append(f"{q.solution} takes no parameter(s) {', '.join(sorted(extra))}")
    if missing:
        problems.append(f"{q.solution} needs parameter(s) {', '.join(sorted(missing))}")
    return problems


@dataclass
class Attempt:
    """One drawn instance of a numeric question, with its answer and rendered texts."""

    question: NumericQuestion
    seed: int
    params: dict[str, Any]
    answer: float
    """The reference answer in the question's unit."""
    intermediates: dict[str, Any] = field(default_factory=dict)

    @property
    def context(self) -> dict[str, Any]:
        """Names available to the prompt and worked templates."""
        return {
            **self.params,
            **self.intermediates,
            "answer": with_unit(self.answer, self.question.unit),
            "answer_value": self.answer,
        }

    def prompt(self, text: str | None = None) -> str:
        """The prompt with this attempt's numbers."""
        return render(text or self.question.prompt, self.context)

    def worked(self, text: str | None = None) -> str:
        """The worked solution with this attempt's numbers."""
        return render(text or self.question.worked, self.context)

    def params_json(self) -> dict[str, Any]:
        """Parameters as JSON: presets by name, each overridden field as ``preset.field``."""
        shown: dict[str, Any] = {}
        for name, value in self.params.items():
            if isinstance(value, Preset):
                shown[name] = value.key
                shown.update({f"{name}.{f}": v for f, v in value.overrides.items()})
            else:
                shown[name] = value
        return shown


def run_solution(q: NumericQuestion, params: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """Call the solution; return (answer in the question's unit, intermediates)."""
    func = load_solution(q.solution)
    result = func(**params)
    intermediates: dict[str, Any] = {}
    if isinstance(result, Mapping):
        intermediates = {k: v for k, v in result.items() if k != "answer"}
        result = result.get("answer")
    if isinstance(result, bool) or not isinstance(result, (int, float)):
        raise CalcError(f"{q.solution} returned {type(result).__name__}, not a number")
    unit = parse_unit(q.unit)
    return float(result) / unit.factor, intermediates


def prepare(
    q: NumericQuestion,
    seed: int | None = None,
    overrides: Mapping[str, str] | None = None,
    bank_root: Path | None = None,
) -> Attempt:
    """Draw parameters (a fresh seed unless given) and compute the reference answer."""
    if seed is None:
        seed = new_seed(q.id)
    params = draw_params(q, seed, overrides, bank_root)
    answer, intermediates = compute(q, params)
    return Attempt(q, seed, params, answer, intermediates)


class SolutionError(CalcError):
    """The reference solution failed, or gave no finite number, for these parameters."""


def compute(q: NumericQuestion, params: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """run_solution, with any failure inside the solution (an exception, NaN, infinity, a
    non-number) turned into a SolutionError that says so."""
    load_solution(q.solution)  # a missing solution is the bank's problem: its own CalcError
    try:
        answer, intermediates = run_solution(q, params)
    except CalcError as exc:
        raise SolutionError(f"cannot compute with these parameters: {exc}") from None
    except Exception as exc:  # whatever the solution raises is a message, not a traceback
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise SolutionError(f"cannot compute with these parameters: {detail}") from None
    if not math.isfinite(answer):
        raise SolutionError(f"cannot compute with these parameters: the solution gives {answer}")
    return answer, intermediates


@dataclass(frozen=True)
class NumericVerdict:
    """The outcome of checking a typed answer."""

    correct: bool
    value: float
    """What the user's answer is, in the question's unit."""
    expected: float
    message: str
    hint: str | None = None


GB_GIB_RATIOS = {1: "KB/KiB", 2: "MB/MiB", 3: "GB/GiB", 4: "TB/TiB"}


def within(value: float, expected: float, q: NumericQuestion) -> bool:
    """Whether ``value`` is within the question's tolerance of ``expected``."""
    if q.tolerance_mode == "absolute":
        return abs(value - expected) <= q.tolerance + 1e-12
    return abs(value - expected) <= q.tolerance * abs(expected) + 1e-12


def grade(attempt: Attempt, text: str) -> NumericVerdict:
    """Check a typed answer against the attempt. Raises answers.AnswerError if unreadable."""
    from quizzer.grading.answers import parse_answer

    q = attempt.question
    parsed = parse_answer(text, q.unit)
    expected = attempt.answer
    shown = with_unit(expected, q.unit)
    if within(parsed.value, expected, q):
        return NumericVerdict(True, parsed.value, expected, f"correct: {shown}")
    hint = None
    if expected != 0 and parsed.value != 0:
        ratio = parsed.value / expected
        for power, names in GB_GIB_RATIOS.items():
            swap = (1024 / 1000) ** power
            if abs(ratio * swap - 1) <= q.tolerance or abs(ratio / swap - 1) <= q.tolerance:
                hint = f"that would be right with {names} swapped: mind decimal vs binary prefixes"
                break
        if hint is None and q.unit == "%" and abs(ratio * 100 - 1) <= q.tolerance:
            hint = "answer in percent: 0.25 means 0.25%, write 25 or 25% for a quarter"
        if hint is None:
            for factor in (2, 1000, 1e6, 1e9):
                if abs(ratio * factor - 1) <= q.tolerance or abs(ratio / factor - 1) <= q.tolerance:
                    hint = f"off by a factor of {format_number(factor)}"
                    break
    return NumericVerdict(
        False,
        parsed.value,
        expected,
        f"not quite: you gave {with_unit(parsed.value, q.unit)}, expected {shown}",
        hint,
    )
