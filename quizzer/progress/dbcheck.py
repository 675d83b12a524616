"""Is this file a progress database that quizzer itself could have written? (for `restore`)

A backup is a file from outside, so nothing in it is trusted: its schema must be exactly
the one some version of quizzer creates (same tables, columns, types, indexes and triggers;
no views, no extra triggers), its migration history must be one this program knows, and
every row must have the types and sizes quizzer writes. Only then is it copied in.
"""

from __future__ import annotations

import re
import sqlite3
from functools import cache
from pathlib import Path

from quizzer.progress import migrations
from quizzer.progress.dbopen import StoreError, check_version, explain, readonly_uri

MAX_TEXT = 64 * 1024
"""The longest text value a backup may hold (answers are typed lines; cards are ~300 bytes)."""

Schema = dict[str, tuple[object, ...]]


def _normal(sql: str | None) -> str:
    return re.sub(r"\s+", " ", sql or "").strip().lower()


def schema_of(conn: sqlite3.Connection) -> Schema:
    """Tables (columns, types, not-null, primary key), indexes and triggers, comparably."""
    shape: Schema = {}
    objects = conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
    ).fetchall()
    for kind, name, table, sql in objects:
        if kind == "table":
            columns = conn.execute(f"PRAGMA table_xinfo({_quote(name)})").fetchall()
            shape[f"table {name}"] = tuple(
                (col[1], (col[2] or "").upper(), col[3], col[5], col[6]) for col in columns
            )
        elif kind == "index":
            columns = conn.execute(f"PRAGMA index_info({_quote(name)})").fetchall()
            unique = conn.execute(
                f'SELECT "unique" FROM pragma_index_list({_quote(table)}) WHERE name = ?',
                [name],
            ).fetchone()
            shape[f"index {name}"] = (table, tuple(col[2] for col in columns), unique)
        else:
            shape[f"{kind} {name}"] = (table, _normal(sql))
    return shape


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@cache
def known_schemas() -> dict[tuple[str, ...], Schema]:
    """The schema after each prefix of the migration steps, built in memory."""
    from sqlite_utils import Database
    from sqlite_utils.migrations import Migrations

    found: dict[tuple[str, ...], Schema] = {}
    for upto in range(1, len(migrations.STEPS) + 1):
        conn = sqlite3.connect(":memory:", isolation_level=None)
        plan = Migrations(migrations.MIGRATION_SET)
        for name, func in migrations.STEPS[:upto]:
            plan(name=name)(func)
        plan.apply(Database(conn))
        found[tuple(name for name, _ in migrations.STEPS[:upto])] = schema_of(conn)
        conn.close()
    return found


# Each column's allowed SQLite storage classes and, for text, whether it must be JSON.
ROW_RULES: dict[str, dict[str, tuple[tuple[str, ...], bool]]] = {
    "cards": {
        "question_id": (("text",), False),
        "card_json": (("text",), True),
        "state": (("text",), False),
        "stability": (("real", "integer", "null"), False),
        "difficulty": (("real", "integer", "null"), False),
        "due": (("text",), False),
        "last_review": (("text", "null"), False),
        "reps": (("integer", "null"), False),
        "lapses": (("integer", "null"), False),
        "correct": (("integer", "null"), False),
        "graded": (("integer", "null"), False),
        "suspended": (("integer", "null"), False),
        "buried_until": (("text", "null"), False),
        "content_hash": (("text", "null"), False),
        "created_at": (("text", "null"), False),
    },
    "reviews": {
        "id": (("integer",), False),
        "question_id": (("text",), False),
        "reviewed_at": (("text",), False),
        "rating": (("integer",), False),
        "answer": (("text", "null"), False),
        "correct": (("integer", "null"), False),
        "duration_ms": (("integer", "null"), False),
        "seed": (("integer", "null"), False),
        "session_id": (("integer", "null"), False),
        "state_before": (("text", "null"), False),
        "card_before": (("text", "null"), True),
        "retrievability": (("real", "integer", "null"), False),
        "mode": (("text", "null"), False),
        "uid": (("text", "null"), False),
        "missed_points": (("text", "null"), True),
    },
    "sessions": {
        "id": (("integer",), False),
        "started_at": (("text", "null"), False),
        "ended_at": (("text", "null"), False),
        "mode": (("text", "null"), False),
        "filters": (("text", "null"), True),
        "company": (("text", "null"), False),
    },
    "settings": {"key": (("text",), False), "value": (("text",), True)},
    "review_days": {"day": (("text",), False), "reviews": (("integer",), False)},
}

STATES = ("new", "learning", "review", "relearning")
ISO_TIME = "[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:*"


def _row_problems(conn: sqlite3.Connection, tables: set[str]) -> list[str]:
    problems: list[str] = []

    def count(sql: str) -> int:
        return int(conn.execute(sql).fetchone()[0])

    for table, columns in ROW_RULES.items():
        if table not in tables:
            continue
        # An older schema lacks the newer columns (and SQLite would read a missing "column"
        # as a string literal).
        present = {row[1] for row in conn.execute(f"PRAGMA table_info({_quote(table)})")}
        for column, (types, is_json) in columns.items():
            if column not in present:
                continue
            allowed = ", ".join(f"'{t}'" for t in types)
            col = _quote(column)
            bad = count(f"SELECT count(*) FROM {table} WHERE typeof({col}) NOT IN ({allowed})")
            if bad:
                problems.append(f"{table}.{column}: {bad} value(s) of the wrong type")
                continue
            long = count(
                f"SELECT count(*) FROM {table} WHERE length(CAST({col} AS BLOB)) > {MAX_TEXT}"
            )
            if long:
                problems.append(f"{table}.{column}: {long} value(s) longer than {MAX_TEXT} bytes")
            if is_json:
                broken = count(
                    f"SELECT count(*) FROM {table} "
                    f"WHERE {col} IS NOT NULL AND NOT json_valid({col})"
                )
                if broken:
                    problems.append(f"{table}.{column}: {broken} value(s) that are not JSON")
    checks = {
        "reviews.rating outside 1-4": (
            "SELECT count(*) FROM reviews WHERE rating NOT BETWEEN 1 AND 4"
        ),
        "reviews.reviewed_at not an ISO time": (
            f"SELECT count(*) FROM reviews WHERE reviewed_at NOT GLOB '{ISO_TIME}'"
        ),
        "cards.due not an ISO time": f"SELECT count(*) FROM cards WHERE due NOT GLOB '{ISO_TIME}'",
        "cards.state unknown": (
            "SELECT count(*) FROM cards WHERE state NOT IN ("
            + ", ".join(f"'{s}'" for s in STATES)
            + ")"
        ),
        "negative counters in cards": (
            "SELECT count(*) FROM cards WHERE reps < 0 OR lapses < 0 OR correct < 0 OR graded < 0"
        ),
    }
    for label, sql in checks.items():
        bad = count(sql)
        if bad:
            problems.append(f"{label}: {bad} row(s)")
    if not problems:
        problems += _card_problems(conn)
    return problems


def _card_problems(conn: sqlite3.Connection) -> list[str]:
    """Every stored FSRS card must parse, as the scheduler will parse it."""
    from quizzer.progress.scheduling import card_from_json

    for question_id, card_json in conn.execute("SELECT question_id, card_json FROM cards"):
        try:
            card_from_json(card_json)
        except Exception as exc:  # any failure here is the file's fault, reported as such
            return [f"cards: the card of {question_id!r} cannot be read ({exc})"]
    return []


def _backup_problem(exc: sqlite3.Error, path: Path) -> StoreError:
    """A failure reading a backup, said as what it means for a restore."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name == "SQLITE_NOTADB" or "file is not a database" in str(exc):
        return StoreError(f"{path} is not a quizzer backup (not an SQLite file)")
    if name.startswith("SQLITE_CORRUPT") or "malformed" in str(exc):
        return StoreError(f"{path} is a damaged backup ({exc})")
    return StoreError(explain(exc, path, "read"))


def check_backup_file(path: Path) -> int:
    """Raise StoreError unless ``path`` is a healthy quizzer database of a known schema with
    well-formed rows; returns its number of reviews. Reads the file without locking it or
    creating anything beside it."""
    wal = Path(str(path) + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise StoreError(
            f"{path} has a -wal file beside it: it is in use, or was copied while in use. Use "
            "a file made by `quizzer backup`, or close the program that has it open."
        )
    try:
        conn = sqlite3.connect(readonly_uri(path), uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise _backup_problem(exc, path) from None
    try:
        try:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        except sqlite3.Error as exc:
            raise _backup_problem(exc, path) from None
        if "_sqlite_migrations" not in tables:
            raise StoreError(
                f"{path} is not a quizzer backup (tables: {', '.join(sorted(tables)) or 'none'})"
            )
        check = conn.execute("PRAGMA quick_check").fetchone()
        if check and check[0] != "ok":
            raise StoreError(f"{path} is damaged (integrity check: {check[0]})")
        applied = migrations.applied(conn)
        check_version(applied, migrations.names(), path)
        expected = known_schemas().get(tuple(applied))
        if expected is None:
            raise StoreError(f"{path} has no known quizzer schema (steps: {applied})")
        found = schema_of(conn)
        found.pop("table _sqlite_migrations", None)
        expected = dict(expected)
        expected.pop("table _sqlite_migrations", None)
        if found != expected:
            extra = sorted(set(found) - set(expected))
            missing = sorted(set(expected) - set(found))
            changed = sorted(k for k in set(found) & set(expected) if found[k] != expected[k])
            parts = [
                f"{label}: {', '.join(names)}"
                for label, names in (
                    ("not made by quizzer", extra),
                    ("missing", missing),
                    ("altered", changed),
                )
                if names
            ]
            raise StoreError(f"{path} is not a database quizzer wrote ({'; '.join(parts)}).")
        problems = _row_problems(conn, tables)
        if problems:
            raise StoreError(f"{path} has malformed rows ({'; '.join(problems[:4])}).")
        return int(conn.execute("SELECT count(*) FROM reviews").fetchone()[0])
    except sqlite3.Error as exc:
        raise _backup_problem(exc, path) from None
    finally:
        conn.close()
