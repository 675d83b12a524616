"""What a study session sees of today: the scheduler settings in force, when the day began, how
many new questions it has introduced, which reviews are due, and the filters a session draws
with. The queues (quizzer.study.queue) and the study plan (quizzer.study.plan) both build on it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fsrs import Scheduler

from quizzer.base import clock
from quizzer.content.bank import Bank
from quizzer.content.filters import matches
from quizzer.content.models import AnyQuestion
from quizzer.progress.scheduling import SchedulerSettings, make_scheduler, recall_probability
from quizzer.progress.settings import scheduler_settings
from quizzer.progress.store import Store


@dataclass(frozen=True)
class Filters:
    """Which questions a session may draw from. Empty means no restriction."""

    topics: tuple[str, ...] = ()
    companies: tuple[str, ...] = ()
    articles: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    difficulties: tuple[int, ...] = ()
    modules: tuple[int, ...] = ()
    search: str | None = None

    def accepts(self, bank: Bank, q: AnyQuestion) -> bool:
        """Whether ``q`` passes every filter."""
        return matches(
            bank,
            q,
            topics=self.topics,
            companies=self.companies,
            articles=self.articles,
            kinds=self.kinds,
            difficulties=self.difficulties,
            modules=self.modules,
            search=self.search,
        )

    def as_dict(self) -> dict[str, Any]:
        """The non-empty filters, for the sessions table."""
        return {k: v for k, v in self.__dict__.items() if v}


def settings_from_store(store: Store, now: datetime | None = None) -> SchedulerSettings:
    """Scheduler settings saved in the DB (defaults otherwise), with the user's FSRS parameters
    when `quizzer optimize` fitted some. While a study plan is active, the desired retention
    rises toward the interview date (StudyGoal.retention_on), so no interval jumps far past it."""
    settings = scheduler_settings(store)
    goal = store.study_goal()
    if goal is None:
        return settings
    retention = goal.retention_on(now or clock.now(), settings.desired_retention)
    return dataclasses.replace(settings, desired_retention=retention)


def start_of_day(now: datetime) -> datetime:
    """Midnight of ``now``'s day in local time, as UTC."""
    local = now.astimezone()
    return local.replace(hour=0, minute=0, second=0, microsecond=0).astimezone(now.tzinfo)


def new_introduced_today(store: Store, now: datetime) -> int:
    """Questions seen for the first time since midnight."""
    return store.new_questions_since(clock.iso(start_of_day(now)))


def due_reviews(
    bank: Bank,
    store: Store,
    now: datetime,
    filters: Filters | None = None,
    scheduler: Scheduler | None = None,
) -> list[AnyQuestion]:
    """The questions due for review at ``now`` that pass ``filters``, lowest recall probability
    first (ties by id). No card is deserialized."""
    scheduler = scheduler or make_scheduler(settings_from_store(store, now))
    check = filters is not None and filters != Filters()
    due: list[tuple[float, str, AnyQuestion]] = []
    for question_id, stability, last_review in store.due_rows(clock.iso(now)):
        q = bank.by_id.get(question_id)
        if q is None or (check and not filters.accepts(bank, q)):  # type: ignore[union-attr]
            continue
        due.append((recall_probability(scheduler, stability, last_review, now), question_id, q))
    due.sort(key=lambda item: (item[0], item[1]))
    return [q for _, _, q in due]
