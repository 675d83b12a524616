"""The line-mode mock interview: timed, no answers shown until the report."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import TextIO

from quizzer.base import clock
from quizzer.cli.plain_drill import question_body, submit_line
from quizzer.cli.plain_io import ask_grade, read_line
from quizzer.cli.plain_points import ask_key_points
from quizzer.content.bank import Bank
from quizzer.content.models import RecallQuestion
from quizzer.content.render import model_answer_lines
from quizzer.progress.store import Store
from quizzer.study.mock import MockPlan, MockRatings, deadline_passed, mock_report, mock_report_text
from quizzer.study.session import Current, Outcome, StudySession

MOCK_COMMANDS = ":quit"


def self_rating_text(current: Current, lang: str) -> str:
    """A recall answer beside the model answer and its key points, numbered as the key-point
    line counts them, for the self-rating."""
    q = current.question
    assert isinstance(q, RecallQuestion)
    lines = [
        f"\n{q.id}: " + current.prompt(lang).strip().splitlines()[0],
        "Your answer: " + (current.answer or "(blank)"),
        *model_answer_lines(q, lang, numbered=True),
    ]
    return "\n".join(lines) + "\n"


def run_plain_mock(
    bank: Bank,
    store: Store,
    plan: MockPlan,
    minutes: float,
    *,
    lang: str = "en",
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> StudySession:
    """Ask the plan's questions until done, out of time or :quit, then have the recall answers
    self-rated (MockRatings) and print the report. End of input stops at once, keeping what
    was rated."""
    inp, out = stdin or sys.stdin, stdout or sys.stdout
    name = bank.companies[plan.company].name_en
    session = StudySession(bank, store, plan.questions, mode="mock", company=plan.company)
    ratings = MockRatings(session)
    started = clock.now()
    out.write(
        f"Mock interview: {name}, {len(plan.questions)} question(s), {minutes:g} minute(s).\n"
        f"Answers are shown in the report at the end. {MOCK_COMMANDS} ends the interview.\n"
    )
    if plan.exercise_minutes:
        out.write(
            f"The last question is a code exercise (about {plan.exercise_minutes:g} minutes): "
            "you write it in a file and check it here.\n"
        )
    if not ask_questions(session, ratings, started, minutes, lang, inp, out):
        self_rate(ratings, lang, inp, out)
    unrated = ratings.stop()
    session.finish()
    report = mock_report(bank, store, session, plan.company, unrated)
    out.write(mock_report_text(report, bank) + "\n")
    return session


QUIT = "quit"
"""read_mock_answer: :quit ends the interview."""
END_OF_INPUT = "end of input"
"""read_mock_answer: the input ended (nothing more is asked, not even the self-rating)."""


def ask_questions(
    session: StudySession,
    ratings: MockRatings,
    started: datetime,
    minutes: float,
    lang: str,
    inp: TextIO,
    out: TextIO,
) -> bool:
    """Ask the questions until they or the time run out, or :quit; each answer is graded and
    noted (MockRatings), none is shown. True when the input ended."""
    while not deadline_passed(started, minutes, clock.now()):
        current = session.next()
        if current is None:
            return False
        left = max(0.0, minutes * 60 - (clock.now() - started).total_seconds())
        out.write(
            f"\n[{session.position + len(ratings.pending) + 1}/{session.total}] "
            f"⏱ {int(left // 60):02d}:{int(left % 60):02d} left · {current.question.kind}\n"
        )
        out.write(question_body(current, lang))
        outcome = read_mock_answer(session, current, inp, out, lang)
        if not isinstance(outcome, Outcome):
            session.leave_current()  # the open question is left unanswered and unsaved
            if outcome == QUIT:
                out.write("Interview ended.\n")
            return outcome == END_OF_INPUT
        ratings.answered(outcome)
        out.write("noted\n")
    out.write("\n⏱ Time is up.\n")
    return False


def read_mock_answer(
    session: StudySession, current: Current, inp: TextIO, out: TextIO, lang: str
) -> Outcome | str:
    """Read lines until the answer is graded (its Outcome); QUIT on :quit, END_OF_INPUT at
    the end of input. The drill's :undo, :suspend and :bury are refused."""
    while True:
        line = read_line(inp, "answer> ", out)
        if line is None:
            return END_OF_INPUT
        command = line.strip().lower()
        if command == ":quit":
            return QUIT
        if command in (":undo", ":suspend", ":bury"):
            out.write(f"? {command} is not available in a mock; {MOCK_COMMANDS} ends it\n")
            continue
        outcome = submit_line(session, current, line, out, lang)
        if outcome is not None:
            return outcome


def self_rate(ratings: MockRatings, lang: str, inp: TextIO, out: TextIO) -> None:
    """Have each recall answer rated beside the model answer, as the plain drill rates one:
    a line of the key points got (saved with the rating; it sets the suggestion), then 1-4.
    Until none is left or the user stops (:quit or end of input: those left are not saved)."""
    if ratings.pending:
        out.write(
            f"\nRate your {len(ratings.pending)} recall answer(s) against the model answer "
            f"({MOCK_COMMANDS} stops; what is left is not saved).\n"
        )
    while (current := ratings.next_to_rate()) is not None:
        out.write(self_rating_text(current, lang))
        if not ask_key_points(inp, out, ratings.session):
            break
        default = ratings.suggestion(current)
        grade = ask_grade(inp, out, f"Rate yourself 1-4 [Enter = {default.label}]> ", default)
        if grade is None:
            break
        ratings.rate(grade)
