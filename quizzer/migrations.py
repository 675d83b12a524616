"""Ordered, recorded schema steps for the progress database (sqlite-utils Migrations).

Never edit a step that has shipped: add a new one. tests/fixtures/ holds a database at every
older version, and a test migrates each of them to the current schema.
"""

from __future__ import annotations

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

MIGRATION_SET = "quizzer"
migrations = Migrations(MIGRATION_SET)


@migrations(name="001_initial")
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


@migrations(name="002_review_uid")
def review_uid(db: Database) -> None:
    """A globally unique id per review (uuid4 hex), so imports merge without duplicates."""
    db.table("reviews").add_column("uid", str)
    db.execute(
        "UPDATE reviews SET uid = question_id || '@' || reviewed_at || '#' || id WHERE uid IS NULL"
    )
    db.table("reviews").create_index(["uid"], unique=True)


def apply(db: Database) -> None:
    """Bring ``db`` to the current schema."""
    migrations.apply(db)


def latest() -> str:
    """Name of the newest migration."""
    return migrations._migrations[-1].name
