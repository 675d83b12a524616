"""The bank's numeric questions as the solution tests read them: found by id, or by the module of
their solution, wherever their YAML file is; and every combination of a question's parameters."""

from __future__ import annotations

import itertools
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from quizzer.grading.calc import preset, presets

QUESTIONS = Path(__file__).resolve().parents[2] / "question_bank" / "questions"

SMALL_RANGE = 64
"""An integer `range` with at most this many values is drawn in full; any other at its ends."""


@cache
def _numeric() -> tuple[dict[str, Any], ...]:
    """Every numeric question of the bank, as its YAML mapping."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    found = []
    for path in sorted(QUESTIONS.rglob("*.yaml")):
        for q in yaml.load(path.read_text("utf-8"), Loader=loader) or []:
            if q.get("kind") == "numeric":
                found.append(q)
    return tuple(found)


def numeric_questions(*modules: str) -> list[dict[str, Any]]:
    """The numeric questions whose solution is in one of solutions.<module> (every numeric
    question when no module is named)."""
    prefixes = tuple(f"solutions.{module}." for module in modules)
    return [q for q in _numeric() if not prefixes or q["solution"].startswith(prefixes)]


def question(qid: str) -> dict[str, Any]:
    """The numeric question with this id."""
    found = [q for q in _numeric() if q["id"] == qid]
    assert len(found) == 1, f"{qid}: {len(found)} numeric questions have this id"
    return found[0]


def params(qid: str) -> dict[str, Any]:
    """The parameter specs of the numeric question with this id."""
    return question(qid)["params"]  # type: ignore[no-any-return]


def _values(spec: dict[str, Any]) -> list[Any]:
    """The values one parameter takes on the grid: its fixed value, its presets (every one of the
    kind when none is chosen, as the draw does), its choices, or its range (every integer of a
    small one, else both ends)."""
    if "value" in spec:
        return [spec["value"]]
    if "preset" in spec:
        keys = spec.get("choose") or sorted(presets(spec["preset"]))
        return [preset(spec["preset"], key) for key in keys]
    if "choose" in spec:
        return list(spec["choose"])
    low, high = spec["range"]
    step = spec.get("step", 1)
    whole = all(isinstance(v, int) for v in (low, high, step))
    if whole and (high - low) // step + 1 <= SMALL_RANGE:
        return list(range(low, high + 1, step))
    return [low, high]


def grid(specs: dict[str, Any], skip: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Every combination of the parameters' values (those named in `skip` left out)."""
    names = [name for name in specs if name not in skip]
    values = [_values(specs[name]) for name in names]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*values)]
