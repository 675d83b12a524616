"""Reading the catalogs a question refers to (articles, companies, interview pages, readings,
topics), every problem reported at its path:line:col."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import ValidationError

if TYPE_CHECKING:
    from quizzer.content.yamlsrc import Located

from quizzer.content.catalogs import Article, Company, InterviewPage, Module, Reading, Topic
from quizzer.content.diagnostics import Collector, suggest
from quizzer.content.parse import parse_yaml, report_validation


class Catalogs(NamedTuple):
    """The catalogs a question refers to (articles.yaml, companies.yaml, topics.yaml)."""

    articles: dict[str, Article]
    companies: dict[str, Company]
    modules: list[Module]
    topics: dict[str, Topic]
    topic_chapter: dict[str, str]
    """Topic key -> the key of its chapter."""


def load_catalog(
    root: Path, name: str, top: str, sources: dict[Path, bytes], errors: Collector
) -> tuple[Any, Located]:
    """The rows of catalog ``name`` (the list under ``top``) and its located YAML; no rows when
    the file is missing, unreadable or not shaped so (reported to ``errors``)."""
    from quizzer.content.yamlsrc import Located

    path = root / name
    data = sources.get(path)
    if data is None:  # missing or unreadable: already reported
        return [], Located(data=None)
    doc = parse_yaml(path, data, errors, remember=True)
    if doc is None:
        return [], Located(data=None)
    if not isinstance(doc.data, dict) or not isinstance(doc.data.get(top), list):
        errors.add(path, 1, 1, f"expected a mapping with a list under {top!r}")
        return [], doc
    return doc.data[top], doc


def load_interviews(
    root: Path, sources: dict[Path, bytes], errors: Collector
) -> dict[str, InterviewPage]:
    pages: dict[str, InterviewPage] = {}
    rows, doc = load_catalog(root, "interviews.yaml", "interviews", sources, errors)
    for index, row in enumerate(rows):
        try:
            page = InterviewPage.model_validate(row)
        except ValidationError as exc:
            report_validation(exc, root / "interviews.yaml", ("interviews", index), doc, errors)
            continue
        pages[page.file] = page
    return pages


def load_readings(
    root: Path, sources: dict[Path, bytes], topics: dict[str, Topic], errors: Collector
) -> dict[str, Reading]:
    found: dict[str, Reading] = {}
    rows, doc = load_catalog(root, "readings.yaml", "readings", sources, errors)
    for index, row in enumerate(rows):
        try:
            reading = Reading.model_validate(row)
        except ValidationError as exc:
            report_validation(exc, root / "readings.yaml", ("readings", index), doc, errors)
            continue
        if reading.key in found:
            line, col = doc.where(("readings", index, "key"))
            errors.add(root / "readings.yaml", line, col, f"duplicate key {reading.key!r}")
        for i, tag in enumerate(reading.tags):
            if tag not in topics:
                line, col = doc.where(("readings", index, "tags", i))
                errors.add(
                    root / "readings.yaml",
                    line,
                    col,
                    f"unknown topic {tag!r}{suggest(tag, topics)}",
                )
        found[reading.key] = reading
    return found


def load_catalogs(root: Path, sources: dict[Path, bytes], errors: Collector) -> Catalogs:
    """Articles, companies and the taxonomy, every problem with them reported to ``errors``."""
    articles: dict[str, Article] = {}
    companies: dict[str, Company] = {}
    modules: list[Module] = []
    topics: dict[str, Topic] = {}
    topic_chapter: dict[str, str] = {}
    for name, top, model, table in (
        ("articles.yaml", "articles", Article, articles),
        ("companies.yaml", "companies", Company, companies),
    ):
        rows, doc = load_catalog(root, name, top, sources, errors)
        for index, row in enumerate(rows):
            try:
                item = model.model_validate(row)
            except ValidationError as exc:
                report_validation(exc, root / name, (top, index), doc, errors)
                continue
            if item.key in table:
                line, col = doc.where((top, index))
                errors.add(root / name, line, col, f"duplicate key {item.key!r}")
            table[item.key] = item  # type: ignore[assignment]
    rows, doc = load_catalog(root, "topics.yaml", "modules", sources, errors)
    for index, row in enumerate(rows):
        try:
            module = Module.model_validate(row)
        except ValidationError as exc:
            report_validation(exc, root / "topics.yaml", ("modules", index), doc, errors)
            continue
        modules.append(module)
        for chapter in module.chapters:
            for topic in chapter.topics:
                if topic.key in topics:
                    line, col = doc.where(("modules", index))
                    errors.add(root / "topics.yaml", line, col, f"duplicate topic {topic.key!r}")
                topics[topic.key] = topic
                topic_chapter[topic.key] = chapter.key
    return Catalogs(articles, companies, modules, topics, topic_chapter)
