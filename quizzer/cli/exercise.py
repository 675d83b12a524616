"""`quizzer exercise ID`: work on one code exercise in your own editor, rustlings style; with
`--check FILE`, check a file once and exit 0 pass, 1 fail, 2 cannot run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import click

from quizzer.cli.common import fail, open_bank, open_progress
from quizzer.content.language import LANGUAGES

if TYPE_CHECKING:
    from quizzer.content.bank import Bank
    from quizzer.content.models import CodeQuestion
    from quizzer.progress.attempts import Attempts
    from quizzer.progress.store import Store
    from quizzer.study.session import StudySession

PROMPT = "[Enter] check · :hint · :reveal · :quit> "


def code_question(bank: Bank, question_id: str) -> CodeQuestion:
    """The code exercise ``question_id``, or exit 2 saying what is wrong."""
    from quizzer.content.bank import suggest
    from quizzer.content.models import CodeQuestion

    q = bank.get(question_id)
    if q is None:
        ids = {e.id: e for e in bank.exercises}
        fail(f"no code exercise {question_id!r}{suggest(question_id, ids)}", 2)
    if not isinstance(q, CodeQuestion):
        fail(f"{q.id} is a {q.kind} question, not a code exercise (quizzer list --kind code)", 2)
    return q


@click.command()
@click.argument("question_id")
@click.option(
    "--check",
    "check_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Check FILE once, print the verdict and exit: 0 pass, 1 fail, 2 cannot run.",
)
@click.option(
    "--dir",
    "folder",
    type=click.Path(file_okay=False, path_type=Path),
    help="Work folder for the attempt file (default: exercises/ in the user data dir).",
)
@click.option("--seed", type=int, help="Seed of the random cases (to replay a run).")
@click.option("--lang", type=click.Choice(LANGUAGES), default=None, help="Language.")
def exercise(
    question_id: str,
    check_path: Path | None,
    folder: Path | None,
    seed: int | None,
    lang: str | None,
) -> None:
    """Write a code exercise: the starter goes to a work file, you edit it in your editor, and
    each Enter checks it (:hint, :reveal, :quit). A pass shows the reference solution and asks
    for your rating, saved like any review.

    Your code runs as your own code on your machine, in a separate Python process with a time
    limit, memory and CPU limits and no stdin (as in rustlings); it is not a sandbox."""
    bank = open_bank()
    q = code_question(bank, question_id)
    if check_path is not None:
        _check_once(q, check_path, seed)
        return
    from quizzer.progress.attempts import Attempts
    from quizzer.progress.settings import stored_setting

    store = open_progress()
    store.adopt_renames(bank.previous)
    language = lang or stored_setting(store, "language")
    run_exercise(bank, store, q, Attempts(folder), language, sys.stdin, sys.stdout)


def _check_once(q: CodeQuestion, path: Path, seed: int | None) -> None:
    from quizzer.grading.exercise_spec import ExerciseError
    from quizzer.grading.exercises import check_file

    try:
        verdict = check_file(q, path, seed)
    except ExerciseError as exc:
        fail(f"the exercise {q.id} is broken (not your code): {exc}", 2)
    click.echo(verdict.report())
    sys.exit(verdict.exit_code)


def run_exercise(
    bank: Bank,
    store: Store,
    q: CodeQuestion,
    attempts: Attempts,
    lang: str,
    inp: TextIO,
    out: TextIO,
) -> StudySession:
    """The rustlings loop over one exercise, then the solution and the rating."""
    from quizzer.cli.plain_drill import rating_prompt, reveal_text
    from quizzer.cli.plain_exercise import exercise_intro, exercise_line
    from quizzer.cli.plain_io import ask_grade, read_line
    from quizzer.study.session import StudySession

    session = StudySession(bank, store, [q], attempts=attempts)
    current = session.next()
    assert current is not None and current.work is not None
    work = current.work
    out.write(exercise_intro(work, lang))
    outcome = None
    try:
        while outcome is None:
            line = read_line(inp, PROMPT, out)
            if line is None or line.strip().lower() == ":quit":
                where = work.path or attempts.path(q.id)
                out.write(
                    f"Left unrated; your code stays in {where} for next time "
                    f"(quizzer exercise {q.id} --check {where} checks it).\n"
                )
                session.leave_current()
                return session
            outcome = exercise_line(session, work, line, out, lang)
        out.write(reveal_text(bank, current, outcome, lang) + "\n")
        grade = ask_grade(inp, out, rating_prompt(outcome), outcome.suggested, outcome.allowed, "")
        if grade is None:
            out.write(f"Not rated; your code stays in {work.path}.\n")
            session.leave_current()
            return session
        rated = session.rate(grade)
        out.write(
            f"saved: {rated.grade.label}, next in {outcome.intervals[rated.grade]}; "
            f"this attempt is kept in {attempts.folder / 'past'}\n"
        )
        return session
    except KeyboardInterrupt:
        out.write("\n")
        session.leave_current()
        return session
    finally:
        session.finish()
