"""What a desired retention costs: the reviews a day over the next 30 days and how much you
would then recall, for each retention from 0.70 to 0.97.

Simulated with the ``fsrs`` scheduler itself (so with your FSRS parameters, learning steps and
daily new limit) over your own cards as they stand now, plus the new questions still to come.
Each day every due card is reviewed; whether you recall it is drawn from its recall
probability, and the rating you then give from how you have rated so far. A few seeded runs
are averaged, with the same draws for every retention, so the figures are repeatable and
differ only by what the retention changes.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from fsrs import Card, Scheduler

    from quizzer.content.bank import Bank
    from quizzer.progress.scheduling import SchedulerSettings
    from quizzer.progress.store import Store

RETENTIONS = (0.70, 0.75, 0.80, 0.85, 0.90, 0.93, 0.95, 0.97)
"""The desired retentions compared (Anki's useful range)."""
DAYS = 30
RUNS = 4
"""Seeded runs averaged per retention, for a deck of up to 200 questions (fewer above)."""
MIN_RATINGS = 30
"""Fewer of your own ratings than this in a state, and the typical learner's mix is used."""

# The typical learner, from fsrs-rs's default simulator configuration (default_simulator_config:
# first_rating_prob, review_rating_prob, and its learning-step row after a Good).
TYPICAL_FIRST = (0.24, 0.094, 0.495, 0.171)
"""Again, Hard, Good, Easy on a question seen for the first time."""
TYPICAL_RECALLED = (0.224, 0.631, 0.145)
"""Hard, Good, Easy when a due review is recalled."""
TYPICAL_STEP = (0.0519, 0.047, 0.8462, 0.055)
"""Again, Hard, Good, Easy at a (re)learning step."""


@dataclass(frozen=True)
class RatingHabits:
    """How this user rates, as probabilities of each rating."""

    first: tuple[float, ...]
    """Again, Hard, Good, Easy on a new question."""
    recalled: tuple[float, ...]
    """Hard, Good, Easy on a recalled review."""
    step: tuple[float, ...]
    """Again, Hard, Good, Easy at a learning or relearning step."""
    from_history: bool
    """Whether any of the three came from the user's own ratings."""


def _mix(
    counts: dict[str, dict[int, int]], states: Sequence[str], ratings: Sequence[int]
) -> tuple[float, ...] | None:
    """Each rating's share among ``states``, or None when there are too few to trust."""
    tally = [sum(counts.get(state, {}).get(r, 0) for state in states) for r in ratings]
    total = sum(tally)
    return tuple(n / total for n in tally) if total >= MIN_RATINGS else None


def rating_habits(counts: dict[str, dict[int, int]]) -> RatingHabits:
    """The user's rating mix from Store.rating_counts (the typical learner's where there are
    fewer than MIN_RATINGS)."""
    first = _mix(counts, ("new",), (1, 2, 3, 4))
    recalled = _mix(counts, ("review",), (2, 3, 4))
    step = _mix(counts, ("learning", "relearning"), (1, 2, 3, 4))
    return RatingHabits(
        first or TYPICAL_FIRST,
        recalled or TYPICAL_RECALLED,
        step or TYPICAL_STEP,
        from_history=any(mix is not None for mix in (first, recalled, step)),
    )


class WorkloadRow(TypedDict):
    """One desired retention's simulated month."""

    retention: float
    reviews_per_day: float
    """Ratings a day, learning steps and new questions included, averaged over the days."""
    new_per_day: float
    """New questions introduced a day, on average."""
    daily_reviews: list[float]
    """Ratings on each day (day 0 is today)."""
    recall: float | None
    """Mean recall probability over every studied question at the end; None if none."""
    remembered: float
    """Questions you would be expected to recall at the end (the sum of recall)."""
    current: bool
    """Whether this is the desired retention set now."""


@dataclass(frozen=True)
class Workload:
    """The simulated month for each retention, and what it was simulated from."""

    rows: list[WorkloadRow]
    days: int
    cards: int
    """Studied, unsuspended questions the simulation starts from."""
    new_available: int
    """Questions not yet studied, introduced at the daily limit."""
    new_per_day: int
    own_parameters: bool
    """Whether your own FSRS parameters (fitted or pasted) were used, not the defaults."""
    own_habits: bool
    """Whether your own rating mix was used."""
    desired_retention: float

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of `quizzer settings --simulate --json`."""
        return {
            "days": self.days,
            "cards": self.cards,
            "new_available": self.new_available,
            "new_per_day": self.new_per_day,
            "parameters": "yours" if self.own_parameters else "default",
            "rating_mix": "yours" if self.own_habits else "typical",
            "desired_retention": self.desired_retention,
            "rows": self.rows,
        }


def _draw(rng: random.Random, ratings: Sequence[int], weights: Sequence[float]) -> int:
    return rng.choices(ratings, weights)[0]


def _run(
    cards: Sequence[Card],
    scheduler: Scheduler,
    habits: RatingHabits,
    *,
    now: datetime,
    days: int,
    new_available: int,
    new_per_day: int,
    new_today: int,
    rng: random.Random,
) -> tuple[list[int], list[float]]:
    """One simulated stretch: ratings per day, and every studied card's recall at the end."""
    from fsrs import Rating, State

    from quizzer.progress.scheduling import new_card

    deck = list(cards)
    queue = [(card.due, index) for index, card in enumerate(deck)]
    heapq.heapify(queue)
    daily = [0] * days
    introduced = 0
    for day in range(days):
        session = now + timedelta(days=day)
        end = session + timedelta(days=1)
        room = new_today if day == 0 else new_per_day
        for _ in range(max(0, min(room, new_available - introduced))):
            deck.append(new_card(session))
            heapq.heappush(queue, (session, len(deck) - 1))
            introduced += 1
        while queue and queue[0][0] < end:
            due, index = heapq.heappop(queue)
            moment = max(due, session)
            card = deck[index]
            if card.last_review is None:
                rating = _draw(rng, (1, 2, 3, 4), habits.first)
            elif card.state == State.Review:
                recalled = rng.random() < scheduler.get_card_retrievability(card, moment)
                rating = _draw(rng, (2, 3, 4), habits.recalled) if recalled else 1
            else:
                rating = _draw(rng, (1, 2, 3, 4), habits.step)
            card, _ = scheduler.review_card(card, Rating(rating), moment)
            deck[index] = card
            daily[day] += 1
            heapq.heappush(queue, (card.due, index))
    finish = now + timedelta(days=days)
    recall = [
        float(scheduler.get_card_retrievability(card, finish))
        for card in deck
        if card.last_review is not None
    ]
    return daily, recall


def simulate(
    cards: Sequence[Card],
    settings: SchedulerSettings,
    habits: RatingHabits,
    *,
    now: datetime,
    new_available: int,
    new_per_day: int,
    new_today: int,
    retentions: Sequence[float] = RETENTIONS,
    days: int = DAYS,
    runs: int = 0,
) -> list[WorkloadRow]:
    """The simulated month for each retention (pure: nothing is read or saved). ``runs``
    seeded runs are averaged (0: up to RUNS, fewer for a big deck)."""
    from quizzer.progress.scheduling import make_scheduler

    if runs <= 0:
        # Fewer runs for a big deck: its many cards already average out the luck of the draw.
        deck = len(cards) + min(new_available, new_per_day * days)
        runs = RUNS if deck <= 200 else 2 if deck <= 1000 else 1
    rows: list[WorkloadRow] = []
    for retention in retentions:
        scheduler = make_scheduler(replace(settings, desired_retention=retention, fuzz=False))
        daily_sum = [0.0] * days
        remembered = 0.0
        studied = 0
        for run in range(runs):
            daily, recall = _run(
                cards,
                scheduler,
                habits,
                now=now,
                days=days,
                new_available=new_available,
                new_per_day=new_per_day,
                new_today=new_today,
                rng=random.Random(run),
            )
            daily_sum = [a + b for a, b in zip(daily_sum, daily, strict=True)]
            remembered += sum(recall)
            studied += len(recall)
        new_total = min(new_available, new_today + new_per_day * (days - 1))
        rows.append(
            WorkloadRow(
                retention=retention,
                reviews_per_day=round(sum(daily_sum) / runs / days, 2),
                new_per_day=round(new_total / days, 2),
                daily_reviews=[round(n / runs, 2) for n in daily_sum],
                recall=round(remembered / studied, 4) if studied else None,
                remembered=round(remembered / runs, 1),
                current=abs(retention - settings.desired_retention) < 1e-9,
            )
        )
    return rows


def workload(bank: Bank, store: Store, now: datetime, *, runs: int = 0) -> Workload:
    """The month ahead at each retention in RETENTIONS (and at the one set now, if it is not
    among them), from the user's cards, settings and FSRS parameters."""
    from quizzer.progress.scheduling import card_from_json
    from quizzer.progress.settings import scheduler_settings, stored_setting
    from quizzer.study.session import new_introduced_today

    settings = scheduler_settings(store)
    in_bank = set(bank.by_id)
    cards = [
        card_from_json(studied.card_json)
        for studied in store.studied_cards()
        if studied.question_id in in_bank
    ]
    habits = rating_habits(store.rating_counts())
    rows = store.cards()
    unseen = sum(
        1
        for q in bank.questions
        if (row := rows.get(q.id)) is None or (row.last_review is None and not row.suspended)
    )
    new_per_day = stored_setting(store, "new_per_day")
    retentions = sorted({*RETENTIONS, round(settings.desired_retention, 4)})
    return Workload(
        rows=simulate(
            cards,
            settings,
            habits,
            now=now,
            new_available=unseen,
            new_per_day=new_per_day,
            new_today=max(0, new_per_day - new_introduced_today(store, now)),
            retentions=retentions,
            runs=runs,
        ),
        days=DAYS,
        cards=len(cards),
        new_available=unseen,
        new_per_day=new_per_day,
        own_parameters=settings.parameters is not None,
        own_habits=habits.from_history,
        desired_retention=settings.desired_retention,
    )


def workload_lines(result: Workload) -> list[str]:
    """The text table of `quizzer settings --simulate`."""
    source = "your own FSRS parameters" if result.own_parameters else "the default parameters"
    lines = [
        f"The next {result.days} days at each desired retention, simulated with {source} over "
        f"your {result.cards:,} studied questions and {result.new_per_day} new a day "
        f"({result.new_available:,} left to learn); your rating mix: "
        f"{'your own' if result.own_habits else 'a typical learner'}.",
        "",
        "  retention  reviews/day  new/day  recall at day 30  questions recalled",
    ]
    for row in result.rows:
        mark = "▸" if row["current"] else " "
        recall = "—" if row["recall"] is None else f"{row['recall']:.1%}"
        lines.append(
            f"{mark}      {row['retention']:.2f}  {row['reviews_per_day']:>11.1f}  "
            f"{row['new_per_day']:>7.1f}  {recall:>16}  {row['remembered']:>18.0f}"
        )
    lines += [
        "",
        f"▸ your desired retention ({result.desired_retention:.2f}). Reviews/day counts every "
        "rating, new questions and learning steps included.",
        "Change it: quizzer settings desired_retention 0.85",
    ]
    return lines
