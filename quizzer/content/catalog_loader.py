"""The catalogs a question refers to, read from the bank's files: articles, companies, interview
pages, deep-dive readings, the taxonomy (topics.yaml) and the study tracks (tracks.py). Each is
read the one way catalog_reader.py reads a catalog; this module adds their cross-checks."""

from __future__ import annotations

from collections.abc import Callable
from copy import copy
from pathlib import Path
from typing import NamedTuple

from quizzer.content.catalog_reader import CatalogFile, CatalogReader
from quizzer.content.catalogs import (
    Article,
    Company,
    InterviewPage,
    Module,
    Reading,
    Topic,
    Track,
)
from quizzer.content.diagnostics import Collector, Reporter, suggest
from quizzer.content.sources import CATALOGS
from quizzer.content.tracks import load_tracks

ARTICLES = CatalogFile("articles.yaml", "articles", Article)
"""The guide's articles and chapter pages."""
COMPANIES = CatalogFile("companies.yaml", "companies", Company)
"""The companies with interview pages."""
INTERVIEWS = CatalogFile(
    "interviews.yaml", "interviews", InterviewPage, key="file", duplicates=None
)
"""The interview pages, by file (a page listed twice replaces the earlier one)."""
READINGS = CatalogFile("readings.yaml", "readings", Reading, duplicates="key")
"""The deep-dive posts; their tags are topics."""
TAXONOMY = CatalogFile("topics.yaml", "modules", Module, duplicates=None)
"""The taxonomy: its rows are modules, and its keys are the topics inside them."""


class Catalogs(NamedTuple):
    """Every catalog of a bank, as a question and the bank refer to them."""

    articles: dict[str, Article]
    companies: dict[str, Company]
    modules: list[Module]
    topics: dict[str, Topic]
    topic_chapter: dict[str, str]
    """Topic key -> the key of its chapter."""
    interviews: dict[str, InterviewPage]
    """Interview page file -> the page."""
    readings: dict[str, Reading]
    tracks: dict[str, Track]


_CLEAN: dict[tuple[bytes | None, ...], Catalogs] = {}
"""The catalogs of the last clean load, by the bytes of the catalog files: a process that loads a
bank with the same catalogs again (a reload after a question file changed; each test bank copies
the shipped catalogs) validates their rows once. The models are frozen; each load gets its own
dicts and lists. (When one catalog differs, parse._remembered still spares re-parsing the YAML of
the others.)"""


def load_catalogs(root: Path, sources: dict[Path, bytes], errors: Collector) -> Catalogs:
    """Every catalog, read from ``sources``; every problem with them reported to ``errors``."""
    key = tuple(sources.get(root / name) for name in CATALOGS)
    kept = _CLEAN.get(key)
    if kept is None:
        reported = len(errors.items)
        kept = _read_catalogs(root, sources, errors)
        if None in key or len(errors.items) > reported:
            return kept  # a catalog with a problem is read (and reported) every time
        _CLEAN.clear()
        _CLEAN[key] = kept
    return Catalogs._make(copy(table) for table in kept)


def _read_catalogs(root: Path, sources: dict[Path, bytes], errors: Collector) -> Catalogs:
    """Every catalog, parsed and validated from ``sources``."""
    reader = CatalogReader(root, sources, errors)
    modules, topics, topic_chapter = _taxonomy(reader)
    return Catalogs(
        articles=reader.table(ARTICLES),
        companies=reader.table(COMPANIES),
        modules=modules,
        topics=topics,
        topic_chapter=topic_chapter,
        interviews=reader.table(INTERVIEWS),
        readings=reader.table(READINGS, check=_known_tags(topics)),
        tracks=load_tracks(reader, topics, modules),
    )


def _taxonomy(reader: CatalogReader) -> tuple[list[Module], dict[str, Topic], dict[str, str]]:
    """The modules, every topic by key, and each topic's chapter; a topic key used twice is
    reported at the module that repeats it."""
    modules: list[Module] = []
    topics: dict[str, Topic] = {}
    topic_chapter: dict[str, str] = {}
    for module, report in reader.rows(TAXONOMY):
        modules.append(module)
        for chapter in module.chapters:
            for topic in chapter.topics:
                if topic.key in topics:
                    report((), f"duplicate topic {topic.key!r}")
                topics[topic.key] = topic
                topic_chapter[topic.key] = chapter.key
    return modules, topics, topic_chapter


def _known_tags(topics: dict[str, Topic]) -> Callable[[Reading, Reporter], None]:
    """Checks that a reading's tags are topics of the taxonomy."""

    def check(reading: Reading, report: Reporter) -> None:
        for i, tag in enumerate(reading.tags):
            if tag not in topics:
                report(("tags", i), f"unknown topic {tag!r}{suggest(tag, topics)}")

    return check
