"""A thin layer over the ``fsrs`` package (FSRS-6). We never compute intervals ourselves."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import IntEnum
from typing import Any

from fsrs import Card, Rating, Scheduler, State
from fsrs.scheduler import DEFAULT_PARAMETERS, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

from quizzer.base import clock


class Grade(IntEnum):
    """The four answer ratings, numbered as the keys that pick them."""

    AGAIN = 1
    HARD = 2
    GOOD = 3
    EASY = 4

    @property
    def label(self) -> str:
        """Lower-case name, as typed at the prompt."""
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Grade | None:
        """'1'-'4' or again/hard/good/easy (any prefix); None if not a rating."""
        text = text.strip().lower()
        if text in ("1", "2", "3", "4"):
            return cls(int(text))
        for grade in cls:
            if text and grade.label.startswith(text):
                return grade
        return None


@dataclass(frozen=True)
class SchedulerSettings:
    """The knobs a user may turn."""

    desired_retention: float = 0.9
    learning_steps_min: tuple[float, ...] = (1.0, 10.0)
    relearning_steps_min: tuple[float, ...] = (10.0,)
    maximum_interval_days: int = 36500
    fuzz: bool | None = field(default=None)
    """None = on in normal use, off when QUIZZER_NOW is set or QUIZZER_NO_FUZZ=1."""
    parameters: tuple[float, ...] | None = None
    """The 21 FSRS-6 weights fitted to the user (`quizzer optimize`); None = fsrs's defaults."""

    def fuzz_enabled(self) -> bool:
        """Whether interval fuzzing is on."""
        if self.fuzz is not None:
            return self.fuzz
        return not clock.fixed() and not os.environ.get("QUIZZER_NO_FUZZ")


def make_scheduler(settings: SchedulerSettings | None = None) -> Scheduler:
    """An fsrs Scheduler configured from the user's settings."""
    settings = settings or SchedulerSettings()
    return Scheduler(
        parameters=DEFAULT_PARAMETERS if settings.parameters is None else settings.parameters,
        desired_retention=settings.desired_retention,
        learning_steps=tuple(timedelta(minutes=m) for m in settings.learning_steps_min),
        relearning_steps=tuple(timedelta(minutes=m) for m in settings.relearning_steps_min),
        maximum_interval=settings.maximum_interval_days,
        enable_fuzzing=settings.fuzz_enabled(),
    )


def parameter_problem(values: tuple[float, ...]) -> str | None:
    """Why ``values`` cannot be FSRS-6 weights (wrong count, a value outside fsrs's bounds), or
    None when the scheduler accepts them."""
    if len(values) != len(DEFAULT_PARAMETERS):
        return f"FSRS-6 takes {len(DEFAULT_PARAMETERS)} parameters, not {len(values)}"
    for index, (value, low, high) in enumerate(
        zip(values, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS, strict=True)
    ):
        if not low <= value <= high:
            return f"parameter w{index} = {value:g} is outside {low:g}..{high:g}"
    return None


def new_card(now: datetime) -> Card:
    """A fresh card, due now. Its id is ``now`` in epoch milliseconds, given here because fsrs,
    left to pick one, sleeps a millisecond per card to keep ids apart (quizzer keys cards by
    question id and never reads this one)."""
    return Card(card_id=int(now.timestamp() * 1000), due=now)


def card_to_json(card: Card) -> str:
    """Serialize a card (fsrs's own to_dict)."""
    return json.dumps(card.to_dict())


def card_from_json(text: str) -> Card:
    """Deserialize a card."""
    return Card.from_dict(json.loads(text))


def review(scheduler: Scheduler, card: Card, grade: Grade, now: datetime) -> Card:
    """The card after one review."""
    updated, _log = scheduler.review_card(card, Rating(int(grade)), now)
    return updated


def preview(scheduler: Scheduler, card: Card, now: datetime) -> dict[Grade, timedelta]:
    """The interval each rating would give, as Anki shows on its buttons."""
    fuzz_off = Scheduler(
        parameters=scheduler.parameters,
        desired_retention=scheduler.desired_retention,
        learning_steps=scheduler.learning_steps,
        relearning_steps=scheduler.relearning_steps,
        maximum_interval=scheduler.maximum_interval,
        enable_fuzzing=False,
    )
    result = {}
    for grade in Grade:
        updated, _ = fuzz_off.review_card(card, Rating(int(grade)), now)
        result[grade] = updated.due - now
    return result


def retrievability(scheduler: Scheduler, card: Card, now: datetime) -> float:
    """Probability of recall now (0 for a card never reviewed)."""
    if card.last_review is None:
        return 0.0
    return float(scheduler.get_card_retrievability(card, now))


def recall_probability(
    scheduler: Scheduler, stability: float | None, last_review: str | None, now: datetime
) -> float:
    """FSRS-6 retrievability from two columns, without building a Card: the same forgetting
    curve as ``Scheduler.get_card_retrievability`` (a test keeps the two equal), used where
    thousands of cards are ranked at once."""
    if stability is None or last_review is None:
        return 0.0
    decay = -scheduler.parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    elapsed = max(0, (now - datetime.fromisoformat(last_review)).days)
    return float((1 + factor * elapsed / stability) ** decay)


def format_interval(delta: timedelta) -> str:
    """1m, 10m, 3h, 4d, 2.1mo, 1.3y — as on Anki's buttons."""
    seconds = max(delta.total_seconds(), 0)
    if seconds < 3600:
        return f"{max(1, round(seconds / 60))}m"
    if seconds < 86400:
        return f"{round(seconds / 3600)}h"
    days = seconds / 86400
    if days < 30:
        return f"{round(days)}d"
    if days < 365:
        return f"{days / 30:.1f}mo"
    return f"{days / 365:.1f}y"


def state_name(card: Card) -> str:
    """new / learning / review / relearning."""
    if card.last_review is None:
        return "new"
    return {State.Learning: "learning", State.Review: "review", State.Relearning: "relearning"}[
        card.state
    ]


def card_summary(card: Card) -> dict[str, Any]:
    """The fields `show --json` reports."""
    return {
        "state": state_name(card),
        "stability": card.stability,
        "difficulty": card.difficulty,
        "due": card.due.isoformat(),
        "last_review": card.last_review.isoformat() if card.last_review else None,
    }
