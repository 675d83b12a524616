"""A simulated learner for the FSRS tests: reviews scheduled by quizzer with the default
parameters, while recall is drawn from a *different* memory (TRUE_PARAMETERS), so fitting
FSRS to the history has something real to find. Deterministic for a given seed."""

from __future__ import annotations

import heapq
import random
from datetime import datetime, timedelta

from fsrs import Card, Rating, Scheduler

from quizzer.progress.scheduling import DEFAULT_PARAMETERS
from quizzer.progress.store import Store

TRUE_PARAMETERS = (
    1.0,  # initial stability after Again, Hard, Good, Easy: this learner holds on longer
    3.0,
    6.0,
    15.0,
    *DEFAULT_PARAMETERS[4:8],
    1.0,  # w8: stability grows less with each successful review than the defaults assume
    *DEFAULT_PARAMETERS[9:20],
    0.5,  # w20: a forgetting curve of another shape (the defaults' is flatter)
)


def simulate_history(
    store: Store,
    *,
    question_ids: list[str],
    end: datetime,
    days: int,
    new_per_day: int,
    seed: int,
) -> int:
    """Study ``question_ids`` (new ones first come ``new_per_day`` a day) for ``days`` days up
    to ``end``, saving every rating with Store.record_review as a drill does. Returns the
    number of reviews saved."""
    rng = random.Random(seed)
    scheduler = Scheduler(enable_fuzzing=False)
    truth = Scheduler(parameters=TRUE_PARAMETERS, enable_fuzzing=False)
    start = end - timedelta(days=days)
    due: list[tuple[datetime, int, str]] = []
    cards: dict[str, tuple[Card, Card]] = {}
    waiting = list(question_ids)
    saved = 0
    with store.write():
        for day in range(days):
            session = start + timedelta(days=day)
            for _ in range(new_per_day):
                if waiting:
                    qid = waiting.pop(0)
                    # An explicit id: without one, fsrs's Card sleeps 1 ms to keep ids unique.
                    number = len(cards)
                    cards[qid] = (Card(number, due=session), Card(number, due=session))
                    heapq.heappush(due, (session, len(cards), qid))
            while due and due[0][0] < session + timedelta(hours=12):
                moment, order, qid = heapq.heappop(due)
                moment = max(moment, session)
                card, memory = cards[qid]
                if memory.last_review is None:
                    rating = rng.choices((1, 2, 3, 4), (0.2, 0.1, 0.6, 0.1))[0]
                elif rng.random() < truth.get_card_retrievability(memory, moment):
                    rating = rng.choices((2, 3, 4), (0.1, 0.8, 0.1))[0]
                else:
                    rating = 1
                after, _ = scheduler.review_card(card, Rating(rating), moment)
                memory, _ = truth.review_card(memory, Rating(rating), moment)
                store.record_review(
                    question_id=qid,
                    before=card,
                    after=after,
                    rating=rating,
                    reviewed_at=moment,
                    answer=None,
                    correct=None,
                    duration_ms=8000,
                    seed=None,
                    session_id=None,
                    retrievability=None,
                    content_hash=None,
                )
                saved += 1
                cards[qid] = (after, memory)
                heapq.heappush(due, (after.due, order, qid))
    return saved
