"""`quizzer export`, `backup`, `restore`, `import-reviews` and `new`."""

from __future__ import annotations

from pathlib import Path

import click

from quizzer.cli.common import fail, open_bank
from quizzer.content.models import QUESTION_KINDS


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["apkg", "csv", "json"]),
    required=True,
    help="apkg: the bank as an Anki deck; csv/json: your review history.",
)
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Replace OUT if it already exists.")
def export(fmt: str, out: Path, force: bool) -> None:
    """Export the bank as an Anki deck, or your review history as CSV or JSON."""
    from quizzer.base.paths import db_path
    from quizzer.progress.outfile import check_output, staged_output

    check_output(out, force=force, live_db=db_path())
    if fmt == "apkg":
        from quizzer.study.anki import export_apkg

        bank = open_bank()
        with staged_output(out) as tmp:
            count = export_apkg(bank, bank.questions, tmp)
        click.echo(f"wrote {count} notes to {out}")
        return
    from quizzer.cli.common import open_progress
    from quizzer.progress.transfer import export_csv, export_json

    store = open_progress(create=False)
    with staged_output(out) as tmp:
        count = (export_csv if fmt == "csv" else export_json)(store, tmp)
    click.echo(f"wrote {count} reviews to {out}")


@click.command()
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Replace OUT if it already exists.")
def backup(out: Path, force: bool) -> None:
    """Copy your whole progress database to OUT (safe while quizzer runs)."""
    from quizzer.base.paths import db_path
    from quizzer.cli.common import open_progress
    from quizzer.progress.outfile import check_output
    from quizzer.progress.transfer import backup as do_backup

    check_output(out, force=force, live_db=db_path())
    store = open_progress(create=False)
    if not store.exists:
        fail(f"there is no progress at {db_path()} yet; nothing to back up")
    do_backup(store, out)
    click.echo(f"backed up {store.review_count()} reviews to {out}")


@click.command()
@click.argument("source", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--yes", is_flag=True, help="Do not ask before replacing the current progress.")
def restore(source: Path, yes: bool) -> None:
    """Replace your progress with a backup. The file is checked first; all or nothing."""
    from quizzer.base.paths import db_path
    from quizzer.progress.store import StoreError
    from quizzer.progress.transfer import check_backup
    from quizzer.progress.transfer import restore as do_restore

    try:
        count = check_backup(source)
    except StoreError as exc:
        fail(f"not restored: {exc}")
    target = db_path()
    if target.exists() and target.resolve() == source.resolve():
        fail(f"not restored: {source} is the progress database itself")
    if (
        not yes
        and target.exists()
        and not click.confirm(
            f"Replace the progress in {target} with {count} reviews from {source}?", default=False
        )
    ):
        fail("not restored", 1)
    try:
        moved = do_restore(source, target)
    except StoreError as exc:
        fail(f"not restored: {exc}")
    if moved:
        click.echo(f"the unusable progress file was kept as {moved}")
    click.echo(f"restored {count} reviews from {source}")


@click.command(name="import-reviews")
@click.argument("source", type=click.Path(dir_okay=False, path_type=Path))
def import_reviews(source: Path) -> None:
    """Merge reviews from a `quizzer export --format json` file, skipping ones you have."""
    from quizzer.cli.common import open_progress
    from quizzer.progress.store import StoreError
    from quizzer.progress.transfer import import_reviews as do_import

    store = open_progress()
    try:
        added, skipped = do_import(store, source)
    except StoreError as exc:
        fail(str(exc))
    click.echo(f"imported {added} review(s); {skipped} were already here")


@click.command()
@click.option(
    "--kind",
    type=click.Choice(QUESTION_KINDS),
    help="Kind of question (asked if left out).",
)
@click.option("--topic", help="Topic key from topics.yaml.")
@click.option("--article", help="Article key from articles.yaml.")
def new(kind: str | None, topic: str | None, article: str | None) -> None:
    """Append a valid question stub to the right file (asks for what you leave out)."""
    from quizzer.cli.common import refuse_installed_bank
    from quizzer.content.keys import unknown_key_message
    from quizzer.content.scaffold import ScaffoldError, append_stub, spec_file

    refuse_installed_bank("new")
    bank = open_bank(allow_placeholders=True)  # other stubs may still wait to be filled in
    if kind is None:
        kind = click.prompt("Kind", type=click.Choice(QUESTION_KINDS), default="recall")
    while topic not in bank.topics:
        if topic is not None:
            click.echo(unknown_key_message(bank, "topics", topic), err=True)
        topic = click.prompt("Topic key (`quizzer keys topics` lists them)")
    while article not in bank.articles:
        if article is not None:
            click.echo(unknown_key_message(bank, "articles", article), err=True)
        article = click.prompt("Article key (`quizzer keys articles` lists them)")
    assert topic is not None and article is not None and kind is not None
    try:
        question_id, path, line = append_stub(bank, kind, topic, article)
    except ScaffoldError as exc:
        fail(str(exc))
    spec = f"Write its ExerciseSpec in {spec_file(topic)} and name it under checks.\n"
    click.echo(
        f"added {question_id} at {path}:{line}\n"
        + (spec if kind == "code" else "")
        + "Replace its TODO text (until then it is not served), then run: quizzer validate"
    )
