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
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quizzer.base.clock import iso
from quizzer.progress import migrations
from quizzer.progress.dbopen import (
    BUSY_TIMEOUT_MS,
    StoreError,
    check_ours,
    check_version,
    connect,
    explain,
    folder_read_only,
    is_damage,
    prepare_path,
    readonly_uri,
)

__all__ = ["BUSY_TIMEOUT_MS", "CardRow", "Store", "StoreError", "open_store"]

if TYPE_CHECKING:
    from fsrs import Card

# fsrs (and quizzer.progress.scheduling) are imported where cards are read or written, not here: the
# app opens the store before its first frame and should not pay for them then.

LEECH_LAPSES = 8
"""A question forgotten this many times is a leech, as in Anki."""


@dataclass
class CardRow:
    """One question's scheduling state and counters.

    The FSRS card is parsed from JSON only when asked for: queues and stats read the plain
    columns, which keeps them fast with thousands of cards."""

    question_id: str
    card_json: str | None
    """The full FSRS card as JSON; None in bulk listings (use Store.card for one card)."""
    state: str
    stability: float | None
    due: str
    """ISO time in UTC (clock.iso), so string comparison is time comparison."""
    last_review: str | None
    reps: int
    lapses: int
    correct: int
    graded: int
    suspended: bool
    buried_until: str | None
    content_hash: str | None

    @property
    def card(self) -> Card:
        """The fsrs Card (parsed on first use)."""
        cached = self.__dict__.get("_card")
        if cached is None:
            if self.card_json is None:
                raise ValueError("bulk card rows carry no FSRS card; use Store.card(id)")
            from quizzer.progress.scheduling import card_from_json

            cached = card_from_json(self.card_json)
            self.__dict__["_card"] = cached
        return cached

    @property
    def reviewed(self) -> bool:
        """Whether the question was ever rated."""
        return self.last_review is not None

    @property
    def leech(self) -> bool:
        """Lapsed often enough to be flagged."""
        return self.lapses >= LEECH_LAPSES


def _open(path: Path, create: bool) -> sqlite3.Connection | None:
    """The live connection to the DB at ``path``, checked: ours, healthy enough to read, and of
    a schema this program knows. None when the file does not exist and ``create`` is False."""
    exists = prepare_path(path, create)
    if not exists and not create:
        return None
    read_only = folder_read_only(path)
    # In a read-only folder SQLite cannot make the -shm file a WAL database needs; nobody can
    # be writing there either, so a read-only command reads the file as it stands.
    frozen = read_only and not create
    try:
        if frozen:
            conn = sqlite3.connect(readonly_uri(path), uri=True, isolation_level=None)
        else:
            conn = connect(path)
    except sqlite3.Error as exc:
        raise StoreError(explain(exc, path)) from None
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        check_ours(tables, path)
        check_version(migrations.applied(conn), migrations.names(), path)
        if not frozen:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.Error as exc:
        conn.close()
        if read_only and not is_damage(exc):
            raise StoreError(
                f"could not open {path} for writing: its folder {path.parent} is read-only "
                f"({exc}). Nothing was changed; point --db / QUIZZER_DB at a writable place."
            ) from None
        raise StoreError(explain(exc, path)) from None
    except StoreError:
        conn.close()
        raise
    return conn


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


def _iso(moment: datetime) -> str:
    return iso(moment)


class Store:
    """Access to one progress database."""

    def __init__(self, path: Path | str, *, memory: bool = False, create: bool = True) -> None:
        """Open the DB at ``path``. With ``create=False`` (read-only commands) a missing file
        is not created: the store is an empty one in memory, and nothing is written to disk."""
        self.path = Path(path) if not memory else Path(":memory:")
        conn = None if memory else _open(self.path, create)
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

    def setting(self, key: str, default: Any = None) -> Any:
        """A stored setting (JSON value) or ``default``."""
        row = self.conn.execute("SELECT value FROM settings WHERE key = ?", [key]).fetchone()
        return json.loads(row[0]) if row else default

    def set_setting(self, key: str, value: Any) -> None:
        """Store a setting."""
        with self.write() as conn:
            conn.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, json.dumps(value)],
            )

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
    ) -> int:
        """Save one rated review and the card's new state, atomically. Returns the review id."""
        from quizzer.progress.scheduling import card_to_json, state_name

        lapse = 1 if (rating == 1 and state_name(before) in ("review",)) else 0
        uid = uuid.uuid4().hex
        with self.write() as conn:
            cursor = conn.execute(
                "INSERT INTO reviews (question_id, reviewed_at, rating, answer, correct, "
                "duration_ms, seed, session_id, state_before, card_before, retrievability, "
                "mode, uid) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [
                    question_id,
                    _iso(reviewed_at),
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
                ],
            )
            review_id = int(cursor.lastrowid or 0)
            conn.execute(
                "INSERT INTO cards (question_id, card_json, state, stability, difficulty, due, "
                "last_review, reps, lapses, correct, graded, suspended, content_hash, "
                "created_at) VALUES (?,?,?,?,?,?,?,1,?,?,?,0,?,?) "
                "ON CONFLICT(question_id) DO UPDATE SET card_json = excluded.card_json, "
                "state = excluded.state, stability = excluded.stability, "
                "difficulty = excluded.difficulty, due = excluded.due, "
                "last_review = excluded.last_review, reps = cards.reps + 1, "
                "lapses = cards.lapses + excluded.lapses, "
                "correct = cards.correct + excluded.correct, "
                "graded = cards.graded + excluded.graded, "
                "content_hash = excluded.content_hash",
                [
                    question_id,
                    card_to_json(after),
                    state_name(after),
                    after.stability,
                    after.difficulty,
                    _iso(after.due),
                    _iso(after.last_review) if after.last_review else None,
                    lapse,
                    int(bool(correct)),
                    int(correct is not None),
                    content_hash,
                    _iso(reviewed_at),
                ],
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
            lapse = 1 if (rating == 1 and state_before == "review") else 0
            conn.execute(
                "UPDATE cards SET card_json = ?, state = ?, stability = ?, difficulty = ?, "
                "due = ?, last_review = ?, reps = reps - 1, lapses = lapses - ?, "
                "correct = correct - ?, graded = graded - ? WHERE question_id = ?",
                [
                    card_to_json(before),
                    state_name(before),
                    before.stability,
                    before.difficulty,
                    _iso(before.due),
                    _iso(before.last_review) if before.last_review else None,
                    lapse,
                    int(bool(correct)),
                    int(correct is not None),
                    question_id,
                ],
            )
            return str(question_id)

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
                [_iso(until), question_id],
            )

    def _ensure_card(self, question_id: str, now: datetime) -> None:
        from quizzer.progress.scheduling import card_to_json, new_card

        card = new_card(now)
        with self.write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO cards (question_id, card_json, state, due, created_at) "
                "VALUES (?, ?, 'new', ?, ?)",
                [question_id, card_to_json(card), _iso(card.due), _iso(now)],
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
                [_iso(now), mode, json.dumps(filters, default=str), company],
            )
            return int(cursor.lastrowid or 0)

    def end_session(self, session_id: int, now: datetime) -> None:
        """Mark a session finished."""
        with self.write() as conn:
            conn.execute("UPDATE sessions SET ended_at = ? WHERE id = ?", [_iso(now), session_id])

    # reading reviews --------------------------------------------------------------------

    def review_count(self) -> int:
        """All reviews ever."""
        return int(self.conn.execute("SELECT count(*) FROM reviews").fetchone()[0])

    def reviews(self, where: str = "1", params: list[Any] | None = None) -> list[dict[str, Any]]:
        """Review rows as dicts, oldest first."""
        cursor = self.conn.execute(
            f"SELECT * FROM reviews WHERE {where} ORDER BY reviewed_at, id", params or []
        )
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def open_store(path: Path | None = None, *, create: bool = True) -> Store:
    """Open the progress DB at ``path`` or paths.db_path(), creating it if needed unless
    ``create`` is False (then a missing DB reads as an empty one and nothing is created)."""
    from quizzer.base.paths import db_path

    return Store(path or db_path(), create=create)
