"""The study plan toward an interview date: how many new questions a day, whether that fits the
minutes per day (and what to cut when it does not), how ready each topic will be, and today's
list. No UI here: `quizzer plan`, the app's Plan screen and the queue all read this module.

What is in scope and in what order new questions come is quizzer.study.plan_scope; the
projected reviews and minutes are quizzer.study.plan_load; the goal itself is stored by
quizzer.progress.goal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from quizzer.base.clock import iso
from quizzer.content.bank import Bank, suggest
from quizzer.progress.goal import DEFAULT_REVIEW_DAYS, StudyGoal
from quizzer.progress.scheduling import make_scheduler, recall_probability
from quizzer.progress.settings import stored_setting
from quizzer.progress.store import Store
from quizzer.study.due import due_reviews, settings_from_store, start_of_day
from quizzer.study.plan_load import (
    Load,
    Pace,
    Projection,
    daily_load,
    interview_morning,
    introductions,
    review_pace,
)
from quizzer.study.plan_scope import Scope, TopicScope, scope_for

if TYPE_CHECKING:
    from quizzer.content.models import AnyQuestion


def goal_problems(bank: Bank, goal: StudyGoal) -> list[str]:
    """Every key of ``goal`` the bank does not know, each with the closest key and the list of
    valid ones."""
    problems = []
    tables: list[tuple[str, tuple[str, ...], dict[str, Any]]] = [
        ("track", (goal.track,) if goal.track else (), bank.tracks),
        ("company", goal.companies, bank.companies),
        ("topic", goal.topics, bank.topics),
        ("topic", goal.dropped, bank.topics),
    ]
    for what, keys, table in tables:
        for key in keys:
            if key not in table:
                problems.append(
                    f"unknown {what} {key!r}{suggest(key, table)}; the {what} keys are: "
                    f"{', '.join(sorted(table))}"
                )
    return list(dict.fromkeys(problems))


class PlanError(ValueError):
    """A goal that cannot be set; the message says why, for the user."""


EXAMPLE = "quizzer plan --date 2027-01-15 --track inference --company bytedance --minutes 45"


def make_goal(
    bank: Bank, current: StudyGoal | None, changes: dict[str, Any], now: datetime
) -> StudyGoal:
    """``current`` with ``changes`` applied (StudyGoal field -> value; a new goal when
    ``current`` is None), checked: the date not past, every key known. Raises PlanError."""
    from pydantic import ValidationError

    when = changes.get("date")
    if isinstance(when, date) and when < now.astimezone().date():
        raise PlanError(f"the interview date {when} has already passed")
    if isinstance(when, date) and "review_days" not in changes:
        # A week of review only, or half the days left when fewer than two weeks remain.
        left = (when - now.astimezone().date()).days
        changes = {**changes, "review_days": min(DEFAULT_REVIEW_DAYS, left // 2)}
    if current is None and when is None:
        raise PlanError(f"a new plan needs a date; for example: {EXAMPLE}")
    try:
        goal = StudyGoal.model_validate({**(current.to_json() if current else {}), **changes})
    except ValidationError as exc:
        messages = []
        for err in exc.errors():
            where = ".".join(str(part) for part in err["loc"])
            text = err["msg"].removeprefix("Value error, ")
            messages.append(f"{where}: {text}" if where else text)
        raise PlanError("; ".join(messages)) from None
    problems = goal_problems(bank, goal)
    if problems:
        raise PlanError("\n".join(problems))
    return goal


@dataclass(frozen=True)
class Cut:
    """The topics a plan that does not fit proposes to drop, least asked first."""

    topics: list[TopicScope]
    saved: dict[str, int]
    """Topic -> the questions never seen that dropping it saves."""
    shortfall: int
    """Questions that would not be introduced in time without the cut."""

    @property
    def questions_saved(self) -> int:
        """Questions the whole cut saves."""
        return sum(self.saved.values())


@dataclass
class Sizing:
    """How the remaining work spreads over the days left."""

    days_left: int
    review_days: int
    """Days kept for review only before the date (fewer than the goal's when time is short)."""
    intro_days: int
    """Days, from today, on which new questions are introduced."""
    in_scope: list[AnyQuestion]
    """In-scope questions that are not suspended, in introduction order."""
    seen: set[str]
    """In-scope questions already reviewed at least once."""
    unseen: list[AnyQuestion]
    """In-scope questions never reviewed, in introduction order."""
    done_today: int
    """In-scope questions introduced today."""
    needed_quota: int
    quota: int
    pace: Pace
    load: Load
    """The daily minutes at ``quota``."""
    needed_load: Load
    """The daily minutes at ``needed_quota``."""
    today: date
    cut: Cut | None = None

    @property
    def fits(self) -> bool:
        """Whether every in-scope question can be introduced in time within the minutes."""
        if self.intro_days <= 0:
            return not self.unseen
        return self.quota >= self.needed_quota

    @property
    def new_today(self) -> int:
        """New questions still to introduce today."""
        return min(len(self.unseen), max(0, self.quota - self.done_today))

    @property
    def review_from(self) -> date | None:
        """The first review-only day (None when no day is kept)."""
        if self.review_days <= 0:
            return None
        return self.today + timedelta(days=self.days_left - self.review_days)


def size_plan(bank: Bank, store: Store, goal: StudyGoal, now: datetime) -> Sizing:
    """Today's quota of new questions, so every in-scope question is introduced before the
    review-only days, cut down to what fits the minutes per day (with the cut that would make
    the rest fit)."""
    scope = scope_for(bank, goal)
    cards = store.cards()
    in_scope = [q for q in scope.order if not ((row := cards.get(q.id)) and row.suspended)]
    seen = {q.id for q in in_scope if (row := cards.get(q.id)) and row.last_review is not None}
    today_ids = store.new_ids_since(iso(start_of_day(now)))
    done_today = sum(1 for q in in_scope if q.id in today_ids)
    unseen = [q for q in in_scope if q.id not in seen]
    days_left = goal.days_left(now)
    review_days = min(goal.review_days, max(days_left, 0))
    intro_days = days_left - review_days
    to_introduce = len(unseen) + done_today
    needed = math.ceil(to_introduce / intro_days) if intro_days > 0 else 0
    base = stored_setting(store, "desired_retention")
    projection = Projection(goal, settings_from_store(store, now), now, base)
    existing = projection.existing(store)
    pace = review_pace(store)

    def load(quota: int) -> Load:
        return daily_load(projection, existing, pace, quota, len(unseen), done_today, intro_days)

    needed_load = load(needed)
    quota, quota_load = needed, needed_load
    if needed_load.busiest_week > goal.minutes_per_day:
        low, high = 0, needed - 1  # the largest quota that fits, if any
        quota, quota_load = 0, load(0)
        while low <= high:
            middle = (low + high) // 2
            trial = load(middle)
            if trial.busiest_week <= goal.minutes_per_day:
                quota, quota_load, low = middle, trial, middle + 1
            else:
                high = middle - 1
    sizing = Sizing(
        days_left=days_left,
        review_days=review_days,
        intro_days=intro_days,
        in_scope=in_scope,
        seen=seen,
        unseen=unseen,
        done_today=done_today,
        needed_quota=needed,
        quota=quota,
        pace=pace,
        load=quota_load,
        needed_load=needed_load,
        today=now.astimezone().date(),
    )
    if not sizing.fits and intro_days > 0:
        introduced = sum(introductions(quota, len(unseen), done_today, intro_days))
        sizing.cut = propose_cut(scope, unseen, len(unseen) - introduced)
    return sizing


def propose_cut(scope: Scope, unseen: list[AnyQuestion], shortfall: int) -> Cut:
    """The least-asked topics (lightest first; of equal weight, the one introduced last) whose
    unseen questions cover ``shortfall``."""
    waiting: dict[str, int] = {}
    for q in unseen:
        waiting[q.topics[0]] = waiting.get(q.topics[0], 0) + 1
    chosen: list[TopicScope] = []
    saved: dict[str, int] = {}
    for topic in sorted(reversed(scope.topics.values()), key=lambda t: t.weight):
        if sum(saved.values()) >= shortfall:
            break
        if waiting.get(topic.key):
            chosen.append(topic)
            saved[topic.key] = waiting[topic.key]
    return Cut(chosen, saved, shortfall)


def active_goal(bank: Bank, store: Store, now: datetime) -> StudyGoal | None:
    """The saved goal while its date is ahead (or today) and the bank knows its keys."""
    goal = store.study_goal()
    if goal is None or not goal.active(now) or goal_problems(bank, goal):
        return None
    return goal


def new_order(bank: Bank, goal: StudyGoal) -> list[AnyQuestion]:
    """Every question in the order new ones come under ``goal``: the in-scope ones in plan
    order, then the rest easiest first (for filtered sessions that reach past the scope)."""
    first = scope_for(bank, goal).order
    placed = {q.id for q in first}
    return first + [q for q in bank.easiest_first() if q.id not in placed]


def new_room(bank: Bank, store: Store, goal: StudyGoal, now: datetime) -> int:
    """How many new questions today's quota still allows."""
    return size_plan(bank, store, goal, now).new_today


def readiness(
    bank: Bank, store: Store, goal: StudyGoal, sizing: Sizing, now: datetime
) -> dict[str, float]:
    """Question id -> FSRS recall probability on the morning of the interview, for every
    in-scope question (0 for one never reviewed): where each would stand if study stopped now."""
    scheduler = make_scheduler(settings_from_store(store, now))
    moment = interview_morning(goal.date, now)
    cards = store.cards()
    result = {}
    for q in sizing.in_scope:
        row = cards.get(q.id)
        result[q.id] = (
            0.0
            if row is None
            else recall_probability(scheduler, row.stability, row.last_review, moment)
        )
    return result


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def today_list(
    bank: Bank, store: Store, sizing: Sizing, now: datetime
) -> tuple[list[str], list[str]]:
    """Ids due now (as the queue orders them) and the new ones today's quota brings."""
    due = [q.id for q in due_reviews(bank, store, now)]
    taken = store.taken_ids(iso(now))
    new = [q.id for q in sizing.unseen if q.id not in taken][: sizing.new_today]
    return due, new


def topic_rows(
    bank: Bank, scope: Scope, sizing: Sizing, recall: dict[str, float]
) -> list[dict[str, Any]]:
    """One row per topic with in-scope questions, in plan order: its titles and weights, how
    many questions it has and how many are never seen, and its mean readiness."""
    by_topic: dict[str, list[str]] = {}
    for q in sizing.in_scope:
        by_topic.setdefault(q.topics[0], []).append(q.id)
    waiting = {q.id for q in sizing.unseen}
    topics = []
    for key, scoped in scope.topics.items():
        ids = by_topic.get(key, [])
        if not ids:
            continue
        topic = bank.topics[key]
        topics.append(
            {
                "key": key,
                "title_en": topic.title_en,
                "title_zh": topic.title_zh,
                "asked": scoped.asked,
                "track_weight": scoped.track_weight,
                "weight": scoped.weight,
                "band": scoped.band,
                "questions": len(ids),
                "unseen": sum(1 for qid in ids if qid in waiting),
                "readiness": _mean([recall[qid] for qid in ids]),
            }
        )
    return topics


def _cut_json(cut: Cut | None) -> dict[str, Any] | None:
    """The proposed cut as the report shows it (None when the plan fits)."""
    if cut is None:
        return None
    return {
        "shortfall": cut.shortfall,
        "questions_saved": cut.questions_saved,
        "topics": [
            {"key": t.key, "asked": t.asked, "weight": t.weight, "saved": cut.saved[t.key]}
            for t in cut.topics
        ],
    }


def plan_report(bank: Bank, store: Store, goal: StudyGoal, now: datetime) -> dict[str, Any]:
    """Everything `quizzer plan --json` prints and the Plan screen shows."""
    scope = scope_for(bank, goal)
    sizing = size_plan(bank, store, goal, now)
    recall = readiness(bank, store, goal, sizing, now)
    companies = {
        key: _mean([recall[qid] for qid in ids if qid in recall])
        for key, ids in scope.company_ids.items()
    }
    due, new = today_list(bank, store, sizing, now)
    track = bank.tracks.get(goal.track) if goal.track else None
    return {
        "goal": goal.to_json(),
        "now": iso(now),
        "today": now.astimezone().date().isoformat(),
        "days_left": sizing.days_left,
        "active": goal.active(now),
        "track_title": track.title_en if track else None,
        "company_names": {key: bank.companies[key].name_en for key in goal.companies},
        "review_only_from": sizing.review_from.isoformat() if sizing.review_from else None,
        "introduction_days": max(0, sizing.intro_days),
        "in_scope": len(sizing.in_scope),
        "introduced": len(sizing.seen),
        "unseen": len(sizing.unseen),
        "introduced_today": sizing.done_today,
        "daily_new_quota": sizing.quota,
        "needed_new_quota": sizing.needed_quota,
        "new_today": sizing.new_today,
        "fits": sizing.fits,
        "minutes_per_day": goal.minutes_per_day,
        "minutes_per_review": sizing.pace.minutes,
        "pace_from_reviews": sizing.pace.timed_reviews,
        "busiest_week_minutes": sizing.load.busiest_week,
        "needed_busiest_week_minutes": sizing.needed_load.busiest_week,
        "minutes_by_day": sizing.load.minutes,
        "desired_retention_now": settings_from_store(store, now).desired_retention,
        "cut": _cut_json(sizing.cut),
        "readiness": {"overall": _mean(list(recall.values())), "companies": companies},
        "topics": topic_rows(bank, scope, sizing, recall),
        "today_due": due,
        "today_new": new,
    }


def summary_line(report: dict[str, Any]) -> str:
    """One line for the dashboard: countdown, today's new, readiness, and whether it fits."""
    goal = report["goal"]
    if not report["active"]:
        return f"Plan: the interview date {goal['date']} has passed (p to set a new one)"
    names = report["company_names"]
    aim = " · ".join([*names.values(), *([report["track_title"]] if goal["track"] else [])])
    parts = [
        f"Plan: {aim or ', '.join(goal['topics'])}",
        f"{report['days_left']} days left",
        f"{report['new_today']} new today",
        f"ready {report['readiness']['overall']:.0%}",
    ]
    if not report["fits"]:
        parts.append("does not fit: see the plan (p)")
    return " · ".join(parts)
