"""Study commands: `quizzer drill`, `stats`, `suspend`, `unsuspend` and `settings`."""

from __future__ import annotations

from typing import Any

import click

from quizzer.cli.common import (
    build_filters,
    check_filter_keys,
    echo_json,
    fail,
    filter_options,
    open_bank,
    open_progress,
)
from quizzer.content.language import LANGUAGES


@click.command()
@filter_options
@click.option("--limit", type=click.IntRange(min=1), help="At most N questions.")
@click.option("--due-only", is_flag=True, help="Only reviews that are due.")
@click.option("--new-only", is_flag=True, help="Only questions never seen.")
@click.option("--id", "ids", multiple=True, help="Drill exactly this question now (repeatable).")
@click.option("--weak", is_flag=True, help="Questions from your weakest topics, due or not.")
@click.option("--plain", is_flag=True, help="Line-based session on stdin/stdout.")
@click.option("--lang", type=click.Choice(LANGUAGES), default=None, help="Language.")
def drill(
    limit: int | None,
    due_only: bool,
    new_only: bool,
    ids: tuple[str, ...],
    weak: bool,
    plain: bool,
    lang: str | None,
    **filters: Any,
) -> None:
    """Study: due reviews first, then new questions up to the daily limit."""
    import sys

    from quizzer.base import clock
    from quizzer.content.bank import suggest
    from quizzer.progress.settings import stored_setting
    from quizzer.study.queue import due_queue

    if due_only and new_only:
        fail("--due-only and --new-only exclude each other", 2)
    bank = open_bank()
    check_filter_keys(bank, filters)
    store = open_progress()
    store.adopt_renames(bank.previous)
    now = clock.now()
    if ids:
        questions = []
        for qid in ids:
            q = bank.get(qid)
            if q is None:
                fail(f"no question {qid!r}{suggest(qid, bank.by_id)}", 2)
            questions.append(q)
        mode = "drill"
    elif weak:
        from quizzer.study.weakness import weak_queue

        questions = weak_queue(bank, store, now, build_filters(filters), limit=limit or 10)
        mode = "weak"
    else:
        questions = due_queue(
            bank,
            store,
            now,
            build_filters(filters),
            limit=limit,
            due_only=due_only,
            new_only=new_only,
        )
        mode = "drill"
    language = lang or stored_setting(store, "language")
    if plain or not sys.stdin.isatty():
        from quizzer.cli.plain_drill import run_plain_drill

        run_plain_drill(bank, store, questions, mode=mode, lang=language)
    else:
        from quizzer.cli.app import run_app

        store.close()
        run_app(start_questions=[q.id for q in questions], bank=bank)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def stats(as_json: bool) -> None:
    """Reviews, streak, retention, due counts, and accuracy per topic and company."""
    from quizzer.base import clock
    from quizzer.study.stats import summary

    bank = open_bank()
    store = open_progress(create=False)
    data = summary(bank, store, clock.now())
    if as_json:
        echo_json(data)
        return
    retention = data["retention_30d"]
    click.echo(
        f"Reviews: {data['reviews_total']} total, {data['reviews_today']} today · "
        f"streak {data['streak_days']} day(s)\n"
        f"Due now: {data['due_now']} · new available: {data['new_available']} · "
        f"retention (30d): {'—' if retention is None else f'{retention:.0%}'}\n"
        f"Leeches: {', '.join(data['leeches']) or 'none'}"
    )
    reviewed = [row for row in data["topics"] if row["reviewed"]]
    if not reviewed:
        return
    click.echo(f"\nTopics, weakest first:\n  {'topic':<28} {'seen':>7} {'acc':>5} {'recall':>7}")
    for row in reviewed:
        acc = "—" if row["accuracy"] is None else f"{row['accuracy']:.0%}"
        r = row["mean_retrievability"]
        seen = f"{row['reviewed']}/{row['questions']}"
        click.echo(f"  {row['key']:<28} {seen:>7} {acc:>5} {'—' if r is None else f'{r:.0%}':>7}")
    click.echo(
        "acc: reviews of the last 60 days not rated Again; recall: mean recall probability now."
    )


@click.command()
@click.argument("question_id")
def suspend(question_id: str) -> None:
    """Take a question out of every queue until you unsuspend it."""
    _set_suspended(question_id, True)


@click.command()
@click.argument("question_id")
def unsuspend(question_id: str) -> None:
    """Put a suspended question back into the queues."""
    _set_suspended(question_id, False)


def _set_suspended(question_id: str, flag: bool) -> None:
    from quizzer.base import clock
    from quizzer.content.bank import suggest

    bank = open_bank()
    q = bank.get(question_id)
    if q is None:
        fail(f"no question {question_id!r}{suggest(question_id, bank.by_id)}", 2)
    store = open_progress()
    store.set_suspended(q.id, flag, clock.now())
    click.echo(f"{q.id}: {'suspended' if flag else 'back in the queues'}")


@click.command(name="settings", context_settings={"ignore_unknown_options": True})
@click.argument("key", required=False)
@click.argument("value", required=False)
@click.option(
    "--simulate",
    is_flag=True,
    help="Reviews a day and recall over the next 30 days at each desired retention.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (with --simulate).")
def settings_command(key: str | None, value: str | None, simulate: bool, as_json: bool) -> None:
    """Show your settings, or set one: quizzer settings desired_retention 0.85.

    Without arguments, lists every KEY with its value. Values are checked: a number out of
    range (negative ones too) is refused with the range it takes. --simulate shows what each
    desired retention would cost you before you choose one.
    """
    from quizzer.progress.settings import SETTINGS, SettingError, parse_setting, setting_name

    if simulate or as_json:
        from quizzer.cli.fsrs import show_workload

        if key is not None or not simulate:
            fail("--simulate takes no KEY or VALUE, and --json goes with --simulate", 2)
        show_workload(as_json)
        return

    try:
        if key is not None:
            key = setting_name(key)
        parsed = None if key is None or value is None else parse_setting(key, value)
    except SettingError as exc:
        fail(str(exc), 2)
    store = open_progress(create=value is not None)
    if key is None:
        for name, setting in SETTINGS.items():
            current = store.setting(name, setting.default)
            shown = ",".join(f"{v:g}" for v in current) if isinstance(current, list) else current
            if name == "fsrs_parameters":  # 21 numbers; `quizzer settings fsrs_parameters` has them
                shown = "default" if current is None else "yours"
            click.echo(f"{name:<22} {shown!s:<10} {setting.help}")
        return
    if value is None:
        current = store.setting(key, SETTINGS[key].default)
        if key == "fsrs_parameters":
            current = "default" if current is None else ",".join(f"{v:g}" for v in current)
        click.echo(current)
        return
    if key == "fsrs_parameters":
        from quizzer.progress.optimizer import use_parameters

        updated = use_parameters(store, None if parsed is None else tuple(parsed))
        shown = "default" if parsed is None else ",".join(f"{v:g}" for v in parsed)
        click.echo(f"{key} = {shown} (memory states of {updated} cards recomputed)")
        return
    store.set_setting(key, parsed)
    click.echo(f"{key} = {store.setting(key)}")
