"""Problems in the bank's files, each pointing at a path, line and column, and the helpers
every bank reader uses to report them (display paths, did-you-mean suggestions)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from quizzer.content.yamlsrc import Located, Path_


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One problem in the bank, pointing at a file, line and column."""

    path: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        if self.line == 0:  # about the whole file
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}:{self.col}: {self.message}"


class BankError(Exception):
    """The bank has problems; ``diagnostics`` lists every one."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__(f"{len(diagnostics)} problem(s) in the question bank")
        self.diagnostics = diagnostics


def display_path(path: Path) -> str:
    """A path as shown in messages: relative to the working directory when inside it. The last
    part is not resolved, so a symbolic link (even one in a loop) is named as itself."""
    try:
        return str((path.parent.resolve() / path.name).relative_to(Path.cwd().resolve()))
    except (ValueError, OSError, RuntimeError):
        return str(path)


def suggest(word: str, choices: Iterable[str]) -> str:
    """' (did you mean 'x'?)' for the closest choice, or ''."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


class Collector:
    """Gathers diagnostics while the bank loads."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []

    def add(self, path: Path, line: int, col: int, message: str) -> None:
        """A problem at ``line`` and ``col`` of ``path``."""
        self.items.append(Diagnostic(display_path(path), line, col, message))

    def add_file(self, path: Path, message: str) -> None:
        """A problem with a whole file (shown as ``path: message``)."""
        self.items.append(Diagnostic(display_path(path), 0, 0, message))


@dataclass(frozen=True)
class Reporter:
    """Reports problems inside one item of a located YAML file (a question, a catalog row),
    each at the line and column of the part it is about."""

    errors: Collector
    path: Path
    doc: Located
    base: Path_ = ()
    """Where the item is in the document."""

    def where(self, at: Path_ = (), *, key: bool = False) -> tuple[int, int]:
        """Line and column of ``at`` inside the item (of its key, with ``key``)."""
        return self.doc.where(self.base + at, key=key)

    def __call__(self, at: Path_, message: str, *, key: bool = False) -> None:
        line, col = self.where(at, key=key)
        self.errors.add(self.path, line, col, message)
