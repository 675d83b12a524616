"""Weakness per topic, company or article, and a review session built from the weakest topics.

score = 0.5 × (1 − smoothed accuracy) + 0.3 × (1 − mean retrievability) + 0.2 × min(1, lapses
per reviewed question / 4)

Accuracy is quizzer.study.accuracy's (the share of the group's reviews in the last 60 days not
rated Again); the score smooths it with one pass and one fail so a single review cannot
dominate, while what is shown is the plain share. Mean retrievability is FSRS's recall
probability now, averaged over the group's reviewed questions. Only groups with at least one
reviewed question get a score.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from quizzer.content.bank import Bank
from quizzer.content.models import AnyQuestion
from quizzer.progress.records import CardRow, RecentCounts
from quizzer.progress.scheduling import make_scheduler, recall_probability
from quizzer.progress.store import Store
from quizzer.study.accuracy import accuracy, recent_since, smoothed_accuracy
from quizzer.study.session import Filters, settings_from_store

WEIGHTS = {"accuracy": 0.5, "retrievability": 0.3, "lapses": 0.2}


@dataclass
class Weakness:
    """One group's weakness and the evidence behind it."""

    key: str
    score: float
    accuracy: float | None
    """quizzer.study.accuracy's accuracy (None: no review in its window)."""
    reviews: int
    lapses: int
    mean_retrievability: float
    reviewed: int
    questions: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """Plain data for --json."""
        return {
            "key": self.key,
            "score": round(self.score, 4),
            "accuracy": None if self.accuracy is None else round(self.accuracy, 4),
            "recent_reviews": self.reviews,
            "lapses": self.lapses,
            "mean_retrievability": round(self.mean_retrievability, 4),
            "reviewed_questions": self.reviewed,
            "questions": self.questions,
        }


def _groups(q: AnyQuestion, by: str) -> list[str]:
    if by == "topic":
        return list(q.topics)
    if by == "company":
        return sorted({t.key for t in q.companies})
    return list(q.articles)


def weaknesses(
    bank: Bank,
    store: Store,
    now: datetime,
    by: str = "topic",
    cards: dict[str, CardRow] | None = None,
) -> list[Weakness]:
    """Every group with reviews, weakest first (``cards``: already-read card rows, if any)."""
    scheduler = make_scheduler(settings_from_store(store))
    cards = store.cards() if cards is None else cards
    per_question = store.recent_counts(recent_since(now))
    acc: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"n": 0, "fails": 0, "lapses": 0, "r": 0.0, "reviewed": 0, "ids": []}
    )
    for q in bank.questions:
        row = cards.get(q.id)
        if row is None or not row.reviewed:
            continue
        n, fails = per_question.get(q.id, RecentCounts(0, 0))
        r = recall_probability(scheduler, row.stability, row.last_review, now)
        for key in _groups(q, by):
            bucket = acc[key]
            bucket["n"] += n
            bucket["fails"] += fails or 0
            bucket["lapses"] += row.lapses
            bucket["r"] += r
            bucket["reviewed"] += 1
            bucket["ids"].append(q.id)
    result = []
    for key, b in acc.items():
        mean_r = b["r"] / b["reviewed"]
        lapse_rate = min(1.0, b["lapses"] / b["reviewed"] / 4)
        score = (
            WEIGHTS["accuracy"] * (1 - smoothed_accuracy(b["n"], b["fails"]))
            + WEIGHTS["retrievability"] * (1 - mean_r)
            + WEIGHTS["lapses"] * lapse_rate
        )
        result.append(
            Weakness(
                key,
                score,
                accuracy(b["n"], b["fails"]),
                b["n"],
                b["lapses"],
                mean_r,
                b["reviewed"],
                b["ids"],
            )
        )
    result.sort(key=lambda w: (-w.score, w.key))
    return result


def weak_queue(
    bank: Bank,
    store: Store,
    now: datetime,
    filters: Filters | None = None,
    *,
    limit: int = 10,
    topics: int = 3,
) -> list[AnyQuestion]:
    """Questions from the weakest topics, due or not: reviewed ones with the lowest recall
    probability first, then unseen ones from the same topics."""
    weakest = [w.key for w in weaknesses(bank, store, now, "topic")[:topics]]
    if not weakest:
        return []
    scheduler = make_scheduler(settings_from_store(store))
    cards = store.cards()
    seen: list[tuple[int, float, str, AnyQuestion]] = []
    unseen: list[tuple[int, str, AnyQuestion]] = []
    for q in bank.questions:
        hits = [weakest.index(t) for t in q.topics if t in weakest]
        if not hits or (filters is not None and not filters.accepts(bank, q)):
            continue
        row = cards.get(q.id)
        if row is not None and row.suspended:
            continue
        rank = min(hits)
        if row is None or not row.reviewed:
            unseen.append((rank, q.id, q))
        else:
            r = recall_probability(scheduler, row.stability, row.last_review, now)
            seen.append((rank, r, q.id, q))
    seen.sort(key=lambda item: item[:3])
    unseen.sort(key=lambda item: item[:2])
    return ([item[3] for item in seen] + [item[2] for item in unseen])[:limit]
