"""What a session asks, by how it was started: everything due (``due_queue``: due reviews
first, then new questions up to the daily limit), one topic, company or article chosen by the
user (``group_queue``), or a selection the user made in the browser (``selection_queue``).
The front ends call these instead of cutting and widening queues themselves."""

from __future__ import annotations

from datetime import datetime

from fsrs import Scheduler

from quizzer.base import clock
from quizzer.content.bank import Bank
from quizzer.content.models import AnyQuestion
from quizzer.progress.settings import stored_setting
from quizzer.progress.store import Store
from quizzer.study.due import Filters, due_reviews, new_introduced_today
from quizzer.study.plan import active_goal, new_order, new_room

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


def due_queue(
    bank: Bank,
    store: Store,
    now: datetime,
    filters: Filters | None = None,
    *,
    limit: int | None = None,
    due_only: bool = False,
    new_only: bool = False,
    new_per_day: int | None = None,
    scheduler: Scheduler | None = None,
) -> list[AnyQuestion]:
    """Due reviews first (lowest retrievability first), then new questions up to the daily
    limit, then cut to ``limit``. New questions come easiest first, or, while a study plan is
    active, in the plan's order up to its daily quota (quizzer.study.plan; an explicit
    ``new_per_day`` still overrides the quota). No card is deserialized."""
    now_iso = clock.iso(now)
    check = filters is not None and filters != Filters()
    queue = [] if new_only else due_reviews(bank, store, now, filters, scheduler)
    if not due_only:
        goal = active_goal(bank, store, now)
        # New questions come easiest first (definitions before trade-offs), in bank order
        # within a difficulty, so a fresh start builds up rather than opening on a level 5.
        order = bank.easiest_first() if goal is None else new_order(bank, goal)
        if goal is not None and new_per_day is None:
            room = new_room(bank, store, goal, now)
        else:
            if new_per_day is None:
                new_per_day = stored_setting(store, "new_per_day")
            room = max(0, new_per_day - new_introduced_today(store, now))
        if room:
            taken = store.taken_ids(now_iso)
            added = 0
            for q in order:
                if added >= room:
                    break
                if q.id not in taken and (not check or filters.accepts(bank, q)):  # type: ignore[union-attr]
                    queue.append(q)
                    added += 1
    return queue[:limit] if limit is not None else queue


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
