"""How much daily study a plan asks for: the reviews still to come, day by day until the
interview, projected with the user's own FSRS scheduler, and the minutes they take.

The projection rates every review Good (fuzz off) and then allows for forgetting: each review
is forgotten with probability 1 - desired retention, and a forgotten card costs one relearning
review more. Minutes per review come from the user's own timed reviews (the mean of the last
few hundred, each counted between 5 seconds and 5 minutes), or a default until there are enough.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fsrs import Card, Scheduler

    from quizzer.progress.goal import StudyGoal
    from quizzer.progress.scheduling import SchedulerSettings
    from quizzer.progress.store import Store

DEFAULT_MINUTES_PER_REVIEW = 1.0
"""Until there is history: about a minute per review (a recall question answered aloud and
checked takes longer, a choice or a second look the same day less)."""
MIN_TIMED_REVIEWS = 20
"""Timed reviews needed before the user's own pace replaces the default."""
PACE_WINDOW = 300
"""How many of the latest timed reviews the pace is taken from."""
DURATION_FLOOR_MS = 5_000
DURATION_CAP_MS = 5 * 60_000
"""A review left open longer (the user walked away) counts as five minutes."""
STUDY_HOUR = 9
"""New questions are projected as introduced at this local hour."""
WEEK = 7


@dataclass(frozen=True)
class Pace:
    """Minutes per review, and where the figure comes from."""

    minutes: float
    timed_reviews: int
    """How many of the user's reviews it is the mean of (0: the default)."""


def review_pace(store: Store) -> Pace:
    """The user's mean minutes per review, or the default with too little history."""
    durations = store.recent_durations_ms(PACE_WINDOW)
    if len(durations) < MIN_TIMED_REVIEWS:
        return Pace(DEFAULT_MINUTES_PER_REVIEW, 0)
    clipped = [min(max(ms, DURATION_FLOOR_MS), DURATION_CAP_MS) for ms in durations]
    return Pace(round(sum(clipped) / len(clipped) / 60_000, 2), len(durations))


class Projection:
    """Reviews per day from today (day 0) to the day before the interview."""

    def __init__(
        self, goal: StudyGoal, settings: SchedulerSettings, now: datetime, base_retention: float
    ) -> None:
        self.goal = goal
        self.settings = settings
        self.now = now
        self.today = now.astimezone().date()
        self.horizon = max(0, goal.days_left(now))
        """Days projected: today up to the day before the interview."""
        self.base_retention = base_retention
        self._schedulers: dict[float, Scheduler] = {}
        self._patterns: dict[int, list[int]] = {}

    def day_of(self, moment: datetime) -> int:
        """Day index of a moment (0 = today, local)."""
        return (moment.astimezone().date() - self.today).days

    def _scheduler(self, moment: datetime) -> Scheduler:
        from dataclasses import replace

        from quizzer.progress.scheduling import make_scheduler

        retention = self.goal.retention_on(moment, self.base_retention)
        found = self._schedulers.get(retention)
        if found is None:
            found = make_scheduler(replace(self.settings, desired_retention=retention, fuzz=False))
            self._schedulers[retention] = found
        return found

    def _replay(self, card: Card, start: datetime, counts: list[int]) -> None:
        """Add the reviews of ``card`` from ``start`` on, all rated Good, to ``counts``."""
        from fsrs import Rating

        moment = max(start, card.due)
        while (day := self.day_of(moment)) < self.horizon:
            counts[max(day, 0)] += 1
            card, _ = self._scheduler(moment).review_card(card, Rating.Good, moment)
            moment = max(card.due, moment)

    def existing(self, store: Store) -> list[int]:
        """Reviews per day of the cards already studied (overdue ones land on day 0)."""
        from quizzer.progress.scheduling import card_from_json

        counts = [0] * self.horizon
        for row in store.studied_cards():
            self._replay(card_from_json(row.card_json), self.now, counts)
        return counts

    def new_card(self, day: int) -> list[int]:
        """Reviews per day of one question introduced on ``day`` (remembered per day)."""
        found = self._patterns.get(day)
        if found is None:
            from fsrs import Card

            if day == 0:
                start = self.now
            else:
                local = datetime.combine(self.today + timedelta(days=day), time(STUDY_HOUR))
                start = local.astimezone().astimezone(self.now.tzinfo)
            found = [0] * self.horizon
            # An explicit card_id: without one fsrs sleeps a millisecond to make a unique id.
            self._replay(Card(card_id=day, due=start), start, found)
            self._patterns[day] = found
        return found

    def forgetting_allowance(self) -> float:
        """Reviews are multiplied by this for the relearning that forgetting costs."""
        return 1 + (1 - self.base_retention)


def introductions(quota: int, remaining: int, done_today: int, days: int) -> list[int]:
    """New questions per day: ``quota`` a day (less today by those already introduced) until
    ``remaining`` are all in, over the first ``days`` days."""
    plan = []
    left = remaining
    for day in range(days):
        take = min(left, max(0, quota - done_today) if day == 0 else quota)
        plan.append(take)
        left -= take
    return plan


@dataclass(frozen=True)
class Load:
    """The daily study time a quota asks for."""

    minutes: list[float]
    """Projected minutes per day, today first."""
    busiest_week: float
    """The mean daily minutes of the busiest seven days in a row (of all days when fewer
    remain): what must fit in the minutes per day."""


def daily_load(
    projection: Projection,
    existing: list[int],
    pace: Pace,
    quota: int,
    remaining: int,
    done_today: int,
    intro_days: int,
) -> Load:
    """Minutes per day with ``quota`` new questions a day."""
    reviews = [float(n) for n in existing]
    for day, count in enumerate(introductions(quota, remaining, done_today, intro_days)):
        if count:
            for offset, n in enumerate(projection.new_card(day)):
                reviews[offset] += n * count
    factor = projection.forgetting_allowance() * pace.minutes
    minutes = [round(n * factor, 1) for n in reviews]
    if not minutes:
        return Load([], 0.0)
    width = min(WEEK, len(minutes))
    busiest = max(
        sum(minutes[start : start + width]) / width for start in range(len(minutes) - width + 1)
    )
    return Load(minutes, round(busiest, 1))


def interview_morning(day: date, tz_of: datetime) -> datetime:
    """The morning of ``day`` (STUDY_HOUR local), in ``tz_of``'s zone: when readiness counts."""
    return datetime.combine(day, time(STUDY_HOUR)).astimezone().astimezone(tz_of.tzinfo)
