"""Ordered, recorded schema steps for the progress database (sqlite-utils Migrations).

Never edit a step that has shipped: add a new one. tests/fixtures/ holds a database at every
older version, and a test migrates each of them to the current schema.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlite_utils import Database

MIGRATION_SET = "quizzer"
STEPS: list[tuple[str, Callable[[Database], None]]] = []
"""(name, function) in order. sqlite-utils (which pulls in numpy when installed) is imported
only when a step is actually pending, so opening an up-to-date DB stays fast."""


def step(name: str) -> Callable[[Callable[[Database], None]], Callable[[Database], None]]:
    """Register a migration step."""

    def register(func: Callable[[Database], None]) -> Callable[[Database], None]:
        STEPS.append((name, func))
        return func

    return register


@step("001_initial")
def initial(db: Database) -> None:
    """Cards, reviews, sessions and settings."""
    db.table("cards").create(
        {
            "question_id": str,
            "card_json": str,
            "state": str,
            "stability": float,
            "difficulty": float,
            "due": str,
            "last_review": str,
            "reps": int,
            "lapses": int,
            "correct": int,
            "graded": int,
            "suspended": int,
            "buried_until": str,
            "content_hash": str,
            "created_at": str,
        },
        pk="question_id",
        not_null={"question_id", "card_json", "due"},
        defaults={"reps": 0, "lapses": 0, "correct": 0, "graded": 0, "suspended": 0},
    )
    db.table("sessions").create(
        {
            "id": int,
            "started_at": str,
            "ended_at": str,
            "mode": str,
            "filters": str,
            "company": str,
        },
        pk="id",
    )
    db.table("reviews").create(
        {
            "id": int,
            "question_id": str,
            "reviewed_at": str,
            "rating": int,
            "answer": str,
            "correct": int,
            "duration_ms": int,
            "seed": int,
            "session_id": int,
            "state_before": str,
            "card_before": str,
            "retrievability": float,
            "mode": str,
        },
        pk="id",
        not_null={"question_id", "reviewed_at", "rating"},
    )
    db.table("reviews").create_index(["reviewed_at"])
    db.table("reviews").create_index(["question_id", "reviewed_at"])
    db.table("reviews").create_index(["session_id"])
    db.table("cards").create_index(["due"])
    db.table("settings").create({"key": str, "value": str}, pk="key")


@step("002_review_uid")
def review_uid(db: Database) -> None:
    """A globally unique id per review (uuid4 hex), so imports merge without duplicates."""
    db.table("reviews").add_column("uid", str)
    db.execute(
        "UPDATE reviews SET uid = question_id || '@' || reviewed_at || '#' || id WHERE uid IS NULL"
    )
    db.table("reviews").create_index(["uid"], unique=True)


@step("003_review_days")
def review_days(db: Database) -> None:
    """Reviews per local day, kept by triggers, plus a covering index for retention queries:
    streaks, heatmaps and retention stay instant with years of history."""
    db.execute("CREATE TABLE review_days (day TEXT PRIMARY KEY, reviews INTEGER NOT NULL)")
    db.execute(
        "INSERT INTO review_days (day, reviews) SELECT date(reviewed_at, 'localtime'), count(*) "
        "FROM reviews GROUP BY 1"
    )
    db.execute(
        "CREATE TRIGGER review_days_insert AFTER INSERT ON reviews BEGIN "
        "INSERT INTO review_days (day, reviews) VALUES (date(NEW.reviewed_at, 'localtime'), 1) "
        "ON CONFLICT(day) DO UPDATE SET reviews = reviews + 1; END"
    )
    db.execute(
        "CREATE TRIGGER review_days_delete AFTER DELETE ON reviews BEGIN "
        "UPDATE review_days SET reviews = reviews - 1 "
        "WHERE day = date(OLD.reviewed_at, 'localtime'); "
        "DELETE FROM review_days WHERE reviews <= 0; END"
    )
    db.execute(
        "CREATE INDEX idx_reviews_recent ON reviews "
        "(reviewed_at, state_before, rating, question_id)"
    )


@step("004_missed_points")
def missed_points(db: Database) -> None:
    """The key points a recall answer missed, as a JSON list of their English text; NULL when
    the user rated without the checklist (and for every review before this step)."""
    db.table("reviews").add_column("missed_points", str)


def applied(conn: sqlite3.Connection) -> list[str]:
    """Names of the steps already recorded in the DB (sqlite-utils' own table)."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sqlite_migrations'"
    ).fetchone()
    if not exists:
        return []
    rows = conn.execute(
        "SELECT name FROM _sqlite_migrations WHERE migration_set = ? ORDER BY rowid",
        [MIGRATION_SET],
    ).fetchall()
    return [row[0] for row in rows]


def names() -> list[str]:
    """Every step this program knows, in order."""
    return [name for name, _ in STEPS]


def pending(conn: sqlite3.Connection) -> list[str]:
    """Steps not yet applied."""
    done = set(applied(conn))
    return [name for name, _ in STEPS if name not in done]


def apply(conn: sqlite3.Connection) -> None:
    """Bring the DB to the current schema with sqlite-utils Migrations."""
    from sqlite_utils import Database
    from sqlite_utils.migrations import Migrations

    migrations = Migrations(MIGRATION_SET)
    for name, func in STEPS:
        migrations(name=name)(func)
    migrations.apply(Database(conn))
