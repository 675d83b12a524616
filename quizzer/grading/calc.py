"""Calculation problems: draw parameters, run the reference solution, render, grade.

One attempt = one seeded draw. The same seed always gives the same parameters, so a review
can be replayed from the seed stored with it. Solutions return values in base units (bytes,
seconds, FLOP, tokens and their ratios; a fraction for %), and the question's ``unit`` says
how the answer is shown and read.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import math
import random
import secrets
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from quizzer.content.models import NumericQuestion, ParamSpec
from quizzer.grading.units import UnitError, parse_unit


class CalcError(ValueError):
    """A numeric question cannot be prepared (bad override, broken solution, …)."""


class Preset(Mapping[str, Any]):
    """A named real-world configuration (a model, a GPU, a dtype) with attribute access."""

    def __init__(
        self,
        kind: str,
        key: str,
        fields: dict[str, Any],
        changed: dict[str, Any] | None = None,
    ) -> None:
        self._kind = kind
        self._key = key
        self._fields = dict(fields)
        self._changed = dict(changed or {})

    @property
    def key(self) -> str:
        """The preset's name, e.g. ``llama-3-70b``."""
        return self._key

    @property
    def kind(self) -> str:
        """Which data file it comes from."""
        return self._kind

    @property
    def overrides(self) -> dict[str, Any]:
        """The fields changed from the data file (by ``--set``), in the order they were set."""
        return dict(self._changed)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(f"{self._key} has no field {name!r}") from None

    def __getitem__(self, name: str) -> Any:
        return self._fields[name]

    def __iter__(self) -> Any:
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __str__(self) -> str:
        return str(self._fields.get("title", self._key))

    def __repr__(self) -> str:
        return f"Preset({self._kind}:{self._key})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def replace(self, **changes: Any) -> Preset:
        """A copy with some fields overridden (remembered in ``overrides``)."""
        return Preset(
            self._kind, self._key, {**self._fields, **changes}, {**self._changed, **changes}
        )


@cache
def _load_presets(path: str) -> dict[str, dict[str, Any]]:
    from quizzer.content.bank import SourceProblem, read_bank_file
    from quizzer.content.yamlsrc import YamlProblem, load_located

    # The same bounded reading as the question files: a regular file of at most 2 MB, no
    # link, no FIFO, no YAML alias.
    try:
        data = load_located(read_bank_file(Path(path)).decode("utf-8")).data or {}
    except SourceProblem as exc:
        raise CalcError(f"{path}: {exc}") from None
    except UnicodeDecodeError:
        raise CalcError(f"{path}: not UTF-8 text") from None
    except YamlProblem as exc:
        raise CalcError(f"{path}:{exc.line}:{exc.col}: {exc.message}") from None
    presets = data.get("presets", {}) if isinstance(data, dict) else None
    if not isinstance(presets, dict):
        raise CalcError(f"{path}: expected a mapping under 'presets'")
    return presets


def presets(kind: str, bank_root: Path | None = None) -> dict[str, dict[str, Any]]:
    """The presets of one kind (models, gpus, dtypes) from the bank's data directory."""
    from quizzer.base.paths import bank_dir

    root = bank_root or bank_dir()
    return _load_presets(str(root.resolve() / "data" / f"{kind}.yaml"))


def preset(kind: str, key: str, bank_root: Path | None = None) -> Preset:
    """One preset by name."""
    table = presets(kind, bank_root)
    if key not in table:
        from quizzer.content.bank import suggest

        raise CalcError(f"unknown {kind} preset {key!r}{suggest(key, table)}")
    return Preset(kind, key, table[key])


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
            try:
                unit = parse_unit(format_spec)
            except UnitError:
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
