"""The progress store: FSRS cards, every review, sessions and settings, in SQLite.

A user's review history cannot be recreated, so: every review is committed in its own
``BEGIN IMMEDIATE`` transaction the moment it is rated; WAL and a busy timeout let two
instances run side by side; a file that is not ours, or is damaged, is refused with a clear
message and never written to.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quizzer.base.clock import iso
from quizzer.progress import migrations
from quizzer.progress.dbopen import (
    BUSY_TIMEOUT_MS,
    StoreError,
    explain,
    open_checked,
)
from quizzer.progress.queries import StoreQueries
from quizzer.progress.records import (
    LEECH_LAPSES,
    CardCounts,
    CardRow,
    ImportedReview,
    is_lapse,
)

__all__ = [
    "BUSY_TIMEOUT_MS",
    "LEECH_LAPSES",
    "CardRow",
    "Store",
    "StoreError",
    "open_store",
]

if TYPE_CHECKING:
    from fsrs import Card

    from quizzer.progress.goal import StudyGoal

# fsrs (and quizzer.progress.scheduling) are imported where cards are read or written, not
# here: the app opens the store before its first frame and should not pay for them then.


class Store(StoreQueries):
    """Access to one progress database."""

    def __init__(self, path: Path | str, *, memory: bool = False, create: bool = True) -> None:
        """Open the DB at ``path``. With ``create=False`` (read-only commands) a missing file
        is not created: the store is an empty one in memory, and nothing is written to disk."""
        self.path = Path(path) if not memory else Path(":memory:")
        conn = None if memory else open_checked(self.path, create)
        self.exists = conn is not None
        """Whether a database file backs this store (False for memory and missing files)."""
        if conn is None:
            conn = sqlite3.connect(":memory:", isolation_level=None)
        self.conn = conn
        try:
            if migrations.pending(conn):
                with self.write():
                    migrations.apply(conn)
        except sqlite3.Error as exc:
            conn.close()
            raise StoreError(explain(exc, self.path, "upgrade")) from None

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken with BEGIN IMMEDIATE so two writers queue, not fail."""
        if self.conn.in_transaction:
            yield self.conn
            return
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreError(explain(exc, self.path, "save to")) from None
        try:
            yield self.conn
        except sqlite3.Error as exc:
            self._rollback()
            raise StoreError(explain(exc, self.path, "save to")) from None
        except BaseException:
            self._rollback()
            raise
        try:
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            raise StoreError(explain(exc, self.path, "save to")) from None

    def _rollback(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

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

    # cards ------------------------------------------------------------------------------

    def record_review(
        self,
        *,
        question_id: str,
        before: Card,
        after: Card,
        rating: int,
        reviewed_at: datetime,
        answer: str | None,
        correct: bool | None,
        duration_ms: int | None,
        seed: int | None,
        session_id: int | None,
        retrievability: float | None,
        content_hash: str | None,
        mode: str = "drill",
        missed_points: list[str] | None = None,
    ) -> int:
        """Save one rated review and the card's new state, atomically. Returns the review id.
        ``missed_points``: the key points a self-graded recall answer missed (``[]`` when it got
        them all; None when the checklist was not used)."""
        from quizzer.progress.scheduling import card_to_json, state_name

        uid = uuid.uuid4().hex
        with self.write() as conn:
            cursor = conn.execute(
                "INSERT INTO reviews (question_id, reviewed_at, rating, answer, correct, "
                "duration_ms, seed, session_id, state_before, card_before, retrievability, "
                "mode, uid, missed_points) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [
                    question_id,
                    iso(reviewed_at),
                    rating,
                    answer,
                    None if correct is None else int(correct),
                    duration_ms,
                    seed,
                    session_id,
                    state_name(before),
                    card_to_json(before),
                    retrievability,
                    mode,
                    uid,
                    _points_json(missed_points),
                ],
            )
            review_id = int(cursor.lastrowid or 0)
            counts = CardCounts(
                reps=1,
                lapses=int(is_lapse(rating, state_name(before))),
                correct=int(bool(correct)),
                graded=int(correct is not None),
            )
            self._upsert_card(
                question_id,
                after,
                counts,
                created_at=iso(reviewed_at),
                content_hash=content_hash,
                add=True,
            )
        return review_id

    def undo_review(self, review_id: int) -> str | None:
        """Remove one review and put its card back as it was. Returns the question id."""
        from quizzer.progress.scheduling import card_from_json, card_to_json, state_name

        with self.write() as conn:
            row = conn.execute(
                "SELECT question_id, card_before, rating, correct, state_before FROM reviews "
                "WHERE id = ?",
                [review_id],
            ).fetchone()
            if row is None:
                return None
            question_id, card_before, rating, correct, state_before = row
            conn.execute("DELETE FROM reviews WHERE id = ?", [review_id])
            if state_before == "new":
                conn.execute("DELETE FROM cards WHERE question_id = ?", [question_id])
                return str(question_id)
            before = card_from_json(card_before)
            lapse = int(is_lapse(rating, state_before))
            conn.execute(
                "UPDATE cards SET card_json = ?, state = ?, stability = ?, difficulty = ?, "
                "due = ?, last_review = ?, reps = reps - 1, lapses = lapses - ?, "
                "correct = correct - ?, graded = graded - ? WHERE question_id = ?",
                [
                    card_to_json(before),
                    state_name(before),
                    before.stability,
                    before.difficulty,
                    iso(before.due),
                    iso(before.last_review) if before.last_review else None,
                    lapse,
                    int(bool(correct)),
                    int(correct is not None),
                    question_id,
                ],
            )
            return str(question_id)

    def _upsert_card(
        self,
        question_id: str,
        card: Card,
        counts: CardCounts,
        *,
        created_at: str,
        content_hash: str | None = None,
        add: bool,
    ) -> None:
        """The one card upsert: write ``card`` and its counters. With ``add`` (one new review)
        the counters are added to the stored ones and the content hash is replaced; without it
        (a card rebuilt from its whole history) they replace them and the hash is kept."""
        from quizzer.progress.scheduling import card_to_json, state_name

        counters = CardCounts._fields
        if add:
            updates = [f"{c} = cards.{c} + excluded.{c}" for c in counters]
            updates.append("content_hash = excluded.content_hash")
        else:
            updates = [f"{c} = excluded.{c}" for c in counters]
        self.conn.execute(
            "INSERT INTO cards (question_id, card_json, state, stability, difficulty, due, "
            "last_review, reps, lapses, correct, graded, suspended, content_hash, created_at) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,0,?,?) ON CONFLICT(question_id) DO UPDATE SET "
            "card_json = excluded.card_json, state = excluded.state, "
            "stability = excluded.stability, difficulty = excluded.difficulty, "
            "due = excluded.due, last_review = excluded.last_review, " + ", ".join(updates),
            [
                question_id,
                card_to_json(card),
                state_name(card),
                card.stability,
                card.difficulty,
                iso(card.due),
                iso(card.last_review) if card.last_review else None,
                *counts,
                content_hash,
                created_at,
            ],
        )

    def rebuild_cards(self, question_ids: set[str]) -> None:
        """Recompute cards from their full review history (fuzz off, so it is deterministic),
        and each review's state and card before it."""
        from quizzer.progress.scheduling import (
            Grade,
            SchedulerSettings,
            card_to_json,
            make_scheduler,
            new_card,
            review,
            state_name,
        )
        from quizzer.progress.settings import stored_parameters

        weights = stored_parameters(self)  # the user's FSRS parameters, fitted or default
        scheduler = make_scheduler(SchedulerSettings(fuzz=False, parameters=weights))
        with self.write() as conn:
            for qid in question_ids:
                rows = self.question_history(qid)
                if not rows:
                    continue
                card = new_card(datetime.fromisoformat(rows[0].reviewed_at))
                reps = lapses = correct = graded = 0
                for row in rows:
                    before = card
                    moment = datetime.fromisoformat(row.reviewed_at)
                    card = review(scheduler, before, Grade(row.rating), moment)
                    conn.execute(
                        "UPDATE reviews SET state_before = ?, card_before = ? WHERE id = ?",
                        [state_name(before), card_to_json(before), row.review_id],
                    )
                    reps += 1
                    lapses += int(is_lapse(row.rating, state_name(before)))
                    correct += int(bool(row.correct))
                    graded += int(row.correct is not None)
                counts = CardCounts(reps, lapses, correct, graded)
                self._upsert_card(qid, card, counts, created_at=rows[0].reviewed_at, add=False)

    def set_memory_states(self, states: dict[str, tuple[float, float]]) -> int:
        """Give cards a new stability and difficulty (question id -> (stability, difficulty)),
        keeping their due dates, state and counters: what changing the FSRS parameters does to
        cards already studied, as in Anki. Returns how many cards changed."""
        from quizzer.progress.scheduling import card_from_json, card_to_json

        changed = 0
        with self.write() as conn:
            for qid, (stability, difficulty) in states.items():
                row = conn.execute(
                    "SELECT card_json FROM cards WHERE question_id = ?", [qid]
                ).fetchone()
                if row is None:
                    continue
                card = card_from_json(row[0])
                card.stability, card.difficulty = stability, difficulty
                conn.execute(
                    "UPDATE cards SET card_json = ?, stability = ?, difficulty = ? "
                    "WHERE question_id = ?",
                    [card_to_json(card), stability, difficulty, qid],
                )
                changed += 1
        return changed

    def add_imported_review(self, review: ImportedReview) -> bool:
        """Insert a review from an export unless its uid is already here; True when added."""
        with self.write() as conn:
            cursor = conn.execute(
                "INSERT OR IGNORE INTO reviews (uid, question_id, reviewed_at, rating, answer, "
                "correct, duration_ms, seed, mode, missed_points) VALUES (?,?,?,?,?,?,?,?,?,?)",
                [
                    review["uid"],
                    review["question_id"],
                    review["reviewed_at"],
                    review["rating"],
                    review["answer"],
                    review["correct"],
                    review["duration_ms"],
                    review["seed"],
                    review["mode"],
                    _points_json(review["missed_points"]),
                ],
            )
            return bool(cursor.rowcount)

    def copy_to(self, target: Path) -> None:
        """Write a consistent copy of the whole DB to ``target`` (SQLite's online backup), as
        one self-contained file: no -wal is needed beside it to read it."""
        conn = sqlite3.connect(target)
        try:
            self.conn.backup(conn)
            conn.execute("PRAGMA journal_mode = DELETE")
        finally:
            conn.close()

    def set_suspended(self, question_id: str, suspended: bool, now: datetime) -> None:
        """Suspend or unsuspend a question (a card is created if it has none)."""
        self._ensure_card(question_id, now)
        with self.write() as conn:
            conn.execute(
                "UPDATE cards SET suspended = ? WHERE question_id = ?",
                [int(suspended), question_id],
            )

    def bury(self, question_id: str, until: datetime, now: datetime) -> None:
        """Hide a question until ``until`` (the start of tomorrow)."""
        self._ensure_card(question_id, now)
        with self.write() as conn:
            conn.execute(
                "UPDATE cards SET buried_until = ? WHERE question_id = ?",
                [iso(until), question_id],
            )

    def _ensure_card(self, question_id: str, now: datetime) -> None:
        from quizzer.progress.scheduling import card_to_json, new_card

        card = new_card(now)
        with self.write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO cards (question_id, card_json, state, due, created_at) "
                "VALUES (?, ?, 'new', ?, ?)",
                [question_id, card_to_json(card), iso(card.due), iso(now)],
            )

    def adopt_renames(self, previous: dict[str, str]) -> int:
        """Move history from old ids to their new ids (from `previous_ids`). Returns moves."""
        moved = 0
        for old, new in previous.items():
            if (
                self.conn.execute(
                    "SELECT 1 FROM reviews WHERE question_id = ? LIMIT 1", [old]
                ).fetchone()
                is None
                and self.card(old) is None
            ):
                continue
            with self.write() as conn:
                conn.execute("UPDATE reviews SET question_id = ? WHERE question_id = ?", [new, old])
                if self.card(new) is None:
                    conn.execute(
                        "UPDATE cards SET question_id = ? WHERE question_id = ?", [new, old]
                    )
                else:
                    conn.execute("DELETE FROM cards WHERE question_id = ?", [old])
            moved += 1
        return moved

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


def _points_json(points: list[str] | None) -> str | None:
    """Missed key points as stored: a JSON list, or NULL when the checklist was not used."""
    return None if points is None else json.dumps(points, ensure_ascii=False)


def open_store(path: Path | None = None, *, create: bool = True) -> Store:
    """Open the progress DB at ``path`` or paths.db_path(), creating it if needed unless
    ``create`` is False (then a missing DB reads as an empty one and nothing is created)."""
    from quizzer.base.paths import db_path

    return Store(path or db_path(), create=create)
