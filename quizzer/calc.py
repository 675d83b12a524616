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

from quizzer.models import NumericQuestion, ParamSpec
from quizzer.units import UnitError, parse_unit


class CalcError(ValueError):
    """A numeric question cannot be prepared (bad override, broken solution, …)."""


class Preset(Mapping[str, Any]):
    """A named real-world configuration (a model, a GPU, a dtype) with attribute access."""

    def __init__(self, kind: str, key: str, fields: dict[str, Any]) -> None:
        self._kind = kind
        self._key = key
        self._fields = dict(fields)

    @property
    def key(self) -> str:
        """The preset's name, e.g. ``llama-3-70b``."""
        return self._key

    @property
    def kind(self) -> str:
        """Which data file it comes from."""
        return self._kind

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
        """A copy with some fields overridden."""
        return Preset(self._kind, self._key, {**self._fields, **changes})


@cache
def _load_presets(path: str) -> dict[str, dict[str, Any]]:
    from quizzer.bank import SourceProblem, read_bank_file
    from quizzer.yamlsrc import YamlProblem, load_located

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
    from quizzer.paths import bank_dir

    root = bank_root or bank_dir()
    return _load_presets(str(root.resolve() / "data" / f"{kind}.yaml"))


def preset(kind: str, key: str, bank_root: Path | None = None) -> Preset:
    """One preset by name."""
    table = presets(kind, bank_root)
    if key not in table:
        from quizzer.bank import suggest

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
    except (AttributeError, IndexError, ValueError) as exc:
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


def extremes(spec: ParamSpec, bank_root: Path | None = None) -> list[Any]:
    """The boundary values of a parameter, for validation."""
    if spec.preset is not None:
        names = spec.choose or sorted(presets(spec.preset, bank_root))
        return [preset(spec.preset, str(n), bank_root) for n in names]
    if spec.value is not None:
        return [spec.value]
    if spec.choose is not None:
        return list(spec.choose)
    assert spec.range is not None
    low, high = spec.range
    if spec.step is not None:
        count = math.floor((high - low) / spec.step + 1e-9)
        top = low + count * spec.step
        return [low, int(top) if _is_int(low) and _is_int(spec.step) else top]
    return [low, high]


def new_seed(question_id: str) -> int:
    """A fresh seed; derived from the fixed clock when QUIZZER_NOW is set, so replays repeat."""
    from quizzer import clock

    if clock.fixed():
        digest = hashlib.sha256(f"{question_id}@{clock.now().isoformat()}".encode()).digest()
        return int.from_bytes(digest[:4], "big") % 1_000_000
    return secrets.randbelow(1_000_000)


def _coerce(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def draw_params(
    q: NumericQuestion,
    seed: int,
    overrides: Mapping[str, str] | None = None,
    bank_root: Path | None = None,
) -> dict[str, Any]:
    """The parameters of one attempt: seeded draw, then ``--set`` overrides."""
    rng = random.Random(f"{q.id}:{seed}")
    params = {name: draw_value(spec, rng, bank_root) for name, spec in q.params.items()}
    for name, raw in (overrides or {}).items():
        if name in q.params:
            spec = q.params[name]
            params[name] = preset(spec.preset, raw, bank_root) if spec.preset else _coerce(raw)
            continue
        holders = [p for p in params.values() if isinstance(p, Preset) and name in p]
        if not holders:
            from quizzer.bank import suggest

            known = list(q.params) + [
                f for p in params.values() if isinstance(p, Preset) for f in p
            ]
            raise CalcError(f"no parameter or preset field {name!r}{suggest(name, known)}")
        for holder_name, value in list(params.items()):
            if isinstance(value, Preset) and name in value:
                params[holder_name] = value.replace(**{name: _coerce(raw)})
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
        """Parameters as JSON: presets by name."""
        return {k: v.key if isinstance(v, Preset) else v for k, v in self.params.items()}


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
    answer, intermediates = run_solution(q, params)
    return Attempt(q, seed, params, answer, intermediates)


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
    from quizzer.answers import parse_answer

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
