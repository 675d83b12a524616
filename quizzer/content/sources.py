"""Reading the bank's files safely: which files make a bank (the catalogs, and the question
files at questions/<module>/<topic>.yaml), and their bytes, read only from plain files of a
bounded size, never through a symbolic link, a FIFO or a device."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from quizzer.content.diagnostics import Collector

CATALOGS = (
    "articles.yaml",
    "companies.yaml",
    "interviews.yaml",
    "readings.yaml",
    "topics.yaml",
    "tracks.yaml",
)
QUESTIONS_DIR = "questions"
MODULE_FOLDERS = ("prerequisites", "cuda", "distributed", "inference")
LAYOUT = f"questions/<module>/<topic>.yaml (module: {', '.join(MODULE_FOLDERS)})"
"""Where question files live; the wheel's package-data glob ``questions/*/*.yaml`` ships them."""
MAX_FILE_BYTES = 2 * 2**20
"""The largest bank file read (the biggest shipped question file is about 160 KB)."""
MAX_FOLDER_DEPTH = 8
"""How deep under questions/ misplaced files are still looked for (and reported)."""
SYMLINK_REFUSED = "is a symbolic link; the bank reads no links (put the file itself here)"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def question_files(root: Path, errors: Collector | None = None) -> list[Path]:
    """Every question file under the bank, in a stable order: exactly
    ``questions/<folder>/<name>.yaml``, the layout the wheel's package-data globs ship.

    YAML files anywhere else under questions/ (directly in it, in deeper folders, named .yml)
    and symbolic links are not read; each is reported to ``errors``. Links are never followed,
    so the walk cannot loop or leave the bank. Hidden entries (``.name``) are skipped, as the
    package-data globs skip them."""
    collect = errors if errors is not None else Collector()
    base = root / QUESTIONS_DIR
    try:
        info = os.lstat(base)
    except FileNotFoundError:
        return []
    except OSError as exc:
        collect.add_file(base, f"cannot read: {exc.strerror}")
        return []
    if stat.S_ISLNK(info.st_mode):
        collect.add_file(base, SYMLINK_REFUSED)
        return []
    if not stat.S_ISDIR(info.st_mode):
        collect.add_file(base, "is not a folder")
        return []
    found: list[Path] = []
    pending = [(base, 0)]
    while pending:
        folder, depth = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as exc:
            collect.add_file(folder, f"cannot read: {exc.strerror}")
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            if entry.is_symlink():
                collect.add_file(path, SYMLINK_REFUSED)
            elif entry.is_dir(follow_symlinks=False):
                if depth + 1 < MAX_FOLDER_DEPTH:
                    pending.append((path, depth + 1))
                else:
                    collect.add_file(
                        path, f"folders nest too deep; question files live at {LAYOUT}"
                    )
            elif path.suffix.lower() in (".yaml", ".yml"):
                if path.suffix != ".yaml":
                    collect.add_file(
                        path, f"not read: a question file ends in .yaml; they live at {LAYOUT}"
                    )
                elif depth != 1:
                    collect.add_file(path, f"not read: question files live at {LAYOUT}")
                else:
                    found.append(path)
    return sorted(found)


class SourceProblem(Exception):
    """A bank file cannot be read safely; the message says why."""


def _check_kind(info: os.stat_result, limit: int, private: bool) -> None:
    mode = info.st_mode
    if stat.S_ISLNK(mode):
        raise SourceProblem(SYMLINK_REFUSED)
    if stat.S_ISDIR(mode):
        raise SourceProblem("is a folder, not a file")
    if not stat.S_ISREG(mode):
        kind = (
            "a named pipe (FIFO)"
            if stat.S_ISFIFO(mode)
            else "a socket"
            if stat.S_ISSOCK(mode)
            else "a device"
        )
        raise SourceProblem(f"is {kind}, not a regular file; the bank reads only plain files")
    if info.st_size > limit:
        raise SourceProblem(
            f"is {info.st_size / 2**20:.1f} MB; a bank file may be at most "
            f"{limit / 2**20:g} MB (split it)"
        )
    if private and hasattr(os, "getuid") and (info.st_uid != os.getuid() or mode & 0o022):
        raise SourceProblem("is not owned by you alone")


def read_bank_file(path: Path, limit: int = MAX_FILE_BYTES, *, private: bool = False) -> bytes:
    """The bytes of ``path``, read only if it is a regular file (never through a symbolic
    link, never a FIFO or device) of at most ``limit`` bytes; otherwise SourceProblem. With
    ``private``, the file must also belong to the current user and be writable by no one else.
    Bounded in time and memory whatever the path is."""
    try:
        _check_kind(os.lstat(path), limit, private)
        # O_NOFOLLOW and O_NONBLOCK: if the path was swapped for a link or a FIFO since lstat,
        # opening fails or returns at once, and fstat below refuses it.
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise SourceProblem("file not found") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SourceProblem(SYMLINK_REFUSED) from None
        raise SourceProblem(f"cannot read: {exc.strerror}") from None
    try:
        _check_kind(os.fstat(fd), limit, private)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise SourceProblem(f"cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise SourceProblem(f"is larger than {limit / 2**20:g} MB (split it)")
    return b"".join(chunks)


def read_sources(root: Path, files: list[Path], errors: Collector) -> dict[Path, bytes]:
    """The bytes of every catalog and question file that can be read safely; the others are
    reported to ``errors``."""
    sources: dict[Path, bytes] = {}
    for path in [root / name for name in CATALOGS] + files:
        if path.parent == root and not os.path.lexists(path):
            errors.add(path, 1, 1, f"missing catalog {path.name}")
            continue
        try:
            sources[path] = read_bank_file(path)
        except SourceProblem as exc:
            errors.add_file(path, str(exc))
    return sources
