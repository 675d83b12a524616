"""The study tracks (question_bank/tracks.yaml): read, validated and cross-checked against the
taxonomy, every problem reported at path:line:col like the other catalogs.

A track is a weighted set of topics and modules (quizzer.content.catalogs.Track); a study plan
(quizzer.study.plan) puts its topics in scope and introduces the heavier ones first.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from quizzer.content.catalog_loader import load_catalog
from quizzer.content.catalogs import Module, Topic, Track
from quizzer.content.diagnostics import Collector, suggest
from quizzer.content.parse import report_validation

TRACKS_FILE = "tracks.yaml"


def load_tracks(
    root: Path,
    sources: dict[Path, bytes],
    topics: dict[str, Topic],
    modules: list[Module],
    errors: Collector,
) -> dict[str, Track]:
    """Every valid track by key; schema errors, duplicate keys, unknown topics and unknown
    module numbers go to ``errors`` with their line and column."""
    path = root / TRACKS_FILE
    found: dict[str, Track] = {}
    rows, doc = load_catalog(root, TRACKS_FILE, "tracks", sources, errors)
    numbers = [str(module.module) for module in modules]
    seen: dict[str, int] = {}
    for index, row in enumerate(rows):
        at = ("tracks", index)
        raw = row if isinstance(row, dict) else {}
        # Cross-references are checked on the raw mapping, so they are reported even when
        # another field of the track fails the schema.
        raw_topics = raw.get("topics")
        raw_topics = raw_topics if isinstance(raw_topics, dict) else {}
        for key in raw_topics:
            if isinstance(key, str) and key not in topics:
                line, col = doc.where(at + ("topics", key), key=True)
                errors.add(path, line, col, f"unknown topic {key!r}{suggest(key, topics)}")
        raw_modules = raw.get("modules")
        raw_modules = raw_modules if isinstance(raw_modules, dict) else {}
        for number in raw_modules:
            if str(number) not in numbers:
                line, col = doc.where(at + ("modules", number), key=True)
                known = ", ".join(numbers)
                errors.add(path, line, col, f"unknown module {number} (topics.yaml has {known})")
        key = raw.get("key")
        if isinstance(key, str):
            if key in seen:
                line, col = doc.where(at + ("key",))
                errors.add(path, line, col, f"duplicate track key {key!r} (also line {seen[key]})")
            else:
                seen[key] = doc.where(at + ("key",))[0]
        try:
            track = Track.model_validate(row)
        except ValidationError as exc:
            report_validation(exc, path, at, doc, errors)
            continue
        found.setdefault(track.key, track)
    return found


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
