"""The store's writes to reviews and cards: recording and undoing a review, rebuilding cards
from their history, importing reviews, suspending, burying and renaming.

Every change is one ``write()`` transaction, so a review is saved the moment it is rated.
Store mixes this in; nothing outside quizzer.progress runs SQL.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any

from quizzer.base.clock import iso
from quizzer.progress.connection import StoreConnection
from quizzer.progress.queries import StoreQueries
from quizzer.progress.records import CardCounts, ImportedReview

if TYPE_CHECKING:
    from fsrs import Card

# fsrs (and quizzer.progress.scheduling) are imported where cards are read or written, not
# here: the app opens the store before its first frame and should not pay for them then.


class CardWrites(StoreConnection, StoreQueries):
    """Changing reviews and cards (mixed into Store)."""

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

        with self.write() as conn:
            cursor = _insert_review(
                conn,
                {
                    "question_id": question_id,
                    "reviewed_at": iso(reviewed_at),
                    "rating": rating,
                    "answer": answer,
                    "correct": None if correct is None else int(correct),
                    "duration_ms": duration_ms,
                    "seed": seed,
                    "session_id": session_id,
                    "state_before": state_name(before),
                    "card_before": card_to_json(before),
                    "retrievability": retrievability,
                    "mode": mode,
                    "uid": uuid.uuid4().hex,
                    "missed_points": _points_json(missed_points),
                },
            )
            counts = CardCounts.of_review(rating, state_name(before), correct)
            self._upsert_card(
                question_id,
                after,
                counts,
                created_at=iso(reviewed_at),
                content_hash=content_hash,
                add=True,
            )
        return int(cursor.lastrowid or 0)

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
            undone = CardCounts.of_review(rating, state_before, correct)
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
                    undone.lapses,
                    undone.correct,
                    undone.graded,
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
                added: list[CardCounts] = []
                for row in rows:
                    before = card
                    moment = datetime.fromisoformat(row.reviewed_at)
                    card = review(scheduler, before, Grade(row.rating), moment)
                    conn.execute(
                        "UPDATE reviews SET state_before = ?, card_before = ? WHERE id = ?",
                        [state_name(before), card_to_json(before), row.review_id],
                    )
                    added.append(CardCounts.of_review(row.rating, state_name(before), row.correct))
                counts = CardCounts(*(sum(column) for column in zip(*added, strict=True)))
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
            cursor = _insert_review(
                conn,
                {
                    "uid": review["uid"],
                    "question_id": review["question_id"],
                    "reviewed_at": review["reviewed_at"],
                    "rating": review["rating"],
                    "answer": review["answer"],
                    "correct": review["correct"],
                    "duration_ms": review["duration_ms"],
                    "seed": review["seed"],
                    "mode": review["mode"],
                    "missed_points": _points_json(review["missed_points"]),
                },
                keep_existing=True,
            )
            return bool(cursor.rowcount)

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


def _insert_review(
    conn: sqlite3.Connection, columns: dict[str, Any], *, keep_existing: bool = False
) -> sqlite3.Cursor:
    """Insert one row into reviews (column -> value). With ``keep_existing`` a row whose uid
    is already there is left alone (INSERT OR IGNORE)."""
    verb = "INSERT OR IGNORE" if keep_existing else "INSERT"
    names = ", ".join(columns)
    marks = ",".join("?" * len(columns))
    return conn.execute(f"{verb} INTO reviews ({names}) VALUES ({marks})", list(columns.values()))


def _points_json(points: list[str] | None) -> str | None:
    """Missed key points as stored: a JSON list, or NULL when the checklist was not used."""
    return None if points is None else json.dumps(points, ensure_ascii=False)
