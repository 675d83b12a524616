"""Aggregates over the progress store: counts, streak, retention, per-topic mastery, forecast.

Per-question counters live on the cards table, so these stay fast with a million reviews:
only `reviews_total`, `reviews_today`, the streak and retention touch the reviews table, and
each of those is one indexed query.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

from quizzer.base.clock import iso
from quizzer.content.bank import Bank
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
    buckets: dict[str, dict[str, Any]] = defaultdict(
        lambda: {
            "questions": 0,
            "reviewed": 0,
            "recent": 0,
            "fails": 0,
            "lapses": 0,
            "r_sum": 0.0,
            "ids": [],
        }
    )
    for q in bank.questions:
        if by == "topic":
            keys: Any = q.topics
        elif by == "company":
            keys = {t.key for t in q.companies}
        else:
            keys = q.articles
        row = cards.get(q.id)
        r = recall.get(q.id)
        for key in keys:
            bucket = buckets[key]
            bucket["questions"] += 1
            bucket["ids"].append(q.id)
            if row is not None and r is not None:
                bucket["reviewed"] += 1
                counts = recent.get(q.id)
                if counts is not None:
                    bucket["recent"] += counts.reviews
                    bucket["fails"] += counts.fails
                bucket["lapses"] += row.lapses
                bucket["r_sum"] += r
    result = []
    for key, b in sorted(buckets.items()):
        result.append(
            {
                "key": key,
                "questions": b["questions"],
                "reviewed": b["reviewed"],
                "accuracy": accuracy(b["recent"], b["fails"]),
                "mean_retrievability": b["r_sum"] / b["reviewed"] if b["reviewed"] else None,
                "lapses": b["lapses"],
                "recent_reviews": b["recent"],
                "question_ids": b["ids"],
            }
        )

    def weakest_first(row: dict[str, Any]) -> tuple[bool, float, float, str]:
        r, acc = row["mean_retrievability"], row["accuracy"]
        return (r is None, r or 0.0, 1.0 if acc is None else acc, row["key"])

    return sorted(result, key=weakest_first)


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
