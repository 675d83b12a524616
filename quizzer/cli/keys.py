"""`quizzer keys`: the topic, company, article and track keys you can type, with names and
counts."""

from __future__ import annotations

import click

from quizzer.cli.common import echo_json, open_bank
from quizzer.content.keys import KEY_KINDS


@click.command()
@click.argument("kind", type=click.Choice(KEY_KINDS))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array: key, name, count.")
def keys(kind: str, as_json: bool) -> None:
    """List the valid topic, company, article or track keys, with their names and how many
    questions each has (the keys --topic, --company, --article and mock --company take)."""
    from quizzer.content.keys import key_rows

    bank = open_bank()
    rows = key_rows(bank, kind)
    if as_json:
        echo_json(
            [
                {"key": r.key, "name": r.name, "questions": r.count, "note": r.note or None}
                for r in rows
            ]
        )
        return
    if not rows:
        click.echo(f"No {kind} are defined in {bank.root}.")
        return
    width = min(40, max(len(r.key) for r in rows))
    for r in rows:
        count = "—" if r.count is None else str(r.count)
        note = f"  [{r.note}]" if r.note else ""
        click.echo(f"{r.key:<{width}}  {count:>4}  {r.name}{note}")
    click.echo(f"{len(rows)} {kind}; the number is how many questions each has", err=True)
