"""Where things live. Functions, not constants, so tests can redirect them by environment."""

from __future__ import annotations

import os
from pathlib import Path


def bank_dir() -> Path:
    """The question bank: ``QUIZZER_BANK`` if set, else the bank shipped with the package."""
    override = os.environ.get("QUIZZER_BANK")
    if override:
        return Path(override).expanduser()
    import question_bank

    return Path(question_bank.__file__).resolve().parent


def is_installed_copy(path: Path) -> bool:
    """Whether ``path`` lies inside an installed package tree (site-packages or, on Debian,
    dist-packages): files there belong to the installer, not to the user."""
    parts = {part.lower() for part in Path(os.path.abspath(path)).parts}
    return bool(parts & {"site-packages", "dist-packages"})


def db_path() -> Path:
    """The progress database: ``QUIZZER_DB`` if set, else quizzer.db in the user data dir."""
    override = os.environ.get("QUIZZER_DB")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("quizzer", appauthor=False)) / "quizzer.db"


def cache_dir() -> Path:
    """Parse cache for the bank: ``QUIZZER_CACHE`` if set, else the user cache dir."""
    override = os.environ.get("QUIZZER_CACHE")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("quizzer", appauthor=False))


def exercises_dir() -> Path:
    """Where code exercise attempts are kept: ``QUIZZER_EXERCISES`` if set, else an
    ``exercises`` folder next to the progress database (``<data dir>/exercises``)."""
    override = os.environ.get("QUIZZER_EXERCISES")
    if override:
        return Path(override).expanduser()
    return db_path().parent / "exercises"
