"""Writing a file the user named (export, backup): never over the live DB, never over what
is not a regular file, never over an existing file without --force, never half-written."""

from __future__ import annotations

import os
import sqlite3
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from quizzer.progress.dbopen import StoreError

LIVE_SUFFIXES = ("", "-wal", "-shm", "-journal")


def check_output(out: Path, *, force: bool, live_db: Path | None = None) -> None:
    """Raise StoreError (with the reason) unless quizzer may write ``out``."""
    if live_db is not None:
        live = {os.path.abspath(str(live_db) + suffix) for suffix in LIVE_SUFFIXES}
        live |= {os.path.realpath(str(live_db) + suffix) for suffix in LIVE_SUFFIXES}
        if (
            os.path.abspath(out) in live
            or os.path.realpath(out) in live
            or _same_file(out, live_db)
        ):
            raise StoreError(
                f"{out} is your live progress database (or one of its -wal/-shm files); "
                "quizzer never writes over it. Choose another file."
            )
    try:
        info = out.lstat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise StoreError(f"cannot write {out}: {exc.strerror or exc}") from None
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            raise StoreError(f"{out} is a symbolic link; give the path of a regular file instead.")
        if not stat.S_ISREG(info.st_mode):
            raise StoreError(
                f"{out} exists and is not a regular file; quizzer will not write to it."
            )
        if not force:
            raise StoreError(f"{out} already exists; add --force to replace it.")
    parent = out.parent
    if not parent.is_dir():
        raise StoreError(f"cannot write {out}: the folder {parent} does not exist.")


def _same_file(out: Path, live_db: Path) -> bool:
    try:
        return out.exists() and live_db.exists() and os.path.samefile(out, live_db)
    except OSError:
        return False


@contextmanager
def staged_output(out: Path) -> Iterator[Path]:
    """A temporary file beside ``out`` to write into; renamed onto ``out`` only when the
    block finishes, removed if it fails, so ``out`` is never left half-written."""
    try:
        handle, name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent)
    except OSError as exc:
        raise StoreError(f"cannot write {out}: {exc.strerror or exc}") from None
    os.close(handle)
    tmp = Path(name)
    try:
        yield tmp
        os.replace(tmp, out)
    except (OSError, sqlite3.Error) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise StoreError(f"could not write {out}: {reason}. Nothing was written.") from None
    finally:
        tmp.unlink(missing_ok=True)
