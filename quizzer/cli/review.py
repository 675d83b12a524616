"""`quizzer weak` and `quizzer mock`."""

from __future__ import annotations

import click

from quizzer.cli.common import echo_json, fail, open_bank


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
def weak(by: str, limit: int, as_json: bool) -> None:
    """Your weakest topics (or companies, articles), with the evidence for each."""
    from quizzer.base import clock
    from quizzer.cli.common import open_progress
    from quizzer.study.weakness import weaknesses

    bank = open_bank()
    store = open_progress(create=False)
    rows = weaknesses(bank, store, clock.now(), by)[:limit]
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
    click.echo(
        "\nacc: reviews of the last 60 days not rated Again (as in quizzer stats); recall: mean "
        "recall probability now.\nStudy them: quizzer drill --weak"
    )


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
    type=click.Choice(["en", "zh"]),
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
