"""Accuracy: one definition for `quizzer stats`, `quizzer weak`, the dashboard and the stats
screen.

accuracy = the share of a question's (or a group's) reviews in the last RECENT_DAYS days that
were not rated Again. Every kind counts: a choice or numeric answer is rated Again when it was
wrong or blank, a recall answer when you rated it so. A group with no review in that window
has no accuracy (shown as —).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from quizzer.base.clock import iso

RECENT_DAYS = 60
"""The window accuracy looks at, in days."""


def recent_since(now: datetime) -> str:
    """The start of the accuracy window, as the store's ISO timestamp."""
    return iso(now - timedelta(days=RECENT_DAYS))


def accuracy(reviews: int, fails: int) -> float | None:
    """Share of ``reviews`` not rated Again; None without reviews."""
    return (reviews - fails) / reviews if reviews else None


def smoothed_accuracy(reviews: int, fails: int) -> float:
    """Accuracy with one pass and one fail added, so a single review cannot make a topic look
    perfect or hopeless; the weakness score ranks with it (0.5 with no review)."""
    return (reviews - fails + 1) / (reviews + 2)
