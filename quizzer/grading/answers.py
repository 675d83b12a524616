"""Read what the user typed: numbers, suffixes, units and arithmetic, never with ``eval``.

The number part goes through a tiny AST walker that knows only numeric literals and
``+ - * / ** ( )``; everything else is refused before anything runs.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass

from quizzer.grading.units import (
    BYTES,
    COUNT_SUFFIXES,
    Unit,
    UnitError,
    dim_name,
    parse_unit,
)

MAX_INPUT = 200
"""Longer answers are refused outright; nobody types a 200-character number."""
MAX_EXPONENT = 400


class AnswerError(ValueError):
    """The answer cannot be understood; the message says why, for the user."""


@dataclass(frozen=True)
class Parsed:
    """An understood answer."""

    value: float
    """The value in the expected unit."""
    unit: str
    """The unit the user wrote (or the expected one when none was given)."""
    assumed_unit: bool
    """True when no unit was typed and the question's unit was assumed."""
    typed_value: float
    """The number as typed, in the user's own unit."""
    read_as: str | None = None
    """The unit as understood when the user typed it in another case (``gb`` -> ``GB``)."""


_NUMBER_E = re.compile(r"(?<=[0-9.])[eE](?=[+-]?[0-9])")
_UNIT_START = re.compile(r"[A-Za-zµμ%×]")


def _split(text: str) -> tuple[str, str]:
    """Split ``2*70e9/2**30 GiB`` into the arithmetic part and the unit part."""
    masked = _NUMBER_E.sub("\0", text)
    match = _UNIT_START.search(masked)
    if match is None:
        return text, ""
    return text[: match.start()], text[match.start() :]


def _normalize(text: str) -> str:
    text = text.strip()
    text = text.replace("×", "*").replace("·", "*").replace("÷", "/").replace("−", "-")
    text = text.replace("^", "**")
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    text = re.sub(r"(?<=\d)_(?=\d)", "", text)
    return text


def evaluate(expr: str) -> float:
    """Evaluate an arithmetic expression of numbers and + - * / ** ( )."""
    if not expr.strip():
        raise AnswerError("no number found")
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except (SyntaxError, ValueError):
        raise AnswerError(f"cannot read {expr.strip()!r} as a number or arithmetic") from None
    return _walk(tree.body)


def _walk(node: ast.AST) -> float:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise AnswerError("only numbers are allowed")
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        inner = _walk(node.operand)
        return inner if isinstance(node.op, ast.UAdd) else -inner
    if isinstance(node, ast.BinOp):
        left, right = _walk(node.left), _walk(node.right)
        try:
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Sub):
                return left - right
            if isinstance(node.op, ast.Mult):
                return left * right
            if isinstance(node.op, ast.Div):
                return left / right
            if isinstance(node.op, ast.Pow):
                if abs(right) > MAX_EXPONENT:
                    raise AnswerError("exponent too large")
                result = left**right
                if isinstance(result, complex):
                    raise AnswerError("that power has no real value")
                return float(result)
        except ZeroDivisionError:
            raise AnswerError("division by zero") from None
        except OverflowError:
            raise AnswerError("number too large") from None
        raise AnswerError("only + - * / ** and parentheses are allowed")
    raise AnswerError("only numbers, + - * / ** and parentheses are allowed")


def _unit_and_multiplier(unit_text: str, expected: Unit) -> tuple[float, Unit | None, str]:
    """Resolve the unit part: a count suffix (70B, 1.5M tokens/s) and/or a unit."""
    unit_text = unit_text.strip()
    if not unit_text:
        return 1.0, None, ""
    # A bare B is bytes when the question wants bytes, otherwise "billion".
    if unit_text in COUNT_SUFFIXES and not (unit_text == "B" and expected.dim == BYTES):
        return COUNT_SUFFIXES[unit_text], None, ""
    head, _, rest = unit_text.partition(" ")
    if rest and head in COUNT_SUFFIXES:
        try:
            return COUNT_SUFFIXES[head], parse_unit(rest, expected.dim), rest.strip()
        except UnitError:
            pass
    try:
        return 1.0, parse_unit(unit_text, expected.dim), unit_text
    except UnitError as exc:
        raise AnswerError(str(exc)) from None


def parse_answer(text: str, expected_unit: str) -> Parsed:
    """Understand an answer in the context of a question's unit. Raises AnswerError."""
    if len(text) > MAX_INPUT:
        raise AnswerError(f"answer too long (over {MAX_INPUT} characters)")
    expected = parse_unit(expected_unit)
    normalized = _normalize(text)
    number_part, unit_part = _split(normalized)
    typed = evaluate(number_part)
    multiplier, unit, unit_name = _unit_and_multiplier(unit_part, expected)
    typed *= multiplier
    if unit is None:
        value = typed
        shown = expected_unit
        assumed = True
    else:
        if unit.dim != expected.dim:
            raise AnswerError(
                f"that is {dim_name(unit.dim)}; this question wants {dim_name(expected.dim, True)}"
                f" (in {expected_unit})"
            )
        value = typed * unit.factor / expected.factor
        shown = unit_name
        assumed = False
    if not math.isfinite(value):
        raise AnswerError("not a finite number")
    read_as = unit.name if unit is not None and unit.name != unit_name else None
    return Parsed(value=value, unit=shown, assumed_unit=assumed, typed_value=typed, read_as=read_as)
