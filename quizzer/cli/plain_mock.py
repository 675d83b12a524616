"""The line-mode mock interview: timed, no answers shown until the report."""

from __future__ import annotations

import sys
from typing import TextIO

from quizzer.base import clock
from quizzer.cli.plain_drill import question_body
from quizzer.cli.plain_io import ask_grade, read_line
from quizzer.content.bank import Bank
from quizzer.content.models import RecallQuestion
from quizzer.content.render import model_answer_lines
from quizzer.grading.answers import AnswerError
from quizzer.progress.store import Store
from quizzer.study.mock import MockPlan, MockRatings, deadline_passed, mock_report, mock_report_text
from quizzer.study.session import Current, StudySession

MOCK_COMMANDS = ":quit"


def self_rating_text(current: Current, lang: str) -> str:
    """A recall answer beside the model answer and key points, for the self-rating."""
    q = current.question
    assert isinstance(q, RecallQuestion)
    lines = [
        f"\n{q.id}: " + current.prompt(lang).strip().splitlines()[0],
        "Your answer: " + (current.answer or "(blank)"),
        *model_answer_lines(q, lang),
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
    ended_by_input = False
    while True:
        if deadline_passed(started, minutes, clock.now()):
            out.write("\n⏱ Time is up.\n")
            break
        current = session.next()
        if current is None:
            break
        left = max(0.0, minutes * 60 - (clock.now() - started).total_seconds())
        out.write(
            f"\n[{session.position + len(ratings.pending) + 1}/{session.total}] "
            f"⏱ {int(left // 60):02d}:{int(left % 60):02d} left · {current.question.kind}\n"
        )
        out.write(question_body(current, lang))
        outcome = None
        quit_now = False
        while outcome is None:
            line = read_line(inp, "answer> ", out)
            if line is None:
                ended_by_input = True
                break
            command = line.strip().lower()
            if command == ":quit":
                quit_now = True
                break
            if command in (":undo", ":suspend", ":bury"):
                out.write(f"? {command} is not available in a mock; {MOCK_COMMANDS} ends it\n")
                continue
            if current.work is not None:  # the code exercise: checks, hints, :skip
                from quizzer.cli.plain_exercise import exercise_line

                outcome = exercise_line(session, current.work, line, out, lang)
                continue
            try:
                outcome = session.submit(line)
            except AnswerError as exc:
                out.write(f"? {exc}\n")
        if outcome is None:
            session.leave_current()  # the open question is left unanswered and unsaved
            if quit_now:
                out.write("Interview ended.\n")
            break
        ratings.answered(outcome)
        out.write("noted\n")
    if ratings.pending and not ended_by_input:
        out.write(
            f"\nRate your {len(ratings.pending)} recall answer(s) against the model answer "
            f"({MOCK_COMMANDS} stops; what is left is not saved).\n"
        )
    while not ended_by_input:
        current = ratings.next_to_rate()
        if current is None:
            break
        out.write(self_rating_text(current, lang))
        default = ratings.suggestion(current)
        grade = ask_grade(inp, out, f"Rate yourself 1-4 [Enter = {default.label}]> ", default)
        if grade is None:
            break
        ratings.rate(grade)
    unrated = ratings.stop()
    session.finish()
    report = mock_report(bank, store, session, plan.company, unrated)
    out.write(mock_report_text(report, bank) + "\n")
    return session
