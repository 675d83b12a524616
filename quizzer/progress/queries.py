"""The store's read-only queries, one method per question the other layers ask.

Store inherits them; nothing outside quizzer.progress runs SQL, so a query that study code
needs gets a method here (with a typed result), not a cursor.
"""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING, Any, cast

from quizzer.progress.records import (
    CardJson,
    CardRow,
    DueRow,
    HistoryRow,
    PassCount,
    PointCheck,
    RatedReview,
    RecentCounts,
    ReviewRow,
    SessionStart,
)

if TYPE_CHECKING:
    from quizzer.progress.goal import StudyGoal


def _row_to_card(row: dict[str, Any]) -> CardRow:
    return CardRow(
        question_id=row["question_id"],
        card_json=row["card_json"],
        state=row["state"],
        stability=row["stability"],
        due=row["due"],
        last_review=row["last_review"],
        reps=row["reps"] or 0,
        lapses=row["lapses"] or 0,
        correct=row["correct"] or 0,
        graded=row["graded"] or 0,
        suspended=bool(row["suspended"]),
        buried_until=row["buried_until"],
        content_hash=row["content_hash"],
    )


class StoreQueries:
    """Reading a progress database (mixed into Store, which opens the connection)."""

    conn: sqlite3.Connection

    # settings ---------------------------------------------------------------------------

    def setting(self, key: str, default: Any = None) -> Any:
        """A stored setting (JSON value) or ``default``."""
        row = self.conn.execute("SELECT value FROM settings WHERE key = ?", [key]).fetchone()
        return json.loads(row[0]) if row else default

    def study_goal(self) -> StudyGoal | None:
        """The study plan's goal (`quizzer plan`), or None when none is set. A saved goal that
        no longer reads (written by hand, or by a version with other fields) counts as none."""
        from pydantic import ValidationError

        from quizzer.progress.goal import GOAL_KEY, StudyGoal

        raw = self.setting(GOAL_KEY)
        if raw is None:
            return None
        try:
            return StudyGoal.model_validate(raw)
        except ValidationError:
            return None

    # cards ------------------------------------------------------------------------------

    def card(self, question_id: str) -> CardRow | None:
        """The card of one question, if it was ever reviewed."""
        cursor = self.conn.execute("SELECT * FROM cards WHERE question_id = ?", [question_id])
        row = cursor.fetchone()
        if row is None:
            return None
        names = [d[0] for d in cursor.description]
        return _row_to_card(dict(zip(names, row, strict=True)))

    def cards(self) -> dict[str, CardRow]:
        """Every card's columns (not its JSON), keyed by question id; fast for big stores."""
        cursor = self.conn.execute(
            "SELECT question_id, state, stability, due, last_review, reps, lapses, correct, "
            "graded, suspended, buried_until, content_hash FROM cards"
        )
        return {
            row[0]: CardRow(
                row[0],
                None,
                row[1],
                row[2],
                row[3],
                row[4],
                row[5] or 0,
                row[6] or 0,
                row[7] or 0,
                row[8] or 0,
                bool(row[9]),
                row[10],
                row[11],
            )
            for row in cursor.fetchall()
        }

    def studied_cards(self) -> list[CardJson]:
        """Every reviewed card that is not suspended, with its full FSRS state (JSON)."""
        rows = self.conn.execute(
            "SELECT question_id, card_json FROM cards WHERE last_review IS NOT NULL "
            "AND suspended = 0 ORDER BY question_id"
        ).fetchall()
        return [CardJson(*row) for row in rows]

    def due_rows(self, now_iso: str) -> list[DueRow]:
        """Reviewed cards due at ``now_iso``, neither suspended nor buried (one indexed
        query; no card is deserialized)."""
        rows = self.conn.execute(
            "SELECT question_id, stability, last_review FROM cards WHERE last_review IS NOT NULL "
            "AND due <= ? AND suspended = 0 AND (buried_until IS NULL OR buried_until <= ?)",
            [now_iso, now_iso],
        ).fetchall()
        return [DueRow(*row) for row in rows]

    def taken_ids(self, now_iso: str) -> set[str]:
        """Ids that are not new for the queue at ``now_iso``: reviewed, suspended, or buried."""
        # One joined string instead of thousands of rows: the set of seen ids is built fast.
        joined = self.conn.execute(
            "SELECT group_concat(question_id, char(10)) FROM cards "
            "WHERE last_review IS NOT NULL OR suspended = 1 OR buried_until > ?",
            [now_iso],
        ).fetchone()[0]
        return set(joined.split("\n")) if joined else set()

    # reviews ----------------------------------------------------------------------------

    def review_count(self) -> int:
        """All reviews ever."""
        return int(self.conn.execute("SELECT count(*) FROM reviews").fetchone()[0])

    def reviews(self, where: str = "1", params: list[Any] | None = None) -> list[ReviewRow]:
        """Review rows, oldest first."""
        cursor = self.conn.execute(
            f"SELECT * FROM reviews WHERE {where} ORDER BY reviewed_at, id", params or []
        )
        names = [d[0] for d in cursor.description]
        return [cast(ReviewRow, dict(zip(names, row, strict=True))) for row in cursor.fetchall()]

    def question_history(self, question_id: str) -> list[HistoryRow]:
        """Every review of one question, oldest first, as needed to replay its card."""
        rows = self.conn.execute(
            "SELECT id, reviewed_at, rating, correct FROM reviews WHERE question_id = ? "
            "ORDER BY reviewed_at, id",
            [question_id],
        ).fetchall()
        return [HistoryRow(*row) for row in rows]

    def rated_history(self) -> list[RatedReview]:
        """Every rating ever given, grouped by question and oldest first within each: the
        review history FSRS is fitted to."""
        rows = self.conn.execute(
            "SELECT question_id, reviewed_at, rating FROM reviews "
            "ORDER BY question_id, reviewed_at, id"
        ).fetchall()
        return [RatedReview(*row) for row in rows]

    def rating_counts(self) -> dict[str, dict[int, int]]:
        """How often each rating was given, by the card's state before the review (new,
        learning, review, relearning): how this user tends to answer."""
        counts: dict[str, dict[int, int]] = {}
        for state, rating, count in self.conn.execute(
            "SELECT state_before, rating, count(*) FROM reviews "
            "WHERE state_before IS NOT NULL GROUP BY state_before, rating"
        ):
            counts.setdefault(state, {})[int(rating)] = int(count)
        return counts

    def new_questions_since(self, since_iso: str) -> int:
        """Questions seen for the first time (reviewed while new) since ``since_iso``."""
        row = self.conn.execute(
            "SELECT count(DISTINCT question_id) FROM reviews WHERE state_before = 'new' "
            "AND reviewed_at >= ?",
            [since_iso],
        ).fetchone()
        return int(row[0])

    def new_ids_since(self, since_iso: str) -> set[str]:
        """The questions seen for the first time since ``since_iso``."""
        return {
            row[0]
            for row in self.conn.execute(
                "SELECT DISTINCT question_id FROM reviews WHERE state_before = 'new' "
                "AND reviewed_at >= ?",
                [since_iso],
            )
        }

    def recent_durations_ms(self, limit: int) -> list[int]:
        """How long the last ``limit`` timed reviews took, in milliseconds, newest first
        (reviews imported without a time are left out)."""
        return [
            int(row[0])
            for row in self.conn.execute(
                "SELECT duration_ms FROM reviews WHERE duration_ms IS NOT NULL "
                "ORDER BY reviewed_at DESC, id DESC LIMIT ?",
                [limit],
            )
        ]

    def mature_pass_count(self, since_iso: str, until_iso: str | None = None) -> PassCount:
        """Reviews of cards in the review state between ``since_iso`` and ``until_iso``
        (open-ended when None), and how many were not Again: true retention's counts."""
        sql = (
            "SELECT count(*), sum(rating > 1) FROM reviews WHERE state_before = 'review' "
            "AND reviewed_at >= ?"
        )
        params = [since_iso]
        if until_iso is not None:
            sql += " AND reviewed_at < ?"
            params.append(until_iso)
        total, passed = self.conn.execute(sql, params).fetchone()
        return PassCount(int(total), int(passed or 0))

    def recent_counts(self, since_iso: str) -> dict[str, RecentCounts]:
        """Per question: reviews since ``since_iso`` and how many were Again."""
        return {
            qid: RecentCounts(n, fails or 0)
            for qid, n, fails in self.conn.execute(
                # INDEXED BY: the covering index reads only the recent range; left alone the
                # planner prefers a full (question_id, …) index scan to avoid a sort.
                "SELECT question_id, count(*), sum(rating = 1) FROM reviews "
                "INDEXED BY idx_reviews_recent WHERE reviewed_at >= ? GROUP BY question_id",
                [since_iso],
            )
        }

    def point_checks(self, since_iso: str) -> list[PointCheck]:
        """Reviews since ``since_iso`` rated with the key-point checklist, oldest first, with
        the points each missed. A value that is not a JSON list of strings (a hand-edited DB)
        counts as no check rather than failing the caller."""
        checks = []
        for question_id, reviewed_at, missed in self.conn.execute(
            "SELECT question_id, reviewed_at, missed_points FROM reviews "
            "WHERE reviewed_at >= ? AND missed_points IS NOT NULL ORDER BY reviewed_at, id",
            [since_iso],
        ):
            try:
                points = json.loads(missed)
            except (TypeError, ValueError):
                continue
            if isinstance(points, list) and all(isinstance(p, str) for p in points):
                checks.append(PointCheck(question_id, reviewed_at, points))
        return checks

    # per-day counts ---------------------------------------------------------------------

    def review_counts_by_day(self, since_day: str) -> dict[str, int]:
        """Reviews per local day (YYYY-MM-DD) from ``since_day`` on; days without any are
        left out. Kept by triggers, so it is instant."""
        rows = self.conn.execute(
            "SELECT day, reviews FROM review_days WHERE day >= ?", [since_day]
        ).fetchall()
        return {day: count for day, count in rows}

    def active_days(self, since_day: str) -> set[str]:
        """Local days (YYYY-MM-DD) from ``since_day`` on with at least one review."""
        return {
            row[0]
            for row in self.conn.execute(
                "SELECT day FROM review_days WHERE reviews > 0 AND day >= ?", [since_day]
            )
        }

    def reviews_on_day(self, day: str) -> int:
        """Reviews on one local day (YYYY-MM-DD)."""
        return int(
            self.conn.execute(
                "SELECT coalesce(sum(reviews), 0) FROM review_days WHERE day = ?", [day]
            ).fetchone()[0]
        )

    # sessions ---------------------------------------------------------------------------

    def session_pass_count(self, session_id: int) -> PassCount:
        """A session's reviews, and how many were not Again."""
        row = self.conn.execute(
            "SELECT count(*), sum(rating > 1) FROM reviews WHERE session_id = ?", [session_id]
        ).fetchone()
        return PassCount(int(row[0]), int(row[1] or 0))

    def previous_mock(self, company: str, before_session: int) -> SessionStart | None:
        """The last mock interview for ``company`` started before session ``before_session``."""
        row = self.conn.execute(
            "SELECT id, started_at FROM sessions WHERE mode = 'mock' AND company = ? AND id < ? "
            "ORDER BY id DESC LIMIT 1",
            [company, before_session],
        ).fetchone()
        return None if row is None else SessionStart(*row)
