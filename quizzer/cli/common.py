"""Helpers shared by the CLI modules: errors, JSON output, opening the bank and the progress
store, the question filter options."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import click

from quizzer.content.bank import Bank, BankError, load_bank
from quizzer.content.models import QUESTION_KINDS


def fail(message: str, code: int = 1) -> NoReturn:
    """Print an error to stderr and exit with ``code``."""
    click.echo(f"quizzer: {message}", err=True)
    sys.exit(code)


def open_bank(*, allow_placeholders: bool = False) -> Bank:
    """Load the bank or exit 1 listing every problem (``allow_placeholders``: see load_bank)."""
    try:
        return load_bank(allow_placeholders=allow_placeholders)
    except BankError as exc:
        for diagnostic in exc.diagnostics:
            click.echo(str(diagnostic), err=True)
        fail(f"{len(exc.diagnostics)} problem(s) in the question bank; run `quizzer validate`")


def echo_json(data: Any) -> None:
    """Print data as indented UTF-8 JSON."""
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def open_progress(*, create: bool = True) -> Any:
    """Open the progress DB or exit 1 with the store's message. Read-only commands pass
    ``create=False``: a missing DB then reads as empty and nothing is created."""
    from quizzer.progress.store import StoreError, open_store

    try:
        store = open_store(create=create)
    except StoreError as exc:
        fail(str(exc))
    # Closed when the command ends, so its WAL is checkpointed and nothing lingers (a test
    # running many commands in one process would otherwise keep every connection open).
    context = click.get_current_context(silent=True)
    if context is not None:
        context.call_on_close(store.close)
    return store


def card_json(question_id: str) -> dict[str, Any] | None:
    """The FSRS card of a question as JSON, or None when it was never reviewed."""
    from quizzer.progress.scheduling import card_summary

    store = open_progress(create=False)
    try:
        row = store.card(question_id)
        if row is None:
            return None
        data = card_summary(row.card)
        data.update(
            reps=row.reps,
            lapses=row.lapses,
            suspended=row.suspended,
            leech=row.leech,
            buried_until=row.buried_until,
        )
        return data
    finally:
        store.close()


def build_filters(filters: dict[str, Any]) -> Any:
    """A session.Filters from the CLI's filter options."""
    from quizzer.study.session import Filters

    return Filters(
        topics=tuple(filters.get("topics", ())),
        companies=tuple(filters.get("companies", ())),
        articles=tuple(filters.get("articles", ())),
        kinds=tuple(filters.get("kinds", ())),
        difficulties=tuple(filters.get("difficulties", ())),
        modules=tuple(filters.get("modules", ())),
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
    """Exit 2 listing the closest keys when a filter names an unknown one."""
    from quizzer.content.keys import unknown_key_message

    tables: dict[str, dict[str, Any]] = {
        "topics": bank.topics,
        "companies": bank.companies,
        "articles": bank.articles,
    }
    for name, table in tables.items():
        for key in filters.get(name, ()):
            if key not in table:
                fail(unknown_key_message(bank, name, key), 2)


def refuse_installed_bank(command: str) -> None:
    """Exit 1 when the bank is the copy installed with the package (in site-packages): a
    command that writes into the bank belongs in a clone, where the change can be committed,
    and an upgrade would silently replace anything written there."""
    from quizzer.base.paths import bank_dir, is_installed_copy

    bank = bank_dir()
    if is_installed_copy(bank):
        fail(
            f"`quizzer {command}` writes into the question bank, and {bank} is the copy installed "
            "with the package, which the next upgrade replaces. Run it in a clone of the "
            "quizzer repository (git clone, then pip install -e .), or point --bank at a bank "
            "you edit: quizzer --bank DIR " + command
        )
