"""One open question in a study session: what is asked (Current), how a typed answer is
checked (check_answer), what the check says (Outcome) and the review it becomes (Rated).

StudySession (quizzer.study.session) drives these for the plain drill, the TUI and mock
interviews, so an answer is checked the same way everywhere. No UI and no saving here.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from fsrs import Card

from quizzer.content.language import localise
from quizzer.content.models import (
    OPTION_LETTERS,
    AnyQuestion,
    ChoiceQuestion,
    CodeQuestion,
    NumericQuestion,
    RecallQuestion,
)
from quizzer.grading.answers import AnswerError
from quizzer.grading.calc import Attempt, grade
from quizzer.progress.scheduling import Grade
from quizzer.study.exercise import ExerciseWork


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


def check_answer(current: Current, text: str, intervals: dict[Grade, str]) -> Outcome:
    """The outcome of answering ``current`` with ``text`` (stripped), offered with the
    ``intervals`` each rating would give. Raises AnswerError when the text cannot be
    understood; a code exercise is judged by its finished attempt, whatever was typed."""
    q = current.question
    everything = tuple(Grade)
    if isinstance(q, CodeQuestion):
        # What was typed does not matter: the attempt's checks and hints decide, and every
        # rating is offered, as for recall (see quizzer.study.exercise).
        work = current.work
        assert work is not None and work.finished, "pass the checks or give up first"
        return Outcome(
            work.passed, work.message(), None, work.suggested(), everything, intervals, True
        )
    if not text:
        # Revealing a recall question without typing is the normal way to self-grade; a
        # choice or numeric question left blank is a miss, rated Again like a wrong answer.
        allowed = everything if isinstance(q, RecallQuestion) else (Grade.AGAIN,)
        return Outcome(None, "not answered", None, Grade.AGAIN, allowed, intervals, False)
    if isinstance(q, ChoiceQuestion):
        picked = parse_choice(text, q)
        right = picked == set(q.correct)
        correct_text = ", ".join(q.correct)
        message = "correct" if right else f"wrong: the answer is {correct_text}"
        return _auto(right, message, None, intervals)
    if isinstance(q, NumericQuestion):
        assert current.attempt is not None
        verdict = grade(current.attempt, text)
        return _auto(verdict.correct, verdict.message, verdict.hint, intervals)
    return Outcome(
        None, "compare with the model answer", None, Grade.GOOD, everything, intervals, True
    )


def _auto(right: bool, message: str, hint: str | None, intervals: dict[Grade, str]) -> Outcome:
    """An auto-graded answer's outcome: right suggests Good and allows every rating; wrong
    allows Again alone."""
    if right:
        return Outcome(True, message, hint, Grade.GOOD, tuple(Grade), intervals, True)
    return Outcome(False, message, hint, Grade.AGAIN, (Grade.AGAIN,), intervals, True)
