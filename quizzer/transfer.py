"""Moving progress in and out: review-history export, backup, restore, import.

Restore checks the incoming file completely before anything changes, then swaps it in with
one atomic rename, so a restore either happens whole or not at all.
"""

from __future__ import annotations

import csv
import json
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from quizzer.scheduling import (
    Grade,
    SchedulerSettings,
    card_to_json,
    make_scheduler,
    new_card,
    review,
    state_name,
)
from quizzer.store import Store, StoreError, _check_file

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
)


def review_rows(store: Store) -> list[dict[str, Any]]:
    """Every review as plain data, oldest first."""
    return [{k: row[k] for k in REVIEW_FIELDS} for row in store.reviews()]


def export_json(store: Store, out: Path) -> int:
    """Write the review history as JSON; returns the number of reviews."""
    rows = review_rows(store)
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
    """A consistent copy of the whole progress DB (SQLite's online backup)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".partial")
    tmp.unlink(missing_ok=True)
    target = sqlite3.connect(tmp)
    try:
        store.conn.backup(target)
    finally:
        target.close()
    os.replace(tmp, out)


def check_backup(path: Path) -> int:
    """Raise StoreError unless ``path`` is a healthy quizzer DB; returns its review count."""
    if not path.is_file():
        raise StoreError(f"{path}: no such file")
    if path.stat().st_size == 0:
        raise StoreError(f"{path} is empty, not a quizzer backup")
    _check_file(path, deep=True)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if not {"reviews", "cards", "_sqlite_migrations"} <= tables:
            raise StoreError(f"{path} is not a quizzer backup (tables: {sorted(tables)})")
        return int(conn.execute("SELECT count(*) FROM reviews").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} cannot be read: {exc}") from None
    finally:
        conn.close()


def restore(source: Path, db: Path) -> int:
    """Replace the progress DB at ``db`` with the backup ``source``, all or nothing."""
    count = check_backup(source)
    db.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=".restore-", suffix=".db", dir=db.parent)
    os.close(handle)
    staged = Path(name)
    try:
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        dst = sqlite3.connect(staged)
        try:
            src.backup(dst)
        finally:
            src.close()
            dst.close()
        Store(staged).close()  # migrate the staged copy to the current schema
        if db.exists():
            old = Store(db)
            old.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            old.close()
        for suffix in ("-wal", "-shm"):
            Path(str(db) + suffix).unlink(missing_ok=True)
        os.replace(staged, db)
    finally:
        staged.unlink(missing_ok=True)
        for suffix in ("-wal", "-shm"):
            Path(str(staged) + suffix).unlink(missing_ok=True)
    return count


def rebuild_cards(store: Store, question_ids: set[str]) -> None:
    """Recompute cards from their full review history (fuzz off, so it is deterministic)."""
    from datetime import datetime

    scheduler = make_scheduler(SchedulerSettings(fuzz=False))
    with store.write() as conn:
        for qid in question_ids:
            rows = conn.execute(
                "SELECT id, reviewed_at, rating, correct FROM reviews WHERE question_id = ? "
                "ORDER BY reviewed_at, id",
                [qid],
            ).fetchall()
            if not rows:
                continue
            first = datetime.fromisoformat(rows[0][1])
            card = new_card(first)
            reps = lapses = correct = graded = 0
            for review_id, reviewed_at, rating, was_correct in rows:
                moment = datetime.fromisoformat(reviewed_at)
                before = card
                card = review(scheduler, before, Grade(rating), moment)
                conn.execute(
                    "UPDATE reviews SET state_before = ?, card_before = ? WHERE id = ?",
                    [state_name(before), card_to_json(before), review_id],
                )
                reps += 1
                lapses += int(rating == 1 and state_name(before) == "review")
                correct += int(bool(was_correct))
                graded += int(was_correct is not None)
            conn.execute(
                "INSERT INTO cards (question_id, card_json, state, stability, difficulty, due, "
                "last_review, reps, lapses, correct, graded, suspended, created_at) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,0,?) ON CONFLICT(question_id) DO UPDATE SET "
                "card_json = excluded.card_json, state = excluded.state, "
                "stability = excluded.stability, difficulty = excluded.difficulty, "
                "due = excluded.due, last_review = excluded.last_review, reps = excluded.reps, "
                "lapses = excluded.lapses, correct = excluded.correct, graded = excluded.graded",
                [
                    qid,
                    card_to_json(card),
                    state_name(card),
                    card.stability,
                    card.difficulty,
                    card.due.isoformat(timespec="microseconds"),
                    card.last_review.isoformat(timespec="microseconds")
                    if card.last_review
                    else None,
                    reps,
                    lapses,
                    correct,
                    graded,
                    rows[0][1],
                ],
            )


def import_reviews(store: Store, source: Path) -> tuple[int, int]:
    """Merge reviews from an exported JSON file; returns (added, already present)."""
    try:
        data = json.loads(source.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StoreError(f"{source}: not a readable JSON file ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise StoreError(f"{source}: not a quizzer review export (format {EXPORT_FORMAT!r})")
    rows = data.get("reviews")
    if not isinstance(rows, list):
        raise StoreError(f"{source}: 'reviews' must be a list")
    from quizzer.clock import parse_utc

    clean = []
    for index, row in enumerate(rows):
        try:
            uid = str(row["uid"])
            qid = str(row["question_id"])
            when = parse_utc(str(row["reviewed_at"]))
            rating = int(row["rating"])
            if rating not in (1, 2, 3, 4):
                raise ValueError("rating must be 1-4")
        except (KeyError, TypeError, ValueError) as exc:
            raise StoreError(f"{source}: review #{index + 1} is malformed ({exc})") from None
        clean.append((uid, qid, when, rating, row))
    added = 0
    touched: set[str] = set()
    from quizzer.clock import iso

    with store.write() as conn:
        for uid, qid, when, rating, row in clean:
            cursor = conn.execute(
                "INSERT OR IGNORE INTO reviews (uid, question_id, reviewed_at, rating, answer, "
                "correct, duration_ms, seed, mode) VALUES (?,?,?,?,?,?,?,?,?)",
                [
                    uid,
                    qid,
                    iso(when),
                    rating,
                    row.get("answer"),
                    row.get("correct"),
                    row.get("duration_ms"),
                    row.get("seed"),
                    row.get("mode") or "import",
                ],
            )
            if cursor.rowcount:
                added += 1
                touched.add(qid)
        rebuild_cards(store, touched)
    return added, len(clean) - added
