"""The progress store: FSRS cards, every review, sessions and settings, in SQLite.

A user's review history cannot be recreated, so: every review is committed in its own
``BEGIN IMMEDIATE`` transaction the moment it is rated; WAL and a busy timeout let two
instances run side by side; a file that is not ours, or is damaged, is refused with a clear
message and never written to.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quizzer.base.clock import iso
from quizzer.progress.dbopen import BUSY_TIMEOUT_MS, StoreError
from quizzer.progress.records import LEECH_LAPSES, CardRow
from quizzer.progress.writes import CardWrites

__all__ = [
    "BUSY_TIMEOUT_MS",
    "LEECH_LAPSES",
    "CardRow",
    "Store",
    "StoreError",
    "open_store",
]

if TYPE_CHECKING:
    from quizzer.progress.goal import StudyGoal


class Store(CardWrites):
    """Access to one progress database: opening it and its transactions (StoreConnection),
    the read queries (StoreQueries), review and card writes (CardWrites), and here the
    settings and the study sessions."""

    # settings ---------------------------------------------------------------------------

    def set_setting(self, key: str, value: Any) -> None:
        """Store a setting."""
        with self.write() as conn:
            conn.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, json.dumps(value)],
            )

    def set_study_goal(self, goal: StudyGoal | None) -> None:
        """Save the study plan's goal, replacing any other; None removes it."""
        from quizzer.progress.goal import GOAL_KEY

        if goal is not None:
            self.set_setting(GOAL_KEY, goal.to_json())
            return
        with self.write() as conn:
            conn.execute("DELETE FROM settings WHERE key = ?", [GOAL_KEY])

    # sessions ---------------------------------------------------------------------------

    def start_session(
        self, mode: str, filters: dict[str, Any], now: datetime, company: str | None = None
    ) -> int:
        """Record a new study session; returns its id."""
        with self.write() as conn:
            cursor = conn.execute(
                "INSERT INTO sessions (started_at, mode, filters, company) VALUES (?,?,?,?)",
                [iso(now), mode, json.dumps(filters, default=str), company],
            )
            return int(cursor.lastrowid or 0)

    def end_session(self, session_id: int, now: datetime) -> None:
        """Mark a session finished."""
        with self.write() as conn:
            conn.execute("UPDATE sessions SET ended_at = ? WHERE id = ?", [iso(now), session_id])


def open_store(path: Path | None = None, *, create: bool = True) -> Store:
    """Open the progress DB at ``path`` or paths.db_path(), creating it if needed unless
    ``create`` is False (then a missing DB reads as an empty one and nothing is created)."""
    from quizzer.base.paths import db_path

    return Store(path or db_path(), create=create)
