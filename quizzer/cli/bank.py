"""The bank's commands: `quizzer validate`, `list`, `show`, `coverage` and `schema`."""

from __future__ import annotations

import sys
from typing import Any

import click

from quizzer.cli.common import (
    card_json,
    check_filter_keys,
    echo_json,
    fail,
    filter_options,
    open_bank,
    open_progress,
)
from quizzer.content.bank import BankError
from quizzer.content.language import LANGUAGES
from quizzer.content.models import QUESTION_KINDS


@click.command()
@click.option(
    "--no-solutions", is_flag=True, help="Skip running numeric solutions and code exercise checks."
)
def validate(no_solutions: bool) -> None:
    """Check the whole bank; list every problem as path:line:col, and warn about every question
    outside its topic's file (questions/<module>/<topic>.yaml)."""
    from quizzer.content.bank import load_bank
    from quizzer.grading.validate import deep_check

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
    from quizzer.content.interview_map import load_map
    from quizzer.content.layout import misplaced

    warnings = misplaced(bank)  # the bank still loads and is served: not a problem
    for diagnostic in warnings:
        click.echo(str(diagnostic), err=True)
    problems = load_map(bank).problems
    problems += [] if no_solutions else deep_check(bank, progress=sys.stderr.isatty())
    if problems:
        for diagnostic in problems:
            click.echo(str(diagnostic), err=True)
        fail(f"{len(problems)} problem(s) found")
    kinds = {kind: sum(q.kind == kind for q in bank.questions) for kind in QUESTION_KINDS}
    click.echo(
        f"ok: {len(bank.questions)} questions ({kinds['recall']} recall, {kinds['choice']} "
        f"choice, {kinds['numeric']} numeric, {kinds['code']} code) in "
        f"{len(bank.files)} files; "
        f"{len(bank.articles)} articles, {len(bank.topics)} topics, "
        f"{len(bank.companies)} companies"
        + (f"; {len(warnings)} layout warning(s) above" if warnings else "")
    )


@click.command(name="list")
@filter_options
@click.option(
    "--search",
    help="A phrase to look for in the id, prompt, answer, key points, options and explanation "
    "(English and Chinese), ignoring case, spaces, hyphens and punctuation.",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of full questions.")
def list_questions(search: str | None, as_json: bool, **filters: Any) -> None:
    """List questions, filtered; numeric prompts show sample values (seed 0)."""
    from quizzer.content.filters import matches
    from quizzer.content.views import question_json
    from quizzer.grading.samples import sample_prompt

    bank = open_bank()
    check_filter_keys(bank, filters)
    found = [q for q in bank.questions if matches(bank, q, search=search, **filters)]
    if as_json:
        echo_json([question_json(bank, q) for q in found])
        return
    for q in found:
        first_line = " ".join(sample_prompt(q).split())
        if len(first_line) > 70:
            first_line = first_line[:69] + "…"
        click.echo(f"{q.id:<44} {q.kind:<8} d{q.difficulty}  {first_line}")
    click.echo(f"{len(found)} question(s)", err=True)


@click.command()
@click.argument("question_id")
@click.option("--json", "as_json", is_flag=True, help="Print JSON, with the card's state.")
@click.option(
    "--lang",
    type=click.Choice(LANGUAGES),
    default=None,
    help="Language of the text (default: your setting; JSON carries both).",
)
def show(question_id: str, as_json: bool, lang: str | None) -> None:
    """Show one question with its answer, explanation and links (a numeric one with sample
    values, its answer and worked solution)."""
    from quizzer.content.bank import suggest
    from quizzer.content.views import question_json
    from quizzer.grading.samples import sample_prompt, sample_worked
    from quizzer.progress.settings import stored_setting

    bank = open_bank()
    q = bank.get(question_id)
    if q is None:
        fail(f"no question {question_id!r}{suggest(question_id, bank.by_id)}", 2)
    data = question_json(bank, q)
    data["card"] = card_json(q.id)
    sample = sample_draw(q)
    if as_json:
        if sample is not None:
            data["sample"] = sample
        echo_json(data)
        return
    from quizzer.content.models import CodeQuestion
    from quizzer.content.render import question_text

    solution = None
    if isinstance(q, CodeQuestion):
        from quizzer.grading.exercise_spec import ExerciseError
        from quizzer.grading.exercise_task import reference_solution

        try:
            solution = reference_solution(q)
        except ExerciseError as exc:
            solution = f"(cannot load it: {exc})"
    language = lang or stored_setting(open_progress(create=False), "language")
    shown = None
    if sample is not None:
        worked = sample_worked(q, language) or sample["worked"]
        shown = (sample_prompt(q, language), sample["answer"], worked)
    click.echo(question_text(bank, q, data["card"], shown, solution, language))


def sample_draw(q: Any) -> dict[str, Any] | None:
    """A numeric question's sample draw (seed, prompt, answer with unit, worked solution), or
    None for other kinds and for a draw its solution cannot compute."""
    from quizzer.content.models import NumericQuestion
    from quizzer.grading.calc import CalcError, with_unit
    from quizzer.grading.samples import SAMPLE_SEED, sample_attempt

    if not isinstance(q, NumericQuestion):
        return None
    attempt = sample_attempt(q)
    if attempt is None:
        return None
    try:
        prompt, worked = attempt.prompt(), attempt.worked()
    except CalcError:
        return None
    return {
        "seed": SAMPLE_SEED,
        "params": attempt.params_json(),
        "prompt": prompt,
        "answer": with_unit(attempt.answer, q.unit),
        "worked": worked,
    }


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON: articles, topics, companies.")
def coverage(as_json: bool) -> None:
    """Question counts per article, topic and company, empties first; with --json also the
    interview coverage map (lines covered, out of scope, uncovered)."""
    from quizzer.content.interview_map import coverage_report, load_map
    from quizzer.content.views import coverage as counts

    bank = open_bank()
    table = counts(bank)
    if as_json:
        echo_json({**table, "interviews": coverage_report(bank, load_map(bank))})
        return
    for group, rows in table.items():
        empty = sum(row["count"] == 0 for row in rows)
        click.echo(f"{group}: {len(rows)} ({empty} with no question)")
        for row in rows:
            click.echo(f"  {row['count']:>4}  {row['key']}")


@click.command()
@click.option("--markdown", is_flag=True, help="Print the field reference as Markdown tables.")
@click.option(
    "--write",
    is_flag=True,
    help="Rewrite question.schema.json and the field reference in question_bank/README.md.",
)
def schema(markdown: bool, write: bool) -> None:
    """Print the JSON Schema of a question file (question_bank/question.schema.json)."""
    from quizzer.content.schema_doc import schema_json, schema_markdown, write_generated

    if write:
        from quizzer.base.paths import bank_dir
        from quizzer.cli.common import refuse_installed_bank

        refuse_installed_bank("schema --write")
        for path in write_generated(bank_dir()):
            click.echo(f"wrote {path}")
        return
    click.echo(schema_markdown() if markdown else schema_json(), nl=markdown)
