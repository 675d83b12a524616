"""`quizzer weak` and `quizzer mock`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from quizzer.cli.common import echo_json, fail, open_bank
from quizzer.content.language import LANGUAGES

if TYPE_CHECKING:
    from quizzer.content.bank import Bank
    from quizzer.study.missed import MissedPoint


@click.command()
@click.option(
    "--by",
    type=click.Choice(["topic", "company", "article"]),
    default="topic",
    show_default=True,
    help="Group by.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="How many groups to list.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON, weakest first.")
@click.option(
    "--key-points",
    "key_points",
    is_flag=True,
    help="List only the key points you miss most often (from recall answers you self-graded "
    "with the checklist), with their questions; with --json, as JSON.",
)
def weak(by: str, limit: int, as_json: bool, key_points: bool) -> None:
    """Your weakest topics (or companies, articles), with the evidence for each, and the key
    points you miss most often."""
    from quizzer.base import clock
    from quizzer.cli.common import open_progress
    from quizzer.study.missed import missed_points
    from quizzer.study.weakness import weaknesses

    bank = open_bank()
    store = open_progress(create=False)
    now = clock.now()
    if key_points:
        points = missed_points(bank, store, now)[:limit]
        if as_json:
            echo_json([point.as_json(bank) for point in points])
        elif points:
            _echo_missed(bank, points)
        else:
            click.echo(NO_MISSED)
        return
    rows = weaknesses(bank, store, now, by)[:limit]
    if as_json:
        echo_json([row.as_json() for row in rows])
        return
    if not rows:
        click.echo("No reviews yet: study some questions first (quizzer drill).")
        return
    click.echo(f"{'':<4}{by:<30} {'score':>5} {'acc':>5} {'recall':>6} {'lapses':>6}  questions")
    for index, row in enumerate(rows, 1):
        acc = "—" if row.accuracy is None else f"{row.accuracy:.0%}"
        click.echo(
            f"{index:<4}{row.key:<30} {row.score:5.2f} {acc:>5} "
            f"{row.mean_retrievability:6.0%} {row.lapses:6d}  {row.reviewed}"
        )
    points = missed_points(bank, store, now)
    if points:
        click.echo("")
        _echo_missed(bank, points[:MISSED_SHOWN])
        if len(points) > MISSED_SHOWN:
            click.echo(f"  … {len(points) - MISSED_SHOWN} more: quizzer weak --key-points")
    click.echo(
        "\nacc: reviews of the last 60 days not rated Again (as in quizzer stats); recall: mean "
        "recall probability now.\nStudy them: quizzer drill --weak"
    )


LINE_WIDTH = 100
"""The width the missed key points are cut to (the question's prompt gets what is left)."""
MISSED_SHOWN = 5
"""Key points listed under the weak groups; `--key-points` lists up to --limit."""
NO_MISSED = (
    "No key point missed in the last 60 days. After revealing a recall answer, tick the key "
    "points you got (keys 1-9 in the app, a line like 1,3 in the plain drill); the others "
    "are listed here."
)


def _echo_missed(bank: Bank, points: list[MissedPoint]) -> None:
    """The missed key points, two lines each: the point, then its question."""
    from quizzer.study.missed import prompt_line

    click.echo("Key points you miss most often (last 60 days):")
    for point in points:
        q = bank.by_id[point.question_id]
        note = " (got it last time)" if point.got_last_time else ""
        click.echo(f"  missed {point.missed} of {point.checked}  {point.point}{note}")
        indent = " " * (len(str(point.missed)) + len(str(point.checked)) + 13)
        where = f"{indent}{q.id} #{point.number}: "
        click.echo(where + prompt_line(q.prompt, max(30, LINE_WIDTH - len(where))))


@click.command()
@click.option(
    "--company",
    required=True,
    help="Company key, e.g. bytedance (`quizzer keys companies` lists them). A company with no "
    "tagged questions gets those of its closest tier-mates.",
)
@click.option(
    "--minutes",
    type=click.FloatRange(min=0.1),
    default=45,
    show_default=True,
    help="Length of the interview; about 3 minutes per question.",
)
@click.option("--plain", is_flag=True, help="Line-based mock on stdin/stdout.")
@click.option(
    "--lang",
    type=click.Choice(LANGUAGES),
    default=None,
    help="Language of the questions (default: your setting).",
)
def mock(company: str, minutes: float, plain: bool, lang: str | None) -> None:
    """A timed mock interview for a company: its questions, warm-up to hard, report at the end."""
    import sys

    from quizzer.cli.common import open_progress
    from quizzer.progress.settings import stored_setting
    from quizzer.study.mock import assemble_mock

    bank = open_bank()
    store = open_progress()
    plan = assemble_mock(bank, store, company, minutes)
    if not plan.questions:
        fail(plan.message, 2 if company not in bank.companies else 1)
    if plan.message:
        click.echo(plan.message, err=True)
    language = lang or stored_setting(store, "language")
    if plain or not sys.stdin.isatty():
        from quizzer.cli.plain_mock import run_plain_mock

        run_plain_mock(bank, store, plan, minutes, lang=language)
        return
    from quizzer.cli.app import run_app

    store.close()
    run_app(start_mock=(company, minutes))
