"""Code exercise attempts on disk: the file the user writes, kept between sessions.

An attempt lives at ``<folder>/<question id>.py``; the folder is ``paths.exercises_dir()``
(``<data dir>/exercises``, next to the progress database) or the ``--dir`` of `quizzer exercise`.
Opening an exercise restores that file when it is there and writes the starter otherwise, so
leaving and coming back keeps the code. Once the review is rated the file moves to
``<folder>/past/<id>-<time>.py``: the next review starts from a fresh starter, and the old attempt
is still there to compare with.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

MAX_ATTEMPT_BYTES = 256 * 2**10
"""The largest attempt file read back (the checker refuses larger files too)."""
PAST = "past"
"""The subfolder rated attempts are moved to."""


class AttemptError(Exception):
    """An attempt file cannot be read or written; the message names the file and the reason."""


@dataclass(frozen=True)
class Opened:
    """An attempt file ready to edit."""

    path: Path
    """The file the user writes."""
    restored: bool
    """True when it holds code from an earlier, unrated attempt (not the bare starter)."""


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


class Attempts:
    """The attempt files in one folder."""

    def __init__(self, folder: Path | None = None) -> None:
        if folder is None:
            from quizzer.base.paths import exercises_dir

            folder = exercises_dir()
        self.folder = Path(folder)
        """Where the attempt files are."""

    def path(self, question_id: str) -> Path:
        """The attempt file of a question (it may not exist yet)."""
        return self.folder / f"{question_id}.py"

    def _regular(self, path: Path) -> bool:
        """Whether ``path`` exists; AttemptError if it is anything but a regular file."""
        try:
            info = path.lstat()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise AttemptError(f"cannot read {path}: {_why(exc)}") from None
        if not stat.S_ISREG(info.st_mode):
            raise AttemptError(
                f"{path} is not a regular file (a link or a folder); move it away to start afresh"
            )
        return True

    def read(self, question_id: str) -> str | None:
        """The attempt's text, or None when there is none."""
        path = self.path(question_id)
        if not self._regular(path):
            return None
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_ATTEMPT_BYTES + 1)
        except OSError as exc:
            raise AttemptError(f"cannot read {path}: {_why(exc)}") from None
        if len(data) > MAX_ATTEMPT_BYTES:
            raise AttemptError(f"{path} is over {MAX_ATTEMPT_BYTES // 1024} KB")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise AttemptError(f"{path} is not UTF-8 text") from None

    def open(self, question_id: str, starter: str) -> Opened:
        """The attempt file, restored if it is there, else written from ``starter``."""
        text = self.read(question_id)
        if text is not None:
            return Opened(self.path(question_id), restored=text != starter)
        return Opened(self.save(question_id, starter), restored=False)

    def save(self, question_id: str, text: str) -> Path:
        """Write the attempt (a temporary file renamed over it, so it is never half-written)."""
        path = self.path(question_id)
        if path.is_symlink():
            raise AttemptError(f"{path} is a symbolic link; quizzer will not write through it")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{question_id}.", suffix=".tmp", dir=self.folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                    handle.write(text)
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError as exc:
            raise AttemptError(f"cannot write {path}: {_why(exc)}") from None
        return path

    def set_aside(self, question_id: str, when: datetime) -> Path | None:
        """Move a rated attempt to ``past/<id>-<time>.py`` (None when there is no attempt)."""
        path = self.path(question_id)
        if not self._regular(path):
            return None
        folder = self.folder / PAST
        stamp = when.strftime("%Y%m%dT%H%M%SZ")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / f"{question_id}-{stamp}.py"
            n = 2
            while target.exists():
                target = folder / f"{question_id}-{stamp}-{n}.py"
                n += 1
            os.replace(path, target)
        except OSError as exc:
            raise AttemptError(f"cannot move {path} to {folder}: {_why(exc)}") from None
        return target

    def restore(self, question_id: str, kept: Path) -> bool:
        """Put an attempt moved aside by ``set_aside`` back (after an undo), unless a newer one
        is there. Returns whether it was put back; a file that cannot be moved stays put."""
        path = self.path(question_id)
        if path.exists() or path.is_symlink():
            return False
        try:
            os.replace(kept, path)
        except OSError:
            return False
        return True

    def past(self, question_id: str) -> list[Path]:
        """Earlier, rated attempts of a question, oldest first."""
        folder = self.folder / PAST
        if not folder.is_dir():
            return []
        return sorted(folder.glob(f"{question_id}-*.py"))
