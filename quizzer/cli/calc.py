"""`quizzer solve` and `quizzer check`: the calculation problems from the command line."""

from __future__ import annotations

import sys

import click

from quizzer.cli.common import echo_json, fail, open_bank
from quizzer.content.models import NumericQuestion


def parse_sets(values: tuple[str, ...]) -> dict[str, str]:
    """`name=value` pairs from --set."""
    result = {}
    for item in values:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            fail(f"--set wants name=value, got {item!r}", 2)
        result[name.strip()] = value.strip()
    return result


def numeric_question(question_id: str) -> NumericQuestion:
    """The numeric question with this id, or exit 2."""
    from quizzer.content.bank import suggest

    bank = open_bank()
    q = bank.get(question_id)
    if q is None:
        fail(f"no question {question_id!r}{suggest(question_id, bank.by_id)}", 2)
    if not isinstance(q, NumericQuestion):
        fail(f"{question_id!r} is a {q.kind} question, not numeric", 2)
    return q


seed_option = click.option("--seed", type=int, help="Parameter seed (default: a fresh draw).")
set_option = click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="NAME=VALUE",
    help="Fix a parameter to a value it takes (a preset by name) or a preset field, e.g. "
    "--set model=llama-3-70b --set model.layers=40 (or layers=40). Repeatable; presets are "
    "set before their fields, whatever the order.",
)


@click.command()
@click.argument("question_id")
@seed_option
@set_option
@click.option(
    "--json", "as_json", is_flag=True, help="Print JSON: id, seed, params, answer, worked."
)
def solve(question_id: str, seed: int | None, sets: tuple[str, ...], as_json: bool) -> None:
    """Show a numeric question's parameters, reference answer and worked solution."""
    from quizzer.grading import calc

    q = numeric_question(question_id)
    overrides = parse_sets(sets)
    try:
        attempt = calc.prepare(q, seed, overrides)
        prompt, worked = attempt.prompt(), attempt.worked()
    except calc.CalcError as exc:
        fail(str(exc), 2)
    if as_json:
        echo_json(
            {
                "id": q.id,
                "seed": attempt.seed,
                "params": attempt.params_json(),
                "answer": {"value": attempt.answer, "unit": q.unit},
                "prompt": prompt,
                "worked": worked,
            }
        )
        return
    click.echo(f"{q.id}  (seed {attempt.seed})\n")
    click.echo(prompt.rstrip() + "\n")
    for name, value in attempt.params_json().items():
        click.echo(f"  {name} = {value}")
    click.echo(f"\nAnswer: {calc.with_unit(attempt.answer, q.unit)}\n")
    click.echo(worked.rstrip())


@click.command()
@click.argument("question_id")
@click.option("--answer", "answer_text", required=True, help="Your answer, e.g. '140 GB'.")
@seed_option
@set_option
def check(question_id: str, answer_text: str, seed: int | None, sets: tuple[str, ...]) -> None:
    """Check an answer: exit 0 if right, 1 if wrong, 2 if it cannot be understood."""
    from quizzer.grading import calc
    from quizzer.grading.answers import AnswerError

    q = numeric_question(question_id)
    overrides = parse_sets(sets)
    try:
        attempt = calc.prepare(q, seed, overrides)
        worked = attempt.worked()
    except calc.CalcError as exc:
        fail(str(exc), 2)
    try:
        verdict = calc.grade(attempt, answer_text)
    except AnswerError as exc:
        fail(f"cannot understand {answer_text!r}: {exc}", 2)
    click.echo(("✓ " if verdict.correct else "✗ ") + verdict.message)
    if verdict.hint:
        click.echo(f"  hint: {verdict.hint}")
    click.echo("\n" + worked.rstrip())
    sys.exit(0 if verdict.correct else 1)
