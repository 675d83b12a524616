"""The study tracks (question_bank/tracks.yaml): read like every catalog (catalog_reader.py) and
cross-checked against the taxonomy, every problem reported at path:line:col.

A track is a weighted set of topics and modules (quizzer.content.catalogs.Track); a study plan
(quizzer.study.plan) puts its topics in scope and introduces the heavier ones first.
"""

from __future__ import annotations

from typing import Any

from quizzer.content.catalog_reader import CatalogFile, CatalogReader, RawCheck
from quizzer.content.catalogs import Module, Topic, Track
from quizzer.content.diagnostics import Reporter, suggest

TRACKS_FILE = "tracks.yaml"
TRACKS = CatalogFile(TRACKS_FILE, "tracks", Track, duplicates=None)
"""The tracks catalog; a repeated key is reported by the raw checks below, even when the
track fails the schema."""


def load_tracks(
    reader: CatalogReader, topics: dict[str, Topic], modules: list[Module]
) -> dict[str, Track]:
    """Every valid track by key; schema errors, duplicate keys, unknown topics and unknown
    module numbers go to the reader's errors with their line and column."""
    return reader.table(TRACKS, check_raw=_raw_checks(topics, modules))


def _raw_checks(topics: dict[str, Topic], modules: list[Module]) -> RawCheck:
    """The checks of one raw track row: its topics and modules exist, its key is new. They run
    on the raw mapping, so they are reported even when another field fails the schema."""
    numbers = [str(module.module) for module in modules]
    seen: dict[str, int] = {}

    def check(row: Any, report: Reporter) -> None:
        raw = row if isinstance(row, dict) else {}
        raw_topics = raw.get("topics")
        for key in raw_topics if isinstance(raw_topics, dict) else {}:
            if isinstance(key, str) and key not in topics:
                report(("topics", key), f"unknown topic {key!r}{suggest(key, topics)}", key=True)
        raw_modules = raw.get("modules")
        for number in raw_modules if isinstance(raw_modules, dict) else {}:
            if str(number) not in numbers:
                known = ", ".join(numbers)
                message = f"unknown module {number} (topics.yaml has {known})"
                report(("modules", number), message, key=True)
        key = raw.get("key")
        if isinstance(key, str):
            if key in seen:
                report(("key",), f"duplicate track key {key!r} (also line {seen[key]})")
            else:
                seen[key] = report.where(("key",))[0]

    return check


def track_topic_weights(track: Track, modules: list[Module]) -> dict[str, int]:
    """Topic key -> the track's weight for it: its own weight if listed, else its module's."""
    weights: dict[str, int] = {}
    for module in modules:
        weight = track.modules.get(module.module)
        if weight is None:
            continue
        for chapter in module.chapters:
            for topic in chapter.topics:
                weights[topic.key] = weight
    weights.update(track.topics)
    return weights
