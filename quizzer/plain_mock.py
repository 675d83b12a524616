"""The line-mode mock interview: timed, no answers shown until the report."""

from __future__ import annotations

import sys
from typing import TextIO

from quizzer import clock
from quizzer.answers import AnswerError
from quizzer.bank import Bank
from quizzer.mock import MockPlan, deadline_passed, mock_report, mock_report_text
from quizzer.models import RecallQuestion
from quizzer.plain import _read, ask_grade, question_body
from quizzer.scheduling import Grade
from quizzer.session import Current, Outcome, StudySession
from quizzer.store import Store


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
    """Ask the plan's questions until done or out of time, then self-rate recall answers and
    print the report."""
    inp, out = stdin or sys.stdin, stdout or sys.stdout
    name = bank.companies[plan.company].name_en
    session = StudySession(bank, store, plan.questions, mode="mock", company=plan.company)
    started = clock.now()
    out.write(
        f"Mock interview: {name}, {len(plan.questions)} question(s), {minutes:g} minute(s).\n"
        "Answers are shown in the report at the end.\n"
    )
    pending: list[tuple[Current, Outcome]] = []
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
            f"\n[{session.position + len(pending) + 1}/{session.total}] "
            f"⏱ {int(left // 60):02d}:{int(left % 60):02d} left · {current.question.kind}\n"
        )
        out.write(question_body(current, lang))
        outcome = None
        while outcome is None:
            line = _read(inp, "answer> ", out)
            if line is None:
                ended_by_input = True
                break
            try:
                outcome = session.submit(line)
            except AnswerError as exc:
                out.write(f"? {exc}\n")
        if outcome is None:
            break
        if isinstance(current.question, RecallQuestion):
            # Self-rated at the end, once the model answer can be shown.
            pending.append((current, outcome))
            session.current = None
            continue
        session.rate(outcome.suggested)
        out.write("noted\n")
    for current, outcome in pending:
        q = current.question
        assert isinstance(q, RecallQuestion)
        out.write(f"\nYour answer to {q.id}: {current.answer or '(blank)'}\n")
        out.write("Model answer key points:\n" + "\n".join(f"  - {p}" for p in q.key_points) + "\n")
        default = Grade.GOOD if outcome.answered else Grade.AGAIN
        grade = default
        if not ended_by_input:
            asked = ask_grade(inp, out, f"Rate yourself 1-4 [Enter = {default.label}]> ", default)
            if asked is None:
                ended_by_input = True
            else:
                grade = asked
        session.current = current
        session.rate(grade)
    session.finish()
    out.write(mock_report_text(mock_report(bank, store, session, plan.company), bank) + "\n")
    return session
