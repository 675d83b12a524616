"""Parsing the bank's YAML with positions, and turning what is wrong in it into diagnostics:
schema errors at the field that failed, and placeholder text (TODO, ...) at the word itself."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError

    from quizzer.content.yamlsrc import Located, Path_

from quizzer.content.diagnostics import Collector, Diagnostic, display_path, suggest
from quizzer.content.models import ALL_KINDS, QUESTION_MODELS, RecallQuestion, ZhBlock

_WORD = "(?<![A-Za-z0-9_]){}(?![A-Za-z0-9_])"
PLACEHOLDER = re.compile(_WORD.format("(TODO|TBD|FIXME|XXX)"))
"""Stub text left in a question: these words, upper-case and whole (so `a todo list`, `TODOs`
or `sm_XXX` are content; next to Chinese text, `翻译TODO`, they still count). Every stub
sentence `quizzer new` writes contains `TODO`."""
PLACEHOLDER_HINT = re.compile(rb"TODO|TBD|FIXME|XXX")
"""The words anywhere in a file's bytes (fast: no look-around), to skip files without them."""


def parse_yaml(
    path: Path, data: bytes, errors: Collector, *, remember: bool = False
) -> Located | None:
    """The located YAML of one bank file, or None with the problem reported to ``errors``.

    ``remember`` keeps the result for the same text (see ``_remembered``): for the catalogs,
    which every bank a process loads shares (each test bank copies the shipped ones)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        errors.add(path, 1, 1, f"not UTF-8 text ({exc.reason} at byte {exc.start})")
        return None
    from quizzer.content.yamlsrc import YamlProblem, load_located

    try:
        return _remembered(text) if remember else load_located(text)
    except YamlProblem as exc:
        errors.add(path, exc.line, exc.col, exc.message)
        return None


@lru_cache(maxsize=16)
def _remembered(text: str) -> Located:
    """``load_located(text)``, kept for the last few texts, so a process that loads a bank
    again parses an unchanged catalog once. Nothing changes a Located after it is built (the
    loader only reads it); a YamlProblem is raised every time, never kept."""
    from quizzer.content.yamlsrc import load_located

    return load_located(text)


def report_validation(
    exc: ValidationError, path: Path, base: Path_, doc: Located, errors: Collector
) -> None:
    """Every schema error of one item (a question at ``base``, or a catalog row) at the line
    and column of the field it is about, with a did-you-mean for an unknown field."""
    for err in exc.errors():
        loc: list[Any] = list(err["loc"])
        # A discriminated union puts the kind tag first; it is not a field of the YAML.
        if loc and loc[0] in ALL_KINDS:
            loc = loc[1:]
        where = base + tuple(loc)
        field_name = ".".join(str(p) for p in loc) or "question"
        kind = err["type"]
        if kind == "extra_forbidden":
            line, col = doc.where(where, key=True)
            message = f"unknown field {field_name!r}"
            parent = doc.data
            for part in base:
                parent = parent[part]
            message += suggest(str(loc[-1]), _allowed_fields(parent, loc[:-1]))
        elif kind == "missing":
            line, col = doc.where(where[:-1])
            message = f"missing field {field_name!r}"
        elif kind == "union_tag_invalid" or kind == "union_tag_not_found":
            line, col = doc.where(where + ("kind",))
            message = f"field 'kind' must be one of {', '.join(ALL_KINDS)}"
            given = err.get("input")
            if isinstance(given, dict) and isinstance(given.get("kind"), str):
                message += suggest(given["kind"], ALL_KINDS)
        elif not loc and "is not among the options" in err["msg"]:
            continue  # reported by check_refs with the option's own line
        else:
            line, col = doc.where(where)
            text = err["msg"].removeprefix("Value error, ")
            message = f"{field_name}: {text}"
        errors.add(path, line, col, message)


def _allowed_fields(question: Any, inner: list[Any]) -> list[str]:
    """The fields an unknown one may be a misspelling of, at ``inner`` inside ``question``."""
    kind = question.get("kind") if isinstance(question, dict) else None
    model = QUESTION_MODELS.get(kind) if isinstance(kind, str) else None
    if model is None:
        return list(RecallQuestion.model_fields)
    if inner == ["zh"]:
        return list(ZhBlock.model_fields)
    if not inner:
        return list(model.model_fields)
    return []


def _strings(value: Any, at: Path_) -> Iterable[tuple[Path_, str]]:
    """Every string inside ``value``, with where it is."""
    if isinstance(value, str):
        yield at, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, at + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, at + (index,))


def placeholders_in(
    raw: dict[str, Any], path: Path, base: Path_, doc: Located, data: bytes
) -> list[Diagnostic]:
    """Placeholder words in any text of one question, each at the word itself when it can be
    found in the source (else at the start of its value)."""
    found = []
    lines: list[str] | None = None
    for at, text in _strings(raw, base):
        match = PLACEHOLDER.search(text)
        if match is None:
            continue
        word = match.group(1)
        line, col = doc.where(at)
        if lines is None:
            lines = data.decode("utf-8").splitlines()
        # The word on the value's first line (from its column) or the lines its text spans.
        for number in range(line, min(line + text.count("\n") + 2, len(lines) + 1)):
            start = col - 1 if number == line else 0
            hit = re.compile(_WORD.format(word)).search(lines[number - 1], start)
            if hit is not None:
                line, col = number, hit.start() + 1
                break
        where = ".".join(str(part) for part in at[len(base) :])
        found.append(
            Diagnostic(
                display_path(path),
                line,
                col,
                f"placeholder text {word!r} in {where}: write the real text (a question with "
                "TODO, TBD, FIXME or XXX is not served)",
            )
        )
    return found
