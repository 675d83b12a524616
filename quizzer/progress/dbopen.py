"""Opening the progress database safely, and saying exactly what is wrong when it cannot be.

One rule above all: the live database file is only ever touched through SQLite. SQLite guards
a database with POSIX advisory locks, and POSIX drops *every* lock a process holds on a file
the moment *any* descriptor of that file is closed in that process. A plain ``open()`` and
``close()`` of the DB (say, to peek at its header) silently strips the locks of the process's
own live connection; another quizzer then believes it is alone, checkpoints and deletes the
``-wal`` file that still holds this process's freshly saved reviews. So the header, the
schema and the version are all read through the SQLite connection itself.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

from quizzer.progress import migrations

BUSY_TIMEOUT_MS = 15000


class StoreError(Exception):
    """The progress database cannot be used; the message says why and what to do."""


def is_damage(exc: BaseException) -> bool:
    """Whether SQLite found the file itself bad (not SQLite, or corrupt)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    return (
        name == "SQLITE_NOTADB"
        or name.startswith("SQLITE_CORRUPT")
        or "file is not a database" in text
        or "malformed" in text
    )


def explain(exc: BaseException, path: Path, doing: str = "open") -> str:
    """One accurate sentence for a failure of SQLite (or the OS) on ``path``.

    Each condition gets its own message: a full disk is not damage, a read-only folder is not
    a full disk, a file of another program is not a damaged quizzer database."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    code = getattr(exc, "errno", None)
    text = str(exc)
    if name == "SQLITE_NOTADB" or "file is not a database" in text:
        return (
            f"{path} is not a quizzer database (not an SQLite file). It was left untouched; "
            "point --db / QUIZZER_DB at another file, or move this one away."
        )
    if name.startswith("SQLITE_CORRUPT") or "malformed" in text:
        return (
            f"{path} is damaged ({text}). It was left untouched; restore a backup with "
            "`quizzer restore FILE` (the damaged file is moved aside, never deleted)."
        )
    if name.startswith("SQLITE_FULL") or code == errno.ENOSPC or "disk is full" in text:
        return (
            f"could not {doing} {path}: the disk is full ({text}). Nothing was recorded from "
            "this step; free some space and try again."
        )
    if (
        name.startswith("SQLITE_READONLY")
        or code in (errno.EROFS, errno.EACCES, errno.EPERM)
        or "readonly" in text
    ):
        return (
            f"could not {doing} {path}: the file or its folder is read-only ({text}). Nothing "
            "was changed; make it writable, or point --db / QUIZZER_DB at a writable place."
        )
    if name.startswith("SQLITE_BUSY") or name.startswith("SQLITE_LOCKED"):
        return (
            f"could not {doing} {path}: another quizzer has held it busy for "
            f"{BUSY_TIMEOUT_MS // 1000} s ({text}). Nothing was changed; try again."
        )
    if name.startswith("SQLITE_CANTOPEN"):
        return (
            f"could not {doing} {path}: SQLite cannot open it or create its -wal/-shm files "
            f"beside it ({text}). Check that the folder exists and is writable."
        )
    if name.startswith("SQLITE_IOERR"):
        return f"could not {doing} {path}: an input/output error ({text}). Nothing was changed."
    return f"could not {doing} {path}: {text}"


def prepare_path(path: Path, create: bool) -> bool:
    """Check the DB path before SQLite opens it. Returns whether the file exists.

    Refuses what is not a regular file, an empty file (a new DB is only ever created where
    nothing was), and a folder that cannot hold the file; creates missing folders only when
    ``create`` (read-only commands never create anything)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        info = None
    except NotADirectoryError:
        raise StoreError(
            f"cannot use {path}: a part of its folder path is a file, not a folder."
        ) from None
    except OSError as exc:
        raise StoreError(explain(exc, path)) from None
    if info is not None:
        import stat

        if not stat.S_ISREG(info.st_mode):
            raise StoreError(
                f"{path} is not a regular file. It was left untouched; point --db / "
                "QUIZZER_DB at a database file."
            )
        if info.st_size == 0:
            raise StoreError(
                f"{path} is an empty file, not a quizzer database. It was left untouched; "
                "delete it to start afresh there, or point --db / QUIZZER_DB elsewhere."
            )
        return True
    if not create:
        return False
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise StoreError(
            f"cannot create {path}: a part of its folder path is a file, not a folder."
        ) from None
    except OSError as exc:
        raise StoreError(explain(exc, path, "create")) from None
    if not parent.is_dir():
        raise StoreError(f"cannot create {path}: {parent} is not a folder.")
    return False


def readonly_uri(path: Path) -> str:
    """An SQLite URI that reads ``path`` without locking it or creating -wal/-shm files beside
    it: for files nobody may be writing (a backup, a DB on a read-only filesystem)."""
    from urllib.parse import quote

    return f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1"


def folder_read_only(path: Path) -> bool:
    """Whether the DB's folder cannot be written (a read-only mount, or no permission)."""
    import os

    folder = path.parent
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return True
    except OSError:
        return False
    return not os.access(folder, os.W_OK)


def connect(path: Path) -> sqlite3.Connection:
    """A connection with quizzer's settings (autocommit; transactions are explicit)."""
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def check_ours(tables: set[str], path: Path) -> None:
    """Refuse an SQLite database that another program made."""
    if tables and "_sqlite_migrations" not in tables:
        raise StoreError(
            f"{path} is an SQLite database of another program (tables: "
            f"{', '.join(sorted(tables)[:5])}). It was left untouched."
        )


def check_version(applied: list[str], known: list[str], path: Path) -> None:
    """Refuse a DB whose schema history this program does not know (a newer quizzer's)."""
    unknown = [name for name in applied if name not in known]
    if unknown or applied != known[: len(applied)]:
        detail = ", ".join(unknown) if unknown else "steps out of order"
        raise StoreError(
            f"{path} was written by a newer or different quizzer (schema steps unknown here: "
            f"{detail}). It was left untouched; upgrade quizzer to use it."
        )


def in_use(path: Path) -> bool:
    """Whether another connection (this process's or another's) has the DB open.

    In WAL mode every open connection holds a shared lock on the database file, so an
    exclusive lock can be had only when nobody else has it open. Detected through SQLite's
    own locking, not a PID file."""
    conn = sqlite3.connect(str(path), timeout=0, isolation_level=None)
    try:
        conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            return True
        raise
    finally:
        conn.close()


def create_new(path: Path) -> None:
    """Create a new, fully migrated DB at ``path`` atomically: it is built beside ``path`` and
    linked into place only if nothing is there yet. Two quizzers starting at once on a new
    path then never see a half-made file (and an empty file at ``path`` can be refused as
    not ours: quizzer never leaves one)."""
    import contextlib
    import os

    temp = path.with_name(f".{path.name}.new-{os.getpid()}")
    try:
        conn = sqlite3.connect(str(temp), isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            migrations.apply(conn)
        finally:
            conn.close()
        with contextlib.suppress(FileExistsError):  # another quizzer created it first
            os.link(temp, path)
    except (sqlite3.Error, OSError) as exc:
        raise StoreError(explain(exc, path, "create")) from None
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(str(temp) + suffix).unlink(missing_ok=True)


def open_checked(path: Path, create: bool) -> sqlite3.Connection | None:
    """The live connection to the DB at ``path``, checked: ours, healthy enough to read, and of
    a schema this program knows. None when the file does not exist and ``create`` is False."""
    exists = prepare_path(path, create)
    if not exists and not create:
        return None
    if not exists:
        create_new(path)
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
