"""The line-mode drill: one line in for the answer, one for the key points a recall answer got
(quizzer.cli.plain_points; an empty line skips it), one for the rating.

For scripts, screen readers and tests. End of input ends the session cleanly; every rating
given so far is already committed.
"""

from __future__ import annotations

import sys
from typing import TextIO

from quizzer.cli.plain_io import ask_grade, read_line
from quizzer.content.bank import Bank
from quizzer.content.language import localise
from quizzer.content.models import (
    AnyQuestion,
    ChoiceQuestion,
    CodeQuestion,
    NumericQuestion,
    RecallQuestion,
)
from quizzer.content.render import answer_text, options_text
from quizzer.grading.answers import AnswerError
from quizzer.progress.scheduling import Grade
from quizzer.progress.store import Store, StoreError
from quizzer.study.session import Current, Outcome, StudySession

COMMANDS = ":undo :suspend :bury :quit (a code exercise also takes a file path, :hint, :skip)"


def header(bank: Bank, current: Current, index: int, total: int) -> str:
    """The line above a question: position, id, kind, difficulty, topics, companies."""
    q = current.question
    companies = ", ".join(bank.companies[key].name_en for key in q.company_keys)
    parts = [
        f"[{index}/{total}] {q.id}",
        f"{q.kind} · difficulty {q.difficulty}",
        "topics: " + ", ".join(q.topics),
    ]
    if companies:
        parts.append("asked at: " + companies)
    text = " · ".join(parts)
    if current.leech:
        text += "\n(leech: forgotten 8+ times; :suspend sets it aside)"
    if current.edited:
        text += "\n(this question was edited since your last review)"
    return text


def question_body(current: Current, lang: str) -> str:
    """The prompt, the options of a choice question, the unit hint of a numeric one; for a
    code exercise the task with its examples and the file to edit."""
    q = current.question
    if current.work is not None:
        from quizzer.cli.plain_exercise import exercise_intro

        return exercise_intro(current.work, lang)
    text = current.prompt(lang).rstrip() + "\n"
    if isinstance(q, ChoiceQuestion):
        text += options_text(q, lang) + "\n"
    if isinstance(q, NumericQuestion):
        text += f"(answer in {q.unit}, or give a unit)\n"
    return text


def reveal_text(bank: Bank, current: Current, outcome: Outcome, lang: str) -> str:
    """Verdict, the answer, and the explanation with links."""
    q = current.question
    mark = {True: "✓", False: "✗", None: "·"}[outcome.correct]
    lines = [f"{mark} {outcome.message}"]
    if outcome.hint:
        lines.append(f"  hint: {outcome.hint}")
    worked = ""
    if isinstance(q, NumericQuestion):
        assert current.attempt is not None
        worked = current.attempt.worked(localise(q, lang).worked).rstrip()
    elif isinstance(q, CodeQuestion):
        from quizzer.cli.plain_exercise import exercise_reveal

        worked = "\n".join(exercise_reveal(q, lang))
    lines.append(answer_text(bank, q, lang, worked=worked))
    return "\n".join(lines)


def rating_prompt(outcome: Outcome) -> str:
    """'Rate 1 again (1m) · … [Enter = good]> ', offering only the ratings that apply."""
    parts = [f"{g.value} {g.label} ({outcome.intervals[g]})" for g in Grade if g in outcome.allowed]
    why = f" ({outcome.why_limited})" if outcome.why_limited else ""
    return "Rate " + " · ".join(parts) + f"{why} [Enter = {outcome.suggested.label}]> "


def run_plain_drill(
    bank: Bank,
    store: Store,
    questions: list[AnyQuestion],
    *,
    mode: str = "drill",
    lang: str = "en",
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> StudySession:
    """Run a line-mode session over ``questions``."""
    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    if not questions:
        out.write(
            "Nothing to study right now: no question is due and the daily new limit is "
            "reached (or the filters match nothing).\n"
        )
        return StudySession(bank, store, [], mode=mode, record_session=False)
    session = StudySession(bank, store, questions, mode=mode)
    out.write(f"{len(questions)} question(s). Commands at the answer prompt: {COMMANDS}\n")
    try:
        while (current := session.current or session.next()) is not None:
            out.write("\n" + header(bank, current, session.position + 1, session.total) + "\n\n")
            out.write(question_body(current, lang))
            outcome = read_answer(session, current, inp, out, lang)
            if outcome == QUIT:
                break
            if isinstance(outcome, Outcome) and not reveal_and_rate(
                bank, session, current, outcome, inp, out, lang
            ):
                break
    except KeyboardInterrupt:
        out.write("\n")
    return _finish(session, out)


QUIT = "quit"
"""read_answer: the session ends (end of input or :quit)."""
MOVED_ON = "moved on"
"""read_answer: :undo, :suspend or :bury changed the question to ask."""


def read_answer(
    session: StudySession, current: Current, inp: TextIO, out: TextIO, lang: str
) -> Outcome | str:
    """Read lines at the answer prompt until the answer is graded (its Outcome); QUIT at end of
    input or on :quit; MOVED_ON after :undo, :suspend or :bury. A code exercise takes a file
    path, :hint or :skip (quizzer.cli.plain_exercise)."""
    while True:
        line = read_line(inp, "answer> ", out)
        if line is None:
            return QUIT
        command = line.strip().lower()
        if command == ":quit":
            return QUIT
        if command == ":undo":
            undone = session.undo()
            out.write(f"undone: {undone.id}\n" if undone else "nothing to undo\n")
            return MOVED_ON
        if command == ":suspend":
            session.suspend_current()
            out.write("suspended\n")
            return MOVED_ON
        if command == ":bury":
            session.bury_current()
            out.write("buried until tomorrow\n")
            return MOVED_ON
        outcome = submit_line(session, current, line, out, lang)
        if outcome is not None:
            return outcome


def submit_line(
    session: StudySession, current: Current, line: str, out: TextIO, lang: str
) -> Outcome | None:
    """Grade one line typed at the answer prompt: its Outcome, or None when another line is
    wanted (an answer that cannot be read, said why; a code exercise's path, :hint or Enter,
    handled by quizzer.cli.plain_exercise). Shared by the plain drill and the plain mock."""
    if current.work is not None:
        from quizzer.cli.plain_exercise import exercise_line

        return exercise_line(session, current.work, line, out, lang)
    try:
        return session.submit(line)
    except AnswerError as exc:
        out.write(f"? {exc}\n")
        return None


def reveal_and_rate(
    bank: Bank,
    session: StudySession,
    current: Current,
    outcome: Outcome,
    inp: TextIO,
    out: TextIO,
    lang: str,
) -> bool:
    """Show the answer, take a recall answer's key points, ask for the rating and save it.
    False when the session ends instead (end of input, :quit, or the rating cannot be saved)."""
    out.write(reveal_text(bank, current, outcome, lang) + "\n")
    if isinstance(current.question, RecallQuestion):
        from quizzer.cli.plain_points import ask_key_points

        if not ask_key_points(inp, out, session):
            return False
    grade = ask_grade(
        inp, out, rating_prompt(outcome), outcome.suggested, outcome.allowed, outcome.why_limited
    )
    if grade is None:
        return False
    try:
        rated = session.rate(grade)
    except StoreError as exc:
        out.write(f"! {exc}\n")
        return False
    out.write(f"saved: {rated.grade.label}, next in {outcome.intervals[rated.grade]}\n")
    return True


def _finish(session: StudySession, out: TextIO) -> StudySession:
    """Close the session and print its summary and the articles to read again."""
    try:
        session.finish()
    except StoreError as exc:
        out.write(f"! {exc}\n")
    summary = session.summary()
    out.write(
        f"\nSession over: {summary['rated']} rated"
        + (
            f", {summary['correct']}/{summary['graded']} auto-graded right"
            if summary["graded"]
            else ""
        )
        + "\n"
    )
    if summary["review_articles"]:
        out.write("Read again:\n")
        for key, url in summary["review_articles"].items():
            out.write(f"  {key}: {url}\n")
    return session
