"""A numeric question's parameters: drawing them from a seed, their extremes for
validation, and checking the values a user sets (``quizzer solve --set``)."""

from __future__ import annotations

import hashlib
import math
import random
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizzer.content.models import NumericQuestion, ParamSpec
from quizzer.grading.formatting import CalcError
from quizzer.grading.presets import Preset, preset, presets


def _round_sig(value: float, digits: int = 3) -> float:
    if value == 0:
        return 0.0
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def draw_value(spec: ParamSpec, rng: random.Random, bank_root: Path | None = None) -> Any:
    """One value for one parameter."""
    if spec.preset is not None:
        names = spec.choose or sorted(presets(spec.preset, bank_root))
        return preset(spec.preset, str(rng.choice(names)), bank_root)
    if spec.value is not None:
        return spec.value
    if spec.choose is not None:
        return rng.choice(spec.choose)
    assert spec.range is not None
    low, high = spec.range
    if spec.step is not None:
        count = math.floor((high - low) / spec.step + 1e-9)
        picked = low + rng.randint(0, count) * spec.step
        if _is_int(low) and _is_int(spec.step):
            return int(picked)
        return round(picked, 10)
    if spec.log:
        picked = math.exp(rng.uniform(math.log(low), math.log(high)))
        return round(picked) if _is_int(low) and _is_int(high) else _round_sig(picked, 2)
    if _is_int(low) and _is_int(high):
        return rng.randint(int(low), int(high))
    return _round_sig(rng.uniform(low, high), 3)


def _range_ends(spec: ParamSpec) -> list[Any]:
    """[low, top] of a parameter's range, top being the last grid point when there is a step."""
    assert spec.range is not None
    low, high = spec.range
    if spec.step is not None:
        count = math.floor((high - low) / spec.step + 1e-9)
        top = low + count * spec.step
        return [low, int(top) if _is_int(low) and _is_int(spec.step) else top]
    return [low, high]


def extremes(spec: ParamSpec, bank_root: Path | None = None) -> list[Any]:
    """The boundary values of a parameter, for validation: a `choose` list next to a `range`
    contributes its values and the range's ends."""
    if spec.preset is not None:
        names = spec.choose or sorted(presets(spec.preset, bank_root))
        return [preset(spec.preset, str(n), bank_root) for n in names]
    if spec.value is not None:
        return [spec.value]
    if spec.choose is not None:
        return list(spec.choose) + (_range_ends(spec) if spec.range is not None else [])
    return _range_ends(spec)


def new_seed(question_id: str) -> int:
    """A fresh seed; derived from the fixed clock when QUIZZER_NOW is set, so replays repeat."""
    from quizzer.base import clock

    if clock.fixed():
        digest = hashlib.sha256(f"{question_id}@{clock.now().isoformat()}".encode()).digest()
        return int.from_bytes(digest[:4], "big") % 1_000_000
    return secrets.randbelow(1_000_000)


FIELD_CAP = 1000
"""A preset field may be overridden up to this many times its largest value in the data file."""


def _number(text: str) -> int | float | None:
    """An int or a finite float written as text ('64', '1_000', '1e9', '0.5'), or None."""
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _same(raw: str, choice: Any) -> bool:
    """Whether the typed ``raw`` names ``choice`` (numbers compare by value)."""
    if isinstance(choice, bool) or not isinstance(choice, (int, float)):
        return raw.strip() == str(choice) or raw.strip().lower() == str(choice).lower()
    number = _number(raw)
    return number is not None and number == choice


def _plain(value: Any) -> str:
    """A value as it can be typed back after --set: 4096, 0.9, 7.06e+10 (no thousands commas)."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.10g}"
    return str(value)


def _listing(values: list[Any]) -> str:
    return ", ".join(_plain(v) for v in values)


def _integral(spec: ParamSpec) -> bool:
    """Whether a range parameter is drawn as an integer (as draw_value does)."""
    assert spec.range is not None
    low, high = spec.range
    if spec.step is not None:
        return _is_int(low) and _is_int(spec.step)
    return _is_int(low) and _is_int(high)


def describe(name: str, spec: ParamSpec, bank_root: Path | None = None) -> str:
    """What a parameter takes, for messages: 'batch takes an integer from 1 to 64'."""
    if spec.preset is not None:
        names = [str(n) for n in spec.choose or sorted(presets(spec.preset, bank_root))]
        if len(names) > 12:
            return (
                f"{name} takes the name of one of the {len(names)} {spec.preset} presets in "
                f"question_bank/data/{spec.preset}.yaml"
            )
        return f"{name} takes one of the {spec.preset} presets {', '.join(names)}"
    if spec.value is not None:
        return f"{name} is fixed at {_listing([spec.value])} in this question"
    if spec.choose is not None and spec.range is None:
        return f"{name} takes one of {_listing(spec.choose)}"
    low, high = _range_ends(spec)
    kind = "an integer" if _integral(spec) else "a number"
    text = f"{kind} from {_plain(low)} to {_plain(high)}"
    if spec.step is not None:
        text += f" in steps of {_plain(spec.step)}"
    if spec.choose is not None:
        return f"{name} takes one of {_listing(spec.choose)}, or {text}"
    return f"{name} takes {text}"


def accept(name: str, raw: str, spec: ParamSpec, bank_root: Path | None = None) -> Any:
    """The value ``--set name=raw`` gives a declared parameter, checked against its spec.
    Raises CalcError saying what the parameter takes."""
    refused = CalcError(f"--set {name}={raw}: {describe(name, spec, bank_root)}")
    if spec.preset is not None:
        names = [str(n) for n in spec.choose or sorted(presets(spec.preset, bank_root))]
        if raw.strip() not in names:
            from quizzer.content.bank import suggest

            raise CalcError(f"{refused}{suggest(raw.strip(), names)}")
        return preset(spec.preset, raw.strip(), bank_root)
    if spec.value is not None or spec.choose is not None:
        choices = [spec.value] if spec.value is not None else list(spec.choose or [])
        for choice in choices:
            if _same(raw, choice):
                return choice
        words = [str(c) for c in choices if isinstance(c, str)]
        if spec.range is None or spec.value is not None:
            if words:
                from quizzer.content.bank import suggest

                raise CalcError(f"{refused}{suggest(raw.strip(), words)}")
            raise refused
    assert spec.range is not None
    value = _number(raw)
    if value is None:
        raise refused
    low, high = spec.range
    top = _range_ends(spec)[1]
    slack = 1e-9 * max(abs(low), abs(high), 1)
    if not low - slack <= value <= top + slack:
        raise refused
    if spec.step is not None:
        steps = (value - low) / spec.step
        if abs(steps - round(steps)) > 1e-9 * max(abs(steps), 1):
            raise refused
        value = low + round(steps) * spec.step
        return int(value) if _integral(spec) else round(value, 10)
    if _integral(spec):
        if not float(value).is_integer():
            raise refused
        return int(value)
    return float(value)


@dataclass(frozen=True)
class FieldRule:
    """What a preset field may be set to, from the values every preset of its kind has."""

    integer: bool
    lowest: str
    """'positive', 'non-negative' or 'any'."""
    highest: float

    def allows(self, value: float) -> bool:
        """Whether ``value`` follows the rule."""
        if self.integer and not float(value).is_integer():
            return False
        if self.lowest == "positive" and value <= 0:
            return False
        if self.lowest == "non-negative" and value < 0:
            return False
        return abs(value) <= self.highest

    def text(self) -> str:
        """'a positive integer up to 126,000'."""
        noun = "integer" if self.integer else "number"
        if self.lowest == "any":
            article = "an" if self.integer else "a"
            return f"{article} {noun} of size up to {_plain(self.highest)}"
        return f"a {self.lowest} {noun} up to {_plain(self.highest)}"


def field_rule(kind: str, field_name: str, bank_root: Path | None = None) -> FieldRule:
    """The rule for one preset field; CalcError when it is not a number in the data file."""
    values = [p[field_name] for p in presets(kind, bank_root).values() if field_name in p]
    numeric = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not numeric or len(numeric) != len(values):
        raise CalcError(f"{field_name} is a label, not a number; only numeric fields can be set")
    lowest = "positive" if min(numeric) > 0 else "non-negative" if min(numeric) >= 0 else "any"
    highest = FIELD_CAP * max(abs(v) for v in numeric) or 1.0
    return FieldRule(all(isinstance(v, int) for v in numeric), lowest, highest)


def accept_field(
    holder: Preset, field_name: str, label: str, raw: str, bank_root: Path | None = None
) -> Any:
    """The value ``--set label=raw`` gives a preset field: a number like the data file's
    (an integer where every preset has an integer, positive where every preset has it
    positive, at most FIELD_CAP times the largest). Raises CalcError saying what it takes."""
    try:
        rule = field_rule(holder.kind, field_name, bank_root)
    except CalcError as exc:
        raise CalcError(f"--set {label}={raw}: {exc}") from None
    value = _number(raw)
    if value is None or not rule.allows(value):
        raise CalcError(
            f"--set {label}={raw}: {label} (a {holder.kind} field; {holder.key} has "
            f"{_listing([holder[field_name]])}) takes {rule.text()}"
        )
    return int(value) if rule.integer else value


def draw_params(
    q: NumericQuestion,
    seed: int,
    overrides: Mapping[str, str] | None = None,
    bank_root: Path | None = None,
) -> dict[str, Any]:
    """The parameters of one attempt: seeded draw, then ``--set`` overrides, each checked
    against its spec. Whole parameters (a preset by name) are set first and preset fields
    (``layers=40`` or ``model.layers=40``) after, whatever the order they were given in."""
    from quizzer.content.bank import suggest

    rng = random.Random(f"{q.id}:{seed}")
    params = {name: draw_value(spec, rng, bank_root) for name, spec in q.params.items()}
    overrides = overrides or {}
    for name, raw in overrides.items():
        if name in q.params:
            params[name] = accept(name, raw, q.params[name], bank_root)
    for name, raw in overrides.items():
        if name in q.params:
            continue
        head, dot, field_name = name.partition(".")
        if dot and isinstance(params.get(head), Preset):
            holder = params[head]
            if field_name not in holder:
                raise CalcError(
                    f"--set {name}={raw}: {holder.key} has no field {field_name!r}"
                    f"{suggest(field_name, list(holder))}"
                )
            value = accept_field(holder, field_name, name, raw, bank_root)
            params[head] = holder.replace(**{field_name: value})
            continue
        holders = [k for k, v in params.items() if isinstance(v, Preset) and name in v]
        if not holders:
            known = list(q.params)
            for key, value in params.items():
                if isinstance(value, Preset):
                    known += [f for f in value if f not in known]
                    known += [f"{key}.{f}" for f in value]
            raise CalcError(
                f"--set {name}={raw}: no parameter or preset field {name!r}{suggest(name, known)}"
            )
        for key in holders:
            holder = params[key]
            value = accept_field(holder, name, name, raw, bank_root)
            params[key] = holder.replace(**{name: value})
    return params
