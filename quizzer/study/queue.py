"""What a session asks, by how it was started: everything due (``due_queue``: due reviews
first, then new questions up to the daily limit), one topic, company or article chosen by the
user (``group_queue``), or a selection the user made in the browser (``selection_queue``).
The front ends call these instead of cutting and widening queues themselves."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quizzer.study.session import Filters, due_queue

if TYPE_CHECKING:
    from datetime import datetime

    from quizzer.content.bank import Bank
    from quizzer.content.models import AnyQuestion
    from quizzer.progress.store import Store

__all__ = [
    "GROUPS",
    "GROUP_SESSION_SIZE",
    "due_queue",
    "group_filters",
    "group_queue",
    "selection_queue",
]

GROUP_SESSION_SIZE = 20
"""A session on one topic, company or article, or on the browser's selection, asks at most
this many questions."""

GROUPS = ("topic", "company", "article")
"""What a one-group session can be limited to."""

NO_DAILY_LIMIT = 10**6
"""The daily limit on new questions for a session the user chose: the group itself is the
limit (the session is cut to GROUP_SESSION_SIZE)."""


def group_filters(by: str, key: str) -> Filters:
    """The filter of a one-group session: questions of topic, company or article ``key``."""
    return {
        "topic": Filters(topics=(key,)),
        "company": Filters(companies=(key,)),
        "article": Filters(articles=(key,)),
    }[by]


def group_queue(bank: Bank, store: Store, now: datetime, by: str, key: str) -> list[AnyQuestion]:
    """A session on one topic, company or article (``by``, one of GROUPS): its due reviews,
    then its new questions regardless of the daily limit (the user asked for this group), at
    most GROUP_SESSION_SIZE."""
    filters = group_filters(by, key)
    questions = due_queue(bank, store, now, filters, new_per_day=NO_DAILY_LIMIT)
    return questions[:GROUP_SESSION_SIZE]


def selection_queue(questions: list[AnyQuestion]) -> list[AnyQuestion]:
    """A session on questions the user picked (the browser's matches), in their order, at
    most GROUP_SESSION_SIZE."""
    return questions[:GROUP_SESSION_SIZE]
