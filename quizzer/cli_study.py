"""Study commands: drill, stats, solve, check (registered on the main group)."""

from __future__ import annotations

from typing import Any

import click


def card_json(question_id: str) -> dict[str, Any] | None:
    """The FSRS card of a question as JSON, or None when it was never reviewed."""
    return None


def register(group: click.Group) -> None:
    """Add the study commands to ``group``."""
