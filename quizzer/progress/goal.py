"""The study goal a plan works toward: the interview date, what it covers, the time per day, and
the retention ramp before the date. Saved as JSON in the settings table (Store.study_goal).

The goal holds only what the user chose; what it implies (which questions, in what order, how
many a day, how ready) is computed from it each time by quizzer.study.plan, so it follows the
bank and the review history as they change.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

GOAL_KEY = "study_plan"
"""The settings-table key the goal is saved under."""
DEFAULT_MINUTES = 45
DEFAULT_REVIEW_DAYS = 7
DEFAULT_FINAL_RETENTION = 0.95
DEFAULT_RAMP_DAYS = 14


class StudyGoal(BaseModel):
    """What the user is preparing for (one at a time)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    date: date
    """The interview day (local)."""
    track: str | None = None
    """A track key from question_bank/tracks.yaml, or none."""
    companies: tuple[str, ...] = ()
    """Company keys (question_bank/companies.yaml) whose interview pages set the priorities."""
    topics: tuple[str, ...] = ()
    """Topics picked by hand, in scope whatever the track and companies say."""
    dropped: tuple[str, ...] = ()
    """Topics taken out of scope (the cut the plan proposed, or the user's own)."""
    minutes_per_day: int = Field(default=DEFAULT_MINUTES, ge=5, le=24 * 60)
    """Study time per day the plan must fit in."""
    review_days: int = Field(default=DEFAULT_REVIEW_DAYS, ge=0, le=60)
    """The last days before the date kept for review only: every in-scope question is
    introduced before them. Set with the date: a week, or half the days left when fewer than
    two weeks remain."""
    final_retention: float = Field(default=DEFAULT_FINAL_RETENTION, ge=0.7, le=0.99)
    """The desired retention reached on the day of the interview."""
    ramp_days: int = Field(default=DEFAULT_RAMP_DAYS, ge=0, le=90)
    """Over how many days before the date the desired retention rises to ``final_retention``
    (0: no ramp)."""

    @model_validator(mode="after")
    def _has_scope(self) -> StudyGoal:
        if self.track is None and not self.companies and not self.topics:
            raise ValueError("a plan needs a track, a company or a topic")
        return self

    def days_left(self, now: datetime) -> int:
        """Whole days from today (local) to the interview day: 0 on the day, negative after."""
        return (self.date - now.astimezone().date()).days

    def active(self, now: datetime) -> bool:
        """Whether the date is still ahead (or today)."""
        return self.days_left(now) >= 0

    def retention_on(self, now: datetime, base: float) -> float:
        """The desired retention for a review at ``now``: ``base`` until the ramp starts, then
        rising in a straight line to ``final_retention`` on the interview day, so the intervals
        the scheduler gives shrink as the date nears and none jumps far past it. Never below
        ``base``; ``base`` again once the date has passed."""
        left = self.days_left(now)
        if left < 0 or left >= self.ramp_days or base >= self.final_retention:
            return base
        progress = 1 - left / self.ramp_days
        return round(base + (self.final_retention - base) * progress, 4)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (what the settings table stores)."""
        return self.model_dump(mode="json")
