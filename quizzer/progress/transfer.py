"""Moving progress in and out: review-history export, backup, restore, import.

Restore checks the incoming file completely before anything changes, then swaps it in with
one atomic rename, so a restore either happens whole or not at all.
"""

from __future__ import annotations

import csv
import json
import os
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from quizzer.progress.dbcheck import check_backup_file
from quizzer.progress.dbcopy import copy_file, copy_tables
from quizzer.progress.dbopen import prepare_path
from quizzer.progress.outfile import staged_output
from quizzer.progress.records import ImportedReview
from quizzer.progress.store import Store, StoreError

EXPORT_FORMAT = "quizzer-reviews"
EXPORT_VERSION = 1
REVIEW_FIELDS = (
    "uid",
    "question_id",
    "reviewed_at",
    "rating",
    "answer",
    "correct",
    "duration_ms",
    "seed",
    "mode",
    "missed_points",
)
MAX_MISSED_POINTS = 100
"""The most key points one imported review may list as missed."""


def review_rows(store: Store) -> list[dict[str, Any]]:
    """Every review as plain data, oldest first (``missed_points`` still as stored: JSON text)."""
    return [{k: row[k] for k in REVIEW_FIELDS} for row in store.reviews()]  # type: ignore[literal-required]


def export_json(store: Store, out: Path) -> int:
    """Write the review history as JSON; returns the number of reviews. ``missed_points`` is
    a list of key points (null when the review was rated without the checklist)."""
    rows = review_rows(store)
    for row in rows:
        if row["missed_points"] is not None:
            row["missed_points"] = json.loads(row["missed_points"])
    out.write_text(
        json.dumps(
            {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "reviews": rows},
            ensure_ascii=False,
            indent=1,
        ),
        "utf-8",
    )
    return len(rows)


def export_csv(store: Store, out: Path) -> int:
    """Write the review history as CSV; returns the number of reviews."""
    rows = review_rows(store)
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(REVIEW_FIELDS))
        writer.writeheader()
        writer.writerows(rows)
    return len(rows)


def backup(store: Store, out: Path) -> None:
    """A consistent copy of the whole progress DB (SQLite's online backup), written to a
    temporary file beside ``out`` and renamed, so a failure leaves no partial file."""
    with staged_output(out) as tmp:
        store.copy_to(tmp)


def check_backup(path: Path) -> int:
    """Raise StoreError unless ``path`` is a quizzer DB that is safe to restore (see
    quizzer.progress.dbcheck); returns its review count."""
    if not path.is_file():
        raise StoreError(f"{path}: no such file" if not path.exists() else f"{path}: not a file")
    if path.stat().st_size == 0:
        raise StoreError(f"{path} is empty, not a quizzer backup")
    return check_backup_file(path)


RESTORED_TABLES = ("reviews", "cards", "sessions", "settings", "review_days")
"""Copied in this order: reviews first, so the review_days triggers settle before review_days
itself is copied over."""


def restore(source: Path, db: Path) -> str | None:
    """Replace the progress at ``db`` with the backup ``source``, all or nothing.

    Refused while any other quizzer has ``db`` open (found through SQLite's locks), so a
    running session can never save into a history that restore then replaces. The copy goes
    through SQLite inside one exclusive transaction. If the current file cannot be read
    (damaged, or not a quizzer DB), it is moved aside, never deleted; the new name is
    returned."""
    check_backup(source)
    prepare_path(db, create=True)
    handle, name = tempfile.mkstemp(prefix=".restore-", suffix=".db", dir=db.parent)
    os.close(handle)
    staged = Path(name)
    moved: str | None = None
    try:
        copy_file(source, staged)
        Store(staged).close()  # migrate the staged copy to the current schema
        if not db.exists():
            os.replace(staged, db)
            return None
        problem = unusable(db)
        if problem is not None:
            moved = move_aside(db)
            os.replace(staged, db)
            return moved
        Store(db).close()  # bring the current DB to the same schema before copying into it
        copy_tables(staged, db, RESTORED_TABLES)
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(str(staged) + suffix).unlink(missing_ok=True)
    return moved


def unusable(db: Path) -> str | None:
    """Why the DB at ``db`` cannot be used as a quizzer DB (damaged, not ours), or None."""
    try:
        Store(db, create=False).close()
    except StoreError as exc:
        text = str(exc)
        if "damaged" in text or "not a quizzer database" in text or "another program" in text:
            return text
        raise
    return None


def move_aside(db: Path) -> str:
    """Rename a DB that cannot be used (and its -wal/-shm) out of the way; never delete it."""
    from quizzer.base.clock import now

    stamp = now().strftime("%Y%m%dT%H%M%S")
    target = db.with_name(f"{db.name}.damaged-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = db.with_name(f"{db.name}.damaged-{stamp}-{n}")
    for suffix in ("-wal", "-shm"):
        side = Path(str(db) + suffix)
        if side.exists():
            os.replace(side, Path(str(target) + suffix))
    os.replace(db, target)
    return str(target)


MAX_IMPORT_BYTES = 512 * 1024 * 1024
INT64 = 2**63 - 1


def _field_problem(row: dict[str, Any], earliest: datetime, latest: datetime) -> str | None:
    """What is wrong with one exported review, or None. Types are checked exactly: the
    values go straight into SQLite and later into the scheduler."""
    from quizzer.base.clock import ClockError, parse_utc
    from quizzer.progress.dbcheck import MAX_TEXT

    for name in ("uid", "question_id", "reviewed_at"):
        value = row.get(name)
        if not isinstance(value, str) or not value or len(value) > 200:
            return f"{name!r} must be a non-empty string of at most 200 characters"
    try:
        when = parse_utc(row["reviewed_at"])
    except (ClockError, ValueError, OverflowError):
        return f"'reviewed_at' is not an ISO 8601 time: {row['reviewed_at']!r}"
    if not earliest <= when <= latest:
        return f"'reviewed_at' {row['reviewed_at']!r} is not a plausible review time"
    rating = row.get("rating")
    if isinstance(rating, bool) or rating not in (1, 2, 3, 4):
        return f"'rating' must be 1, 2, 3 or 4 (got {rating!r})"
    answer = row.get("answer")
    if answer is not None and (not isinstance(answer, str) or len(answer) > MAX_TEXT):
        return f"'answer' must be text of at most {MAX_TEXT} characters, or null"
    if row.get("correct") not in (None, True, False, 0, 1):
        return f"'correct' must be true, false or null (got {row.get('correct')!r})"
    for name, low, high in (("duration_ms", 0, 10**9), ("seed", -INT64, INT64)):
        value = row.get(name)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high
        ):
            return f"{name!r} must be an integer from {low} to {high}, or null (got {value!r})"
    mode = row.get("mode")
    if mode is not None and (not isinstance(mode, str) or len(mode) > 40):
        return "'mode' must be a short string, or null"
    missed = row.get("missed_points")
    if missed is not None and (
        not isinstance(missed, list)
        or len(missed) > MAX_MISSED_POINTS
        or not all(isinstance(p, str) and 0 < len(p) <= 2000 for p in missed)
    ):
        return (
            f"'missed_points' must be a list of at most {MAX_MISSED_POINTS} key points (text), "
            "or null"
        )
    return None


def import_reviews(store: Store, source: Path) -> tuple[int, int]:
    """Merge reviews from an exported JSON file; returns (added, already present)."""

    from quizzer.base.clock import iso, now, parse_utc

    try:
        if source.stat().st_size > MAX_IMPORT_BYTES:
            raise StoreError(f"{source}: larger than {MAX_IMPORT_BYTES // 2**20} MB; not imported")
        data = json.loads(source.read_text("utf-8"))
    except RecursionError:
        raise StoreError(f"{source}: JSON nested too deeply; not a quizzer review export") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StoreError(f"{source}: not a readable JSON file ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise StoreError(f"{source}: not a quizzer review export (format {EXPORT_FORMAT!r})")
    rows = data.get("reviews")
    if not isinstance(rows, list):
        raise StoreError(f"{source}: 'reviews' must be a list")
    earliest = datetime(2000, 1, 1, tzinfo=UTC)
    latest = now() + timedelta(days=1)
    clean = []
    for index, row in enumerate(rows):
        problem = (
            _field_problem(row, earliest, latest)
            if isinstance(row, dict)
            else "each review must be a JSON object"
        )
        if problem is not None:
            raise StoreError(
                f"{source}: review #{index + 1} is malformed: {problem}. Nothing was imported."
            )
        when = parse_utc(row["reviewed_at"])
        clean.append((row["uid"], row["question_id"], when, row["rating"], row))
    added = 0
    touched: set[str] = set()
    with store.write():
        for uid, qid, when, rating, row in clean:
            review = ImportedReview(
                uid=uid,
                question_id=qid,
                reviewed_at=iso(when),
                rating=rating,
                answer=row.get("answer"),
                correct=None if row.get("correct") is None else int(row["correct"]),
                duration_ms=row.get("duration_ms"),
                seed=row.get("seed"),
                mode=row.get("mode") or "import",
                missed_points=row.get("missed_points"),
            )
            if store.add_imported_review(review):
                added += 1
                touched.add(qid)
        store.rebuild_cards(touched)
    return added, len(clean) - added
