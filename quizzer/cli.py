"""The command line: a thin click layer over the library.

Textual is imported only inside the command that opens the TUI, so every other command starts
fast and works without a terminal.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from quizzer import __version__
from quizzer.bank import Bank, BankError
from quizzer.cli_common import echo_json, fail, open_bank
from quizzer.models import QUESTION_KINDS


class QuizzerGroup(click.Group):
    """Lists commands in the order they were added, which is the order a user needs them."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

    def invoke(self, ctx: click.Context) -> Any:
        """Turn a storage problem anywhere (disk full, DB locked) into a message, not a
        traceback."""
        import sqlite3

        from quizzer.store import StoreError

        try:
            return super().invoke(ctx)
        except StoreError as exc:
            fail(str(exc))
        except sqlite3.Error as exc:
            from quizzer.dbopen import explain
            from quizzer.paths import db_path

            fail(explain(exc, db_path(), "use"))


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
        from quizzer.clock import ClockError, now

        try:
            now()
        except ClockError as exc:
            fail(str(exc), 2)
    if ctx.invoked_subcommand is None:
        from quizzer.cli_app import run_app

        run_app()


@main.command()
@click.option(
    "--no-solutions", is_flag=True, help="Skip running numeric solutions and code exercise checks."
)
def validate(no_solutions: bool) -> None:
    """Check the whole bank; list every problem as path:line:col."""
    from quizzer.bank import load_bank
    from quizzer.validate import deep_check

    show = sys.stderr.isatty()

    def bar(done: int, total: int) -> None:
        if show and total >= 20 and (done % 5 == 0 or done == total):
            width = 30
            filled = width * done // total
            end = "\n" if done == total else ""
            click.echo(
                f"\rreading question files [{'#' * filled:<{width}}] {done}/{total}",
                err=True,
                nl=False,
            )
            if end:
                click.echo("", err=True)

    try:
        bank = load_bank(use_cache=False, progress=bar)
    except BankError as exc:
        for diagnostic in exc.diagnostics:
            click.echo(str(diagnostic), err=True)
        fail(f"{len(exc.diagnostics)} problem(s) found")
    problems = [] if no_solutions else deep_check(bank, progress=sys.stderr.isatty())
    if problems:
        for diagnostic in problems:
            click.echo(str(diagnostic), err=True)
        fail(f"{len(problems)} problem(s) found")
    kinds = {kind: sum(q.kind == kind for q in bank.questions) for kind in QUESTION_KINDS}
    click.echo(
        f"ok: {len(bank.questions)} questions ({kinds['recall']} recall, {kinds['choice']} "
        f"choice, {kinds['numeric']} numeric) and {len(bank.exercises)} code exercises in "
        f"{len(bank.files)} files; "
        f"{len(bank.articles)} articles, {len(bank.topics)} topics, "
        f"{len(bank.companies)} companies"
    )


def filter_options(func: Any) -> Any:
    """The shared question filters."""
    options = [
        click.option("--topic", "topics", multiple=True, help="Topic key (repeatable)."),
        click.option("--company", "companies", multiple=True, help="Company key (repeatable)."),
        click.option("--article", "articles", multiple=True, help="Article key (repeatable)."),
        click.option(
            "--kind", "kinds", multiple=True, type=click.Choice(QUESTION_KINDS), help="Kind."
        ),
        click.option(
            "--difficulty",
            "difficulties",
            multiple=True,
            type=click.IntRange(1, 5),
            help="Difficulty 1-5 (repeatable).",
        ),
        click.option(
            "--module",
            "modules",
            multiple=True,
            type=click.IntRange(1, 4),
            help="Module 1-4 (repeatable).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def check_filter_keys(bank: Bank, filters: dict[str, Any]) -> None:
    """Exit 2 with a suggestion when a filter names an unknown key."""
    from quizzer.bank import suggest

    tables: dict[str, dict[str, Any]] = {
        "topics": bank.topics,
        "companies": bank.companies,
        "articles": bank.articles,
    }
    for name, table in tables.items():
        for key in filters.get(name, ()):
            if key not in table:
                fail(f"unknown {name[:-1]} {key!r}{suggest(key, table)}", 2)


@main.command(name="list")
@filter_options
@click.option("--search", help="Text to look for in id, prompt and explanation.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of full questions.")
def list_questions(search: str | None, as_json: bool, **filters: Any) -> None:
    """List questions, filtered."""
    from quizzer.views import matches, question_json

    bank = open_bank()
    check_filter_keys(bank, filters)
    found = [q for q in bank.questions if matches(bank, q, search=search, **filters)]
    if as_json:
        echo_json([question_json(bank, q) for q in found])
        return
    for q in found:
        first_line = " ".join(q.prompt.split())
        if len(first_line) > 70:
            first_line = first_line[:69] + "…"
        click.echo(f"{q.id:<44} {q.kind:<8} d{q.difficulty}  {first_line}")
    click.echo(f"{len(found)} question(s)", err=True)


@main.command()
@click.argument("question_id")
@click.option("--json", "as_json", is_flag=True, help="Print JSON, with the card's state.")
def show(question_id: str, as_json: bool) -> None:
    """Show one question with its answer, explanation and links."""
    from quizzer.bank import suggest
    from quizzer.views import question_json

    bank = open_bank()
    q = bank.get(question_id)
    if q is None:
        fail(f"no question {question_id!r}{suggest(question_id, bank.by_id)}", 2)
    data = question_json(bank, q)
    from quizzer.cli_study import card_json

    data["card"] = card_json(q.id)
    if as_json:
        echo_json(data)
        return
    from quizzer.render_text import question_text

    click.echo(question_text(bank, q, data["card"]))


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON: articles, topics, companies.")
def coverage(as_json: bool) -> None:
    """Question counts per article, topic and company, empties first."""
    from quizzer.views import coverage as counts

    bank = open_bank()
    table = counts(bank)
    if as_json:
        echo_json(table)
        return
    for group, rows in table.items():
        empty = sum(row["count"] == 0 for row in rows)
        click.echo(f"{group}: {len(rows)} ({empty} with no question)")
        for row in rows:
            click.echo(f"  {row['count']:>4}  {row['key']}")


@main.command()
@click.option("--markdown", is_flag=True, help="Print the field reference as Markdown tables.")
@click.option(
    "--write",
    is_flag=True,
    help="Rewrite question.schema.json and the field reference in question_bank/README.md.",
)
def schema(markdown: bool, write: bool) -> None:
    """Print the JSON Schema of a question file (question_bank/question.schema.json)."""
    from quizzer.schema_doc import schema_json, schema_markdown, write_generated

    if write:
        from quizzer.paths import bank_dir

        for path in write_generated(bank_dir()):
            click.echo(f"wrote {path}")
        return
    click.echo(schema_markdown() if markdown else schema_json(), nl=markdown)


from quizzer import cli_calc, cli_data, cli_review, cli_study  # noqa: E402

main.add_command(cli_calc.solve)
main.add_command(cli_calc.check)
cli_study.register(main)
main.add_command(cli_study.settings_command)
main.add_command(cli_review.weak)
main.add_command(cli_review.mock)
for command in (
    cli_data.export,
    cli_data.backup,
    cli_data.restore,
    cli_data.import_reviews,
    cli_data.new,
):
    main.add_command(command)
