"""Numbers as a calculation problem shows them (significant figures, units, counts), and
the templates of prompts and worked solutions that print them."""

from __future__ import annotations

import math
import string
from typing import Any

from quizzer.grading.units import known_unit


class CalcError(ValueError):
    """A numeric question cannot be prepared (bad override, broken solution, …)."""


def format_number(value: Any) -> str:
    """Numbers as a person writes them: 140, 0.0123, 32,768, 1.4e11."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    magnitude = abs(value)
    if float(value).is_integer() and magnitude < 1e7:
        return f"{int(value):,}"
    if magnitude >= 1e7 or magnitude < 1e-3:
        mantissa, exponent = (
            f"{value:.4g}".split("e")
            if "e" in f"{value:.4g}"
            else (
                f"{value:.4g}",
                "",
            )
        )
        return f"{mantissa}e{int(exponent)}" if exponent else mantissa
    if magnitude >= 1e4:
        return f"{value:,.0f}"
    if magnitude >= 1e3:
        return f"{value:,.1f}".rstrip("0").rstrip(".")
    return f"{value:.4g}"


def with_unit(value: float, unit: str) -> str:
    """A value and its unit as a person writes them ('140 GB', '45%', '55' for a count)."""
    if unit == "1":
        return format_number(value)
    if unit == "%":
        return f"{format_number(value)}%"
    return f"{format_number(value)} {unit}"


def format_count(value: float) -> str:
    """Large counts the way engineers say them: 7.61B, 70.6B, 671B, 1.2T, 32k."""
    for suffix, size in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= size:
            return f"{value / size:.3g}{suffix}"
    return format_number(value)


class TemplateFormatter(string.Formatter):
    """str.format for prompts and worked solutions: pretty numbers, unit specs, no dunders.

    ``{x}`` prints a number nicely; ``{x:count}`` as 70.6B; ``{x:GB}`` converts a base-unit
    value to GB and appends
    the unit; any other spec (``{x:.2f}``) is Python's own.
    """

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        if "_" in field_name.split(".")[-1][:1] or "__" in field_name:
            raise CalcError(f"template field {field_name!r} is not allowed")
        return super().get_field(field_name, args, kwargs)

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec == "count" and isinstance(value, (int, float)):
            return format_count(value)
        if format_spec and isinstance(value, (int, float)) and not isinstance(value, bool):
            unit = known_unit(format_spec)
            if unit is None:
                return format(value, format_spec)
            shown = "µs" if format_spec == "us" else format_spec
            return f"{format_number(value / unit.factor)} {shown}"
        if not format_spec:
            return format_number(value)
        return format(value, format_spec)


FORMATTER = TemplateFormatter()


def render(template: str, context: dict[str, Any]) -> str:
    """Fill a template; a missing name is a CalcError naming it."""
    try:
        return FORMATTER.vformat(template, (), context)
    except KeyError as exc:
        raise CalcError(f"template uses {{{exc.args[0]}}}, which is not a parameter") from None
    except (AttributeError, IndexError, ValueError, TypeError, OverflowError) as exc:
        raise CalcError(f"template error: {exc}") from None
