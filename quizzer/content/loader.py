"""Parsing a bank from its files' bytes: the catalogs first, then every question file, every
question validated and cross-checked. Nothing stops at the first problem: all of them are
raised together in one BankError."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

if TYPE_CHECKING:
    from quizzer.content.catalogs import Module
    from quizzer.content.yamlsrc import Path_

from quizzer.content.bank_model import Bank, SourceLoc
from quizzer.content.catalog_loader import Catalogs, load_catalogs
from quizzer.content.diagnostics import BankError, Collector, Diagnostic, Reporter, display_path
from quizzer.content.models import AnyQuestion, question_adapter
from quizzer.content.parse import PLACEHOLDER_HINT, parse_yaml, placeholders_in, report_validation
from quizzer.content.refs import check_refs


def _guide_order(files: list[Path], modules: list[Module]) -> list[Path]:
    """Question files in bank order, the order new questions of one difficulty come in: folder
    by folder (by name), and within a folder the topics' files in the order topics.yaml lists
    the topics (the guide's order; a topic's questions live in <topic>.yaml), then the rest."""
    topics = [
        topic.key for module in modules for chapter in module.chapters for topic in chapter.topics
    ]
    place = {key: n for n, key in enumerate(topics)}
    return sorted(files, key=lambda p: (p.parent.name, place.get(p.stem, len(place)), p.name))


@dataclass
class _Found:
    """What the question files hold, gathered file by file while the bank loads."""

    catalogs: Catalogs
    questions: list[AnyQuestion] = field(default_factory=list)
    locations: dict[str, SourceLoc] = field(default_factory=dict)
    previous: dict[str, str] = field(default_factory=dict)
    """Old id -> current id."""
    seen_ids: dict[str, SourceLoc] = field(default_factory=dict)
    """Every id met so far, valid or not, at its first place (to report duplicates)."""
    placeholders: list[Diagnostic] = field(default_factory=list)


def load_uncached(
    root: Path,
    files: list[Path],
    sources: dict[Path, bytes],
    errors: Collector,
    progress: Callable[[int, int], None] | None = None,
    allow_placeholders: bool = False,
) -> tuple[Bank, bool]:
    """The bank parsed from ``sources``, and whether placeholder text was let through."""
    catalogs = load_catalogs(root, sources, errors)
    files = _guide_order(files, catalogs.modules)
    found = _Found(catalogs)
    for done, path in enumerate(files, 1):
        if progress is not None:
            progress(done, len(files))
        data = sources.get(path)
        if data is not None:  # None: unreadable, already reported
            _read_question_file(path, data, errors, found)
    for old, new in found.previous.items():
        if old in found.locations:
            loc = found.locations[new]
            errors.items.append(
                Diagnostic(loc.path, loc.line, 1, f"previous id {old!r} is still a live id")
            )
    problems = errors.items + ([] if allow_placeholders else found.placeholders)
    if problems:
        raise BankError(sorted(problems))
    bank = Bank(
        root=root,
        questions=found.questions,
        articles=catalogs.articles,
        companies=catalogs.companies,
        modules=catalogs.modules,
        topics=catalogs.topics,
        topic_chapter=catalogs.topic_chapter,
        locations=found.locations,
        files=[str(p.relative_to(root)) for p in files],
        previous=found.previous,
        interviews=catalogs.interviews,
        readings=catalogs.readings,
        tracks=catalogs.tracks,
    )
    return bank, bool(found.placeholders)


def _read_question_file(path: Path, data: bytes, errors: Collector, found: _Found) -> None:
    """Every question of one file into ``found``, every problem into ``errors``."""
    doc = parse_yaml(path, data, errors)
    if doc is None or doc.data is None:
        return
    # Only a file whose text has a placeholder word needs each of its strings searched.
    unfinished_file = PLACEHOLDER_HINT.search(data) is not None
    shown = display_path(path)  # once per file, not per question (it resolves the path)
    if not isinstance(doc.data, list):
        errors.add(path, 1, 1, "a question file is a list of questions (start items with '- ')")
        return
    for index, raw in enumerate(doc.data):
        base: Path_ = (index,)
        line, col = doc.where(base)
        if not isinstance(raw, dict):
            errors.add(path, line, col, "a question must be a mapping of fields")
            continue
        raw_id = raw.get("id")
        if isinstance(raw_id, str):
            if raw_id in found.seen_ids:
                first = found.seen_ids[raw_id]
                errors.add(
                    path,
                    *doc.where(base + ("id",)),
                    f"duplicate id {raw_id!r} (also at {first.path}:{first.line})",
                )
            else:
                found.seen_ids[raw_id] = SourceLoc(shown, line)
        check_refs(raw, found.catalogs, Reporter(errors, path, doc, base))
        if unfinished_file:
            found.placeholders += placeholders_in(raw, path, base, doc, data)
        try:
            q = question_adapter().validate_python(raw)
        except ValidationError as exc:
            report_validation(exc, path, base, doc, errors)
            continue
        if q.id in found.locations:
            continue
        for old in q.previous_ids:
            found.previous[old] = q.id
        found.locations[q.id] = SourceLoc(shown, line)
        found.questions.append(q)
