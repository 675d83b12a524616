"""The study queue and one question's phases: present → submit → rate. No UI here.

The plain drill, the TUI and mock interviews all drive this module, so grading and
scheduling behave the same everywhere.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

from fsrs import Card

from quizzer.base import clock
from quizzer.content.bank import Bank
from quizzer.content.models import (
    AnyQuestion,
    CodeQuestion,
    NumericQuestion,
    RecallQuestion,
)
from quizzer.grading.calc import prepare
from quizzer.progress.attempts import Attempts
from quizzer.progress.scheduling import (
    Grade,
    format_interval,
    make_scheduler,
    new_card,
    preview,
    retrievability,
    review,
)
from quizzer.progress.store import Store
from quizzer.study.answering import Current, Outcome, Rated, check_answer, parse_choice
from quizzer.study.due import Filters, new_introduced_today, settings_from_store, start_of_day
from quizzer.study.exercise import ExerciseWork
from quizzer.study.queue import due_queue

__all__ = [
    "DEFAULT_NEW_PER_DAY",
    "Current",
    "Filters",
    "Outcome",
    "Rated",
    "StudySession",
    "due_queue",
    "new_introduced_today",
    "parse_choice",
    "settings_from_store",
    "start_of_day",
]

DEFAULT_NEW_PER_DAY = 15


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
        text = text.strip()
        outcome = check_answer(current, text, self.intervals())
        if isinstance(current.question, CodeQuestion):
            assert current.work is not None
            text = current.work.answer_text()
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
