"""Copying whole databases at the file level, for restore: SQLite's backup API and one
exclusive transaction, never a byte copy of a live file (see dbopen)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from quizzer.progress.dbopen import StoreError, explain, readonly_uri


def copy_file(source: Path, target: Path) -> None:
    """Copy the database ``source`` (opened read-only) into the file ``target``."""
    src = sqlite3.connect(readonly_uri(source), uri=True)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def copy_tables(staged: Path, db: Path, tables: tuple[str, ...]) -> None:
    """Replace the rows of ``tables`` in ``db`` with those of ``staged``, in that order, in one
    exclusive transaction; refused while another connection has ``db`` open."""
    conn = sqlite3.connect(str(db), timeout=0, isolation_level=None)
    try:
        conn.execute("ATTACH DATABASE ? AS incoming", [str(staged)])
        try:
            conn.execute("PRAGMA main.locking_mode = EXCLUSIVE")
            conn.execute("BEGIN EXCLUSIVE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise StoreError(
                    f"{db} is in use by another quizzer (the app, a drill or a mock). Nothing "
                    "was changed; close it and run restore again."
                ) from None
            raise StoreError(explain(exc, db, "restore into")) from None
        try:
            for table in tables:
                conn.execute(f"DELETE FROM main.{table}")
                conn.execute(f"INSERT INTO main.{table} SELECT * FROM incoming.{table}")
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            conn.execute("ROLLBACK")
            raise StoreError(explain(exc, db, "restore into")) from None
    finally:
        conn.close()
