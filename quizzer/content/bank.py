"""The question bank: ``load_bank`` reads, validates and caches it, and returns a Bank.

The work is split by responsibility; this module ties it together, and the names callers use
stay importable from here:

- diagnostics.py: Diagnostic, BankError and the helpers that report a problem at path:line:col
- sources.py: which files make a bank, read safely (no links, FIFOs, devices or huge files)
- parse.py: YAML with positions, schema errors and placeholder text as diagnostics
- catalog_loader.py, tracks.py: the catalogs; refs.py: a question's cross-references
- loader.py: the question files, parsed into a Bank (bank_model.py)
- cache.py: a clean load kept as JSON, keyed by the content of every file
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from quizzer.content.bank_model import Bank, SourceLoc
from quizzer.content.cache import (
    CACHE_FORMAT,
    MAX_CACHE_BYTES,
    bank_fingerprint,
    read_cache,
    recall_parsed,
    write_cache,
)
from quizzer.content.cache import cache_file as _cache_file
from quizzer.content.diagnostics import BankError, Collector, Diagnostic, display_path, suggest
from quizzer.content.loader import load_uncached as _load_uncached
from quizzer.content.parse import PLACEHOLDER
from quizzer.content.sources import (
    CATALOGS,
    LAYOUT,
    MAX_FILE_BYTES,
    MAX_FOLDER_DEPTH,
    MODULE_FOLDERS,
    QUESTIONS_DIR,
    SYMLINK_REFUSED,
    SourceProblem,
    question_files,
    read_bank_file,
    read_sources,
)

__all__ = [
    "CACHE_FORMAT",
    "CATALOGS",
    "LAYOUT",
    "MAX_CACHE_BYTES",
    "MAX_FILE_BYTES",
    "MAX_FOLDER_DEPTH",
    "MODULE_FOLDERS",
    "PLACEHOLDER",
    "QUESTIONS_DIR",
    "SYMLINK_REFUSED",
    "Bank",
    "BankError",
    "Diagnostic",
    "SourceLoc",
    "SourceProblem",
    "_cache_file",
    "_load_uncached",
    "display_path",
    "load_bank",
    "question_files",
    "read_bank_file",
    "suggest",
]


def load_bank(
    root: Path | None = None,
    *,
    use_cache: bool = True,
    progress: Callable[[int, int], None] | None = None,
    allow_placeholders: bool = False,
) -> Bank:
    """Load the bank at ``root`` (default: paths.bank_dir()). Raises BankError listing every
    problem. A clean load is cached, keyed by the content of every file, so any edit is seen;
    it is also kept in memory for the rest of the process (see cache.py).

    ``allow_placeholders`` lets questions with stub text (TODO, ...) load, for `quizzer new`
    to add another stub beside them; such a load is never cached."""
    root = _bank_root(root)
    errors = Collector()
    files = question_files(root, errors)
    sources = read_sources(root, files, errors)
    fingerprint = bank_fingerprint(root, sources) if use_cache and not errors.items else ""
    use_memory = bool(fingerprint) and os.environ.get("QUIZZER_NO_CACHE") is None
    if use_memory:
        cached = read_cache(root, fingerprint)
        if cached is not None:
            return cached
    # A bank this process parsed from the same files is not parsed again; the cache file is
    # still written (it may have been removed or damaged since).
    bank = recall_parsed(root, fingerprint) if use_memory else None
    unfinished = False
    if bank is None:
        bank, unfinished = _load_uncached(
            root, files, sources, errors, progress, allow_placeholders
        )
    if fingerprint and not unfinished:
        write_cache(root, fingerprint, bank)
    return bank


def _bank_root(given: Path | None) -> Path:
    """The bank folder, resolved; BankError when there is none."""
    from quizzer.base.paths import bank_dir

    given = given or bank_dir()
    try:
        root = given.resolve()
        found = root.is_dir()
    except (OSError, RuntimeError):
        root, found = given, False
    if not found:
        raise BankError([Diagnostic(str(given), 0, 0, "question bank directory not found")])
    return root
