"""The store's connection: opening a progress database (checked, migrated), the one write
transaction every change goes through, closing it, and copying it whole.

Store builds on it; nothing outside quizzer.progress runs SQL.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from quizzer.progress import migrations
from quizzer.progress.dbopen import StoreError, explain, open_checked


class StoreConnection:
    """One open progress database and its write transactions."""

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

    def copy_to(self, target: Path) -> None:
        """Write a consistent copy of the whole DB to ``target`` (SQLite's online backup), as
        one self-contained file: no -wal is needed beside it to read it."""
        conn = sqlite3.connect(target)
        try:
            self.conn.backup(conn)
            conn.execute("PRAGMA journal_mode = DELETE")
        finally:
            conn.close()
