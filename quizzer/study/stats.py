"""Aggregates over the progress store: counts, streak, retention, per-topic mastery, forecast.

Per-question counters live on the cards table, so these stay fast with a million reviews:
only `reviews_total`, `reviews_today`, the streak and retention touch the reviews table, and
each of those is one indexed query.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from quizzer.base.clock import iso
from quizzer.content.bank import Bank
from quizzer.content.models import AnyQuestion
from quizzer.progress.records import LEECH_LAPSES, CardRow, RecentCounts
from quizzer.progress.scheduling import make_scheduler, recall_probability
from quizzer.progress.settings import stored_setting
from quizzer.progress.store import Store
from quizzer.study.accuracy import accuracy, recent_since
from quizzer.study.session import due_queue, new_introduced_today, settings_from_store, start_of_day


def streak_days(store: Store, now: datetime) -> int:
    """Consecutive local days with at least one review, ending today (or yesterday if today
    has none yet). Reads the per-day counts the DB keeps, so it is instant."""
    days = store.active_days((now.astimezone().date() - timedelta(days=3660)).isoformat())
    day = now.astimezone().date()
    if day.isoformat() not in days:
        day -= timedelta(days=1)
    streak = 0
    while day.isoformat() in days:
        streak += 1
        day -= timedelta(days=1)
    return streak


def true_retention(store: Store, now: datetime, days: int = 30) -> float | None:
    """Share of reviews of mature-state cards (state 'review' before rating) that were not
    Again, over the last ``days`` days. None when there were none."""
    total, passed = store.mature_pass_count(iso(now - timedelta(days=days)))
    return passed / total if total else None


def recall_map(store: Store, cards: dict[str, CardRow], now: datetime) -> dict[str, float]:
    """Recall probability now of every reviewed card."""
    scheduler = make_scheduler(settings_from_store(store))
    return {
        qid: recall_probability(scheduler, row.stability, row.last_review, now)
        for qid, row in cards.items()
        if row.last_review is not None
    }


@dataclass
class _Group:
    """The running totals of one topic, company or article while group_rows counts."""

    questions: int = 0
    reviewed: int = 0
    recent: int = 0
    """Reviews in the recent window (store.recent_counts), and of them the fails."""
    fails: int = 0
    lapses: int = 0
    r_sum: float = 0.0
    """The sum of the reviewed questions' recall probabilities."""
    ids: list[str] = field(default_factory=list)

    def add(
        self,
        question_id: str,
        row: CardRow | None,
        recall: float | None,
        counts: RecentCounts | None,
    ) -> None:
        """Count one question of the group (as reviewed when it has a card and a recall)."""
        self.questions += 1
        self.ids.append(question_id)
        if row is not None and recall is not None:
            self.reviewed += 1
            if counts is not None:
                self.recent += counts.reviews
                self.fails += counts.fails
            self.lapses += row.lapses
            self.r_sum += recall

    def as_row(self, key: str) -> dict[str, Any]:
        """The group as group_rows reports it."""
        return {
            "key": key,
            "questions": self.questions,
            "reviewed": self.reviewed,
            "accuracy": accuracy(self.recent, self.fails),
            "mean_retrievability": self.r_sum / self.reviewed if self.reviewed else None,
            "lapses": self.lapses,
            "recent_reviews": self.recent,
            "question_ids": self.ids,
        }


def _group_keys(q: AnyQuestion, by: str) -> Iterable[str]:
    """The groups ``q`` belongs to: its topics, its companies' keys or its articles."""
    if by == "topic":
        return q.topics
    if by == "company":
        return {t.key for t in q.companies}
    return q.articles


def _weakest_first(row: dict[str, Any]) -> tuple[bool, float, float, str]:
    """Sort key: lowest mean recall first, then lowest accuracy; never reviewed last."""
    r, acc = row["mean_retrievability"], row["accuracy"]
    return (r is None, r or 0.0, 1.0 if acc is None else acc, row["key"])


def group_rows(
    bank: Bank,
    cards: dict[str, CardRow],
    recall: dict[str, float],
    by: str,
    recent: dict[str, RecentCounts] | None = None,
) -> list[dict[str, Any]]:
    """Per topic/company/article: questions, reviewed, accuracy (quizzer.study.accuracy's,
    from ``recent``: store.recent_counts over its window), mean retrievability; the weakest
    first (lowest mean recall probability, then lowest accuracy), groups not yet reviewed last
    in key order."""
    recent = recent or {}
    groups: dict[str, _Group] = defaultdict(_Group)
    for q in bank.questions:
        for key in _group_keys(q, by):
            groups[key].add(q.id, cards.get(q.id), recall.get(q.id), recent.get(q.id))
    result = [group.as_row(key) for key, group in sorted(groups.items())]
    return sorted(result, key=_weakest_first)


def forecast(cards: dict[str, CardRow], now: datetime, days: int = 14) -> list[int]:
    """Reviews falling due on each of the next ``days`` days (day 0 includes overdue)."""
    counts = [0] * days
    start = start_of_day(now)
    for row in cards.values():
        if row.suspended or row.last_review is None:
            continue
        offset = (datetime.fromisoformat(row.due) - start).days
        if offset < days:
            counts[max(0, offset)] += 1
    return counts


def heatmap(store: Store, now: datetime, weeks: int = 12) -> dict[str, int]:
    """Reviews per local day (YYYY-MM-DD) over the last ``weeks`` weeks."""
    since = (now.astimezone().date() - timedelta(weeks=weeks)).isoformat()
    return store.review_counts_by_day(since)


def retention_trend(store: Store, now: datetime, weeks: int = 8) -> list[float | None]:
    """True retention per week, oldest first."""
    result = []
    for week in range(weeks, 0, -1):
        start = iso(now - timedelta(weeks=week))
        end = iso(now - timedelta(weeks=week - 1))
        total, passed = store.mature_pass_count(start, end)
        result.append(passed / total if total else None)
    return result


def summary(
    bank: Bank,
    store: Store,
    now: datetime,
    *,
    detail: bool = True,
    cards: dict[str, CardRow] | None = None,
) -> dict[str, Any]:
    """Everything `quizzer stats --json` prints (``cards``: already-read card rows, if any)."""
    cards = store.cards() if cards is None else cards
    scheduler = make_scheduler(settings_from_store(store))
    due_now = len(due_queue(bank, store, now, due_only=True, scheduler=scheduler))
    new_limit = stored_setting(store, "new_per_day")
    unseen = sum(
        1
        for q in bank.questions
        if (row := cards.get(q.id)) is None or (row.last_review is None and not row.suspended)
    )
    new_available = min(unseen, max(0, new_limit - new_introduced_today(store, now)))
    from quizzer.study.plan import active_goal, new_room

    goal = active_goal(bank, store, now)
    if goal is not None:  # a study plan's quota replaces the daily limit
        new_available = new_room(bank, store, goal, now)
    today = now.astimezone().date().isoformat()
    reviews_today = store.reviews_on_day(today)
    result: dict[str, Any] = {
        "now": iso(now),
        "questions": len(bank.questions),
        "reviews_total": store.review_count(),
        "reviews_today": reviews_today,
        "due_now": due_now,
        "new_available": new_available,
        "unseen": unseen,
        "streak_days": streak_days(store, now),
        "retention_30d": true_retention(store, now),
        "leeches": sorted(qid for qid, row in cards.items() if row.lapses >= LEECH_LAPSES),
        "suspended": sorted(qid for qid, row in cards.items() if row.suspended),
    }
    if detail:
        recall = recall_map(store, cards, now)
        recent = store.recent_counts(recent_since(now))
        strip = ("question_ids",)
        for name, by in (("topics", "topic"), ("companies", "company")):
            result[name] = [
                {k: v for k, v in row.items() if k not in strip}
                for row in group_rows(bank, cards, recall, by, recent)
            ]
        result["forecast_14d"] = forecast(cards, now)
    return result


def dashboard_data(bank: Bank, store: Store, now: datetime) -> dict[str, Any]:
    """What the dashboard shows: counts, the five weakest topics, heatmap and forecast."""
    from quizzer.study.weakness import weaknesses

    cards = store.cards()
    data = summary(bank, store, now, detail=False, cards=cards)
    data["weakest"] = weaknesses(bank, store, now, "topic", cards=cards)[:5]
    data["forecast_7d"] = forecast(cards, now, 7)
    data["heatmap"] = heatmap(store, now)
    data["today"] = now.astimezone().date()
    data["plan"] = None
    goal = store.study_goal()
    if goal is not None:
        from quizzer.study.plan import goal_problems, plan_report, summary_line

        if not goal_problems(bank, goal):
            data["plan"] = summary_line(plan_report(bank, store, goal, now))
    return data
