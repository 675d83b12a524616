"""The line protocol of a code exercise, shared by `quizzer exercise`, the plain drill and the
plain mock (think rustlings): the task and the path of the file to edit are printed; then each
line is Enter or `:check` (check the file again), a path (check that file instead), `:hint` (the
next hint), or `:reveal` / `:skip` (give up: the solution is shown and Again suggested). A pass
ends the attempt; the front end then shows the solution and asks for the rating."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from quizzer.content.models import CodeQuestion
from quizzer.grading.exercise_spec import ExerciseError
from quizzer.progress.attempts import AttemptError
from quizzer.study.exercise import ExerciseWork
from quizzer.study.session import Outcome, StudySession

EXERCISE_COMMANDS = "Enter or :check checks your file · a path checks that file · :hint · :reveal"
"""What the user may type at the prompt of a code exercise."""


def exercise_intro(work: ExerciseWork, lang: str) -> str:
    """The task, the public examples and the file to edit (written from the starter, or the
    attempt kept from last time)."""
    from quizzer.grading.exercise_task import public_examples, task_text

    question = work.question
    try:
        examples = public_examples(question)
    except ExerciseError as exc:
        return f"! this exercise is broken: {exc}\n"
    lines = [task_text(question, lang, examples), ""]
    try:
        path = work.open()
    except AttemptError as exc:
        lines.append(f"! {exc}. Type the path of a file of your own to check it.")
    else:
        kept = " (your code from last time, kept)" if work.restored else ""
        lines.append(f"Write `{question.entry}` in: {path}{kept}")
    lines.append(f"({EXERCISE_COMMANDS})")
    return "\n".join(lines) + "\n"


def exercise_line(
    session: StudySession, work: ExerciseWork, line: str, out: TextIO, lang: str
) -> Outcome | None:
    """Act on one line typed at a code exercise. Returns the Outcome once the attempt is over
    (passed, or given up); None while it goes on."""
    text = line.strip()
    command = text.lower()
    if command == ":hint":
        hint = work.next_hint(lang)
        total = len(work.hints(lang))
        if hint is None:
            out.write("no more hints: :reveal shows the solution\n")
        else:
            out.write(f"hint {work.hints_shown}/{total}: {hint}\n")
        return None
    if command in (":reveal", ":skip"):
        work.give_up()
        return session.submit("")
    if command.startswith(":") and command != ":check":
        out.write(f"? unknown command {text!r}: {EXERCISE_COMMANDS}\n")
        return None
    path = None if command in ("", ":check") else Path(text).expanduser()
    if path is not None and not path.is_file():
        out.write(f"? no file {path}: type a path, or press Enter to check {work.path}\n")
        return None
    out.write("checking…\n")
    out.flush()
    try:
        verdict = work.check(path)
    except AttemptError as exc:
        out.write(f"! {exc}\n")
        return None
    except ExerciseError as exc:
        out.write(f"! this exercise is broken (not your code): {exc}\n:skip moves on\n")
        return None
    out.write(verdict.report() + "\n")
    if verdict.passed:
        return session.submit("")
    out.write("Fix it and press Enter to check again (:hint for a hint, :reveal to give up).\n")
    return None


def exercise_reveal(question: CodeQuestion, lang: str) -> list[str]:
    """The reference solution and the key idea (the last hint), as lines."""
    from quizzer.grading.exercise_task import hints_of, reference_solution

    try:
        solution = reference_solution(question)
    except ExerciseError as exc:
        solution = f"(cannot load it: {exc})"
    lines = ["Reference solution:"]
    lines += [f"    {row}".rstrip() for row in solution.rstrip().splitlines()]
    lines.append("Key idea: " + hints_of(question, lang)[-1])
    return lines
