"""The command line: a thin click layer over the library.

Textual is imported only inside the command that opens the TUI, so every other command starts
fast and works without a terminal.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from quizzer import __version__
from quizzer.cli import bank, calc, data, exercise, fsrs, keys, plan, review, study
from quizzer.cli.common import fail


class QuizzerGroup(click.Group):
    """Lists commands in the order they were added, which is the order a user needs them."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

    def invoke(self, ctx: click.Context) -> Any:
        """Turn a storage problem anywhere (disk full, DB locked) into a message, not a
        traceback; a reader that stopped early (`quizzer list | head`) ends the command
        quietly with exit 0."""
        import sqlite3

        from quizzer.progress.store import StoreError

        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            stop_writing_to_closed_pipe()
        except StoreError as exc:
            fail(str(exc))
        except sqlite3.Error as exc:
            from quizzer.base.paths import db_path
            from quizzer.progress.dbopen import explain

            fail(explain(exc, db_path(), "use"))


def stop_writing_to_closed_pipe() -> None:
    """Exit 0 after the reader of stdout went away: what is still buffered goes to devnull, so
    Python's flush at exit does not fail again and print an error (the standard recipe)."""
    import sys

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass  # stdout is not a real file (a test runner's buffer): nothing to flush later
    sys.exit(0)


@click.group(cls=QuizzerGroup, invoke_without_command=True)
@click.version_option(__version__, prog_name="quizzer")
@click.option(
    "--bank",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="QUIZZER_BANK",
    help="Question bank directory (env QUIZZER_BANK; default: the bank shipped with quizzer).",
)
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="QUIZZER_DB",
    help="Progress database (env QUIZZER_DB; default: quizzer.db in the user data dir).",
)
@click.pass_context
def main(ctx: click.Context, bank: Path | None, db: Path | None) -> None:
    """Rehearse AI-infrastructure interviews: LLM inference, CUDA, distributed training, GPUs.

    Run with no command to open the app. QUIZZER_NOW (ISO 8601, UTC) fixes the clock.
    """
    if bank is not None:
        os.environ["QUIZZER_BANK"] = str(bank)
    if db is not None:
        os.environ["QUIZZER_DB"] = str(db)
    if os.environ.get("QUIZZER_NOW"):
        from quizzer.base.clock import ClockError, now

        try:
            now()
        except ClockError as exc:
            fail(str(exc), 2)
    if ctx.invoked_subcommand is None:
        from quizzer.cli.app import run_app

        run_app()


for command in (
    bank.validate,
    bank.list_questions,
    bank.show,
    bank.coverage,
    keys.keys,
    bank.schema,
    calc.solve,
    calc.check,
    exercise.exercise,
    study.drill,
    plan.plan_command,
    study.stats,
    study.suspend,
    study.unsuspend,
    study.settings_command,
    fsrs.optimize,
    review.weak,
    review.mock,
    data.export,
    data.backup,
    data.restore,
    data.import_reviews,
    data.new,
):
    main.add_command(command)
