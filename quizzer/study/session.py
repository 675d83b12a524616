"""The study queue and one question's phases: present → submit → rate. No UI here.

The plain drill, the TUI and mock interviews all drive this module, so grading and
scheduling behave the same everywhere.
"""

from __future__ import annotations

import dataclasses
import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from fsrs import Card, Scheduler

from quizzer.base import clock
from quizzer.content.bank import Bank
from quizzer.content.language import localise
from quizzer.content.models import (
    OPTION_LETTERS,
    AnyQuestion,
    ChoiceQuestion,
    CodeQuestion,
    NumericQuestion,
    RecallQuestion,
)
from quizzer.content.views import matches
from quizzer.grading.answers import AnswerError
from quizzer.grading.calc import Attempt, grade, prepare
from quizzer.progress.attempts import Attempts
from quizzer.progress.scheduling import (
    Grade,
    SchedulerSettings,
    format_interval,
    make_scheduler,
    new_card,
    preview,
    recall_probability,
    retrievability,
    review,
)
from quizzer.progress.settings import scheduler_settings, stored_setting
from quizzer.progress.store import Store
from quizzer.study.exercise import ExerciseWork

DEFAULT_NEW_PER_DAY = 15


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


def due_queue(
    bank: Bank,
    store: Store,
    now: datetime,
    filters: Filters | None = None,
    *,
    limit: int | None = None,
    due_only: bool = False,
    new_only: bool = False,
    new_per_day: int | None = None,
    scheduler: Scheduler | None = None,
) -> list[AnyQuestion]:
    """Due reviews first (lowest retrievability first), then new questions up to the daily
    limit, then cut to ``limit``. New questions come easiest first, or, while a study plan is
    active, in the plan's order up to its daily quota (quizzer.study.plan; an explicit
    ``new_per_day`` still overrides the quota). No card is deserialized."""
    scheduler = scheduler or make_scheduler(settings_from_store(store, now))
    now_iso = clock.iso(now)
    check = filters is not None and filters != Filters()
    due: list[tuple[float, str, AnyQuestion]] = []
    if not new_only:
        for question_id, stability, last_review in store.due_rows(now_iso):
            q = bank.by_id.get(question_id)
            if q is None or (check and not filters.accepts(bank, q)):  # type: ignore[union-attr]
                continue
            due.append((recall_probability(scheduler, stability, last_review, now), question_id, q))
        due.sort(key=lambda item: (item[0], item[1]))
    queue: list[AnyQuestion] = [q for _, _, q in due]
    if not due_only:
        from quizzer.study.plan import active_goal, new_order, new_room

        goal = active_goal(bank, store, now)
        # New questions come easiest first (definitions before trade-offs), in bank order
        # within a difficulty, so a fresh start builds up rather than opening on a level 5.
        order = bank.easiest_first() if goal is None else new_order(bank, goal)
        if goal is not None and new_per_day is None:
            room = new_room(bank, store, goal, now)
        else:
            if new_per_day is None:
                new_per_day = stored_setting(store, "new_per_day")
            room = max(0, new_per_day - new_introduced_today(store, now))
        if room:
            taken = store.taken_ids(now_iso)
            added = 0
            for q in order:
                if added >= room:
                    break
                if q.id not in taken and (not check or filters.accepts(bank, q)):  # type: ignore[union-attr]
                    queue.append(q)
                    added += 1
    return queue[:limit] if limit is not None else queue


@dataclass
class Outcome:
    """What happened when the user submitted an answer."""

    correct: bool | None
    """True/False for auto-graded answers; None for recall or when nothing was typed."""
    message: str
    hint: str | None
    suggested: Grade
    allowed: tuple[Grade, ...]
    """The ratings that apply; front ends offer only these. A choice or numeric answer that is
    wrong or blank allows Again alone."""
    intervals: dict[Grade, str]
    answered: bool
    """False when the user submitted an empty answer (revealed without trying)."""

    @property
    def why_limited(self) -> str:
        """Why only some ratings are offered ('' when all four are)."""
        if set(self.allowed) == set(Grade):
            return ""
        if not self.answered:
            return "a blank answer is rated again"
        return "a wrong answer is rated again"


@dataclass
class Current:
    """The question being asked now."""

    question: AnyQuestion
    card: Card
    attempt: Attempt | None
    """The drawn parameters, for numeric questions."""
    edited: bool
    """The question changed since the user last reviewed it."""
    leech: bool = False
    """The question has lapsed often enough to be a leech."""
    started: float = field(default_factory=time.monotonic)
    answered_at: float | None = None
    """When the answer was submitted (time.monotonic), for ratings given later (a mock)."""
    answer: str | None = None
    outcome: Outcome | None = None
    work: ExerciseWork | None = None
    """The attempt, for code exercises."""
    checked: frozenset[int] | None = None
    """The key points (0-based) the user ticked as got, for a recall answer; None until the
    checklist is used (then nothing about key points is saved with the review)."""

    def prompt(self, lang: str = "en") -> str:
        """The prompt text in ``lang`` (falls back to English), with numbers drawn."""
        text = localise(self.question, lang).prompt
        return self.attempt.prompt(text) if self.attempt else text


@dataclass
class Rated:
    """A saved review."""

    review_id: int
    question: AnyQuestion
    grade: Grade
    correct: bool | None
    duration_ms: int
    next_due: datetime
    set_aside: Path | None = None
    """A code exercise's attempt file, moved to past/ (undo brings it back)."""


def parse_choice(text: str, q: ChoiceQuestion) -> set[str]:
    """Letters or option numbers: 'B', 'b', '2', 'A,C', '1 3'. Raises AnswerError."""
    allowed = OPTION_LETTERS[: len(q.options)]
    picked = set()
    for token in re.split(r"[\s,;/+]+", text.strip()):
        if not token:
            continue
        letter = token.upper()
        if token.isdigit() and 1 <= int(token) <= len(q.options):
            letter = allowed[int(token) - 1]
        if len(letter) != 1 or letter not in allowed:
            raise AnswerError(
                f"pick an option: a letter {allowed[0]}–{allowed[-1]} "
                f"or a number 1–{len(q.options)}"
            )
        picked.add(letter)
    return picked


class StudySession:
    """A run through a list of questions: ask, grade, rate, save, undo."""

    def __init__(
        self,
        bank: Bank,
        store: Store,
        questions: list[AnyQuestion],
        *,
        mode: str = "drill",
        filters: Filters = Filters(),
        company: str | None = None,
        record_session: bool = True,
        attempts: Attempts | None = None,
    ) -> None:
        self.bank = bank
        self.store = store
        self.queue = list(questions)
        self.total = len(questions)
        self.mode = mode
        self.scheduler = make_scheduler(settings_from_store(store))
        self.current: Current | None = None
        self.done: list[Rated] = []
        self.session_id = (
            store.start_session(mode, filters.as_dict(), clock.now(), company)
            if record_session
            else None
        )
        self.started_at = clock.now()
        self.seeds: dict[str, int] = {}
        self.attempts = attempts
        """Where code exercise attempts are kept (default: paths.exercises_dir())."""

    # flow ------------------------------------------------------------------------------

    def next(self, seed: int | None = None) -> Current | None:
        """Present the next question, or None when the session is over."""
        if not self.queue:
            self.current = None
            return None
        q = self.queue.pop(0)
        now = clock.now()
        row = self.store.card(q.id)
        card = row.card if row else new_card(now)
        attempt = (
            prepare(q, seed, bank_root=self.bank.root) if isinstance(q, NumericQuestion) else None
        )
        edited = bool(row and row.content_hash and row.content_hash != self.bank.content_hash(q))
        self.current = Current(q, card, attempt, edited, leech=bool(row and row.leech))
        if isinstance(q, CodeQuestion):
            self.attempts = self.attempts or Attempts()
            self.current.work = ExerciseWork(q, self.attempts)
        return self.current

    def intervals(self, card: Card | None = None) -> dict[Grade, str]:
        """The interval each rating would give the current card."""
        assert self.current is not None
        previewed = preview(self.scheduler, card or self.current.card, clock.now())
        return {g: format_interval(delta) for g, delta in previewed.items()}

    def submit(self, text: str) -> Outcome:
        """Grade what the user typed. Raises AnswerError when it cannot be understood
        (the question stays open; nothing is recorded)."""
        current = self.current
        assert current is not None, "no question is open"
        q = current.question
        text = text.strip()
        intervals = self.intervals()
        everything = tuple(Grade)
        if isinstance(q, CodeQuestion):
            # What was typed does not matter: the attempt's checks and hints decide, and every
            # rating is offered, as for recall (see quizzer.study.exercise).
            work = current.work
            assert work is not None and work.finished, "pass the checks or give up first"
            text = work.answer_text()
            outcome = Outcome(
                work.passed, work.message(), None, work.suggested(), everything, intervals, True
            )
        elif not text:
            # Revealing a recall question without typing is the normal way to self-grade; a
            # choice or numeric question left blank is a miss, rated Again like a wrong answer.
            allowed = everything if isinstance(q, RecallQuestion) else (Grade.AGAIN,)
            outcome = Outcome(None, "not answered", None, Grade.AGAIN, allowed, intervals, False)
        elif isinstance(q, ChoiceQuestion):
            picked = parse_choice(text, q)
            right = picked == set(q.correct)
            correct_text = ", ".join(q.correct)
            message = "correct" if right else f"wrong: the answer is {correct_text}"
            outcome = self._auto(right, message, None, intervals)
        elif isinstance(q, NumericQuestion):
            assert current.attempt is not None
            verdict = grade(current.attempt, text)
            outcome = self._auto(verdict.correct, verdict.message, verdict.hint, intervals)
        else:
            outcome = Outcome(
                None, "compare with the model answer", None, Grade.GOOD, everything, intervals, True
            )
        current.answer = text
        current.outcome = outcome
        current.answered_at = time.monotonic()
        return outcome

    def check_points(self, got: frozenset[int]) -> Grade:
        """Record which key points of the revealed recall answer the user got (0-based); they
        are saved with its rating. The suggested rating follows them (quizzer.study.selfgrade:
        none → Again, some → Hard, all → Good) and is returned."""
        from quizzer.study.selfgrade import suggest_rating

        current = self.current
        assert current is not None and current.outcome is not None, "submit an answer first"
        q = current.question
        if not isinstance(q, RecallQuestion):
            raise ValueError(f"{q.id} is not a recall question: it has no key points")
        if any(not 0 <= index < len(q.key_points) for index in got):
            raise ValueError(f"{q.id} has {len(q.key_points)} key points")
        current.checked = frozenset(got)
        current.outcome.suggested = suggest_rating(len(current.checked), len(q.key_points))
        return current.outcome.suggested

    @staticmethod
    def _auto(right: bool, message: str, hint: str | None, intervals: dict[Grade, str]) -> Outcome:
        if right:
            return Outcome(True, message, hint, Grade.GOOD, tuple(Grade), intervals, True)
        return Outcome(False, message, hint, Grade.AGAIN, (Grade.AGAIN,), intervals, True)

    def rate(self, grade_: Grade | None = None, *, until_answered: bool = False) -> Rated:
        """Save the review with ``grade_`` (default: the suggestion). A grade outside
        ``outcome.allowed`` (front ends offer only those) falls back to the suggestion, so a
        wrong or blank auto-graded answer is always Again. The time spent runs to now, or to
        the moment of the answer with ``until_answered`` (a rating given later, in a mock).
        Committed before this returns."""
        current = self.current
        assert current is not None and current.outcome is not None, "submit an answer first"
        outcome = current.outcome
        chosen = grade_ or outcome.suggested
        if chosen not in outcome.allowed:
            chosen = outcome.suggested
        now = clock.now()
        work = current.work
        before = current.card
        after = review(self.scheduler, before, chosen, now)
        end = current.answered_at if until_answered and current.answered_at else time.monotonic()
        duration = int((end - current.started) * 1000)
        missed = None
        if current.checked is not None and isinstance(current.question, RecallQuestion):
            from quizzer.study.selfgrade import missed_texts

            missed = missed_texts(current.question, current.checked)
        review_id = self.store.record_review(
            question_id=current.question.id,
            before=before,
            after=after,
            rating=int(chosen),
            reviewed_at=now,
            answer=current.answer,
            correct=outcome.correct,
            duration_ms=duration,
            seed=current.attempt.seed if current.attempt else (work.seed if work else None),
            session_id=self.session_id,
            retrievability=retrievability(self.scheduler, before, now),
            content_hash=self.bank.content_hash(current.question),
            mode=self.mode,
            missed_points=missed,
        )
        rated = Rated(review_id, current.question, chosen, outcome.correct, duration, after.due)
        self.done.append(rated)
        if current.attempt is not None:
            self.seeds[current.question.id] = current.attempt.seed
        if work is not None:
            rated.set_aside = work.set_aside(now)  # the next review starts from a fresh starter
        self.current = None
        return rated

    def undo(self) -> AnyQuestion | None:
        """Take back the last rating of this session; that question comes up again next."""
        if not self.done:
            return None
        last = self.done.pop()
        self.store.undo_review(last.review_id)
        if last.set_aside is not None and self.attempts is not None:
            self.attempts.restore(last.question.id, last.set_aside)
        if self.current is not None:
            self.queue.insert(0, self.current.question)
        self.queue.insert(0, last.question)
        self.current = None
        return last.question

    def suspend_current(self) -> AnyQuestion | None:
        """Suspend the open question (it leaves every queue until unsuspended)."""
        if self.current is None:
            return None
        q = self.current.question
        self.store.set_suspended(q.id, True, clock.now())
        self.total -= 1
        self.current = None
        return q

    def bury_current(self) -> AnyQuestion | None:
        """Hide the open question until tomorrow."""
        if self.current is None:
            return None
        q = self.current.question
        now = clock.now()
        self.store.bury(q.id, start_of_day(now) + timedelta(days=1), now)
        self.total -= 1
        self.current = None
        return q

    def leave_current(self) -> AnyQuestion | None:
        """Drop the open question unanswered: nothing is saved for it, and it is not asked
        again in this session. Returns its question, or None when none was open."""
        if self.current is None:
            return None
        q = self.current.question
        self.current = None
        return q

    def finish(self) -> None:
        """Record the session's end."""
        if self.session_id is not None:
            self.store.end_session(self.session_id, clock.now())

    # summary ---------------------------------------------------------------------------

    @property
    def position(self) -> int:
        """How many questions have been rated."""
        return len(self.done)

    def summary(self) -> dict[str, Any]:
        """Score, time and what to review, for the end-of-session screen."""
        graded = [r for r in self.done if r.correct is not None]
        right = sum(1 for r in graded if r.correct)
        again = [r.question for r in self.done if r.grade == Grade.AGAIN]
        articles: dict[str, str] = {}
        for q in again:
            title, url = self.bank.main_link(q)
            articles[q.articles[0] if q.articles else title] = url
        elapsed = (clock.now() - self.started_at).total_seconds()
        return {
            "rated": len(self.done),
            "graded": len(graded),
            "correct": right,
            "again": [q.id for q in again],
            "seconds": max(elapsed, sum(r.duration_ms for r in self.done) / 1000),
            "review_articles": articles,
        }
