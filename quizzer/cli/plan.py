"""`quizzer plan`: set, show or clear the study plan toward an interview date."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

import click

from quizzer.cli.common import echo_json, fail, open_bank, open_progress

if TYPE_CHECKING:
    from quizzer.content.bank import Bank
    from quizzer.progress.goal import StudyGoal

TOPICS_SHOWN = 40
TODAY_SHOWN = 12


@click.command(name="plan")
@click.option(
    "--date",
    "when",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    help="The interview date, YYYY-MM-DD.",
)
@click.option("--track", help="A track from question_bank/tracks.yaml (`none` for no track).")
@click.option(
    "--company", "companies", multiple=True, help="A company whose interviews to prepare for."
)
@click.option("--topic", "topics", multiple=True, help="A topic to include by hand (repeatable).")
@click.option(
    "--drop-topic", "dropped", multiple=True, help="A topic to leave out of scope (repeatable)."
)
@click.option("--apply-cut", is_flag=True, help="Drop the topics the plan proposes to cut.")
@click.option("--minutes", type=click.IntRange(5, 1440), help="Study minutes per day (default 45).")
@click.option(
    "--review-days",
    type=click.IntRange(0, 60),
    help="Days before the date kept for review only (default 7).",
)
@click.option(
    "--final-retention",
    type=click.FloatRange(0.7, 0.99),
    help="Desired retention on the interview day (default 0.95).",
)
@click.option(
    "--ramp-days",
    type=click.IntRange(0, 90),
    help="Days over which retention rises to it (default 14; 0 for none).",
)
@click.option("--clear", is_flag=True, help="End the plan.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
def plan_command(
    when: datetime | None,
    track: str | None,
    companies: tuple[str, ...],
    topics: tuple[str, ...],
    dropped: tuple[str, ...],
    apply_cut: bool,
    minutes: int | None,
    review_days: int | None,
    final_retention: float | None,
    ramp_days: int | None,
    clear: bool,
    as_json: bool,
) -> None:
    """Plan toward an interview: what to study, how much a day, how ready you will be.

    Set it with a date and a track, companies or topics; run it bare to see today's plan.
    Options given again replace what they set (the others are kept). While a plan is active,
    new questions come in its order and at its daily quota, and desired retention rises over
    the last days before the date.
    """
    from quizzer.base import clock
    from quizzer.study.plan import plan_report

    changes = _given(
        date=when.date() if when else None,
        track=track,
        companies=companies or None,
        topics=topics or None,
        dropped=dropped or None,
        minutes_per_day=minutes,
        review_days=review_days,
        final_retention=final_retention,
        ramp_days=ramp_days,
    )
    if clear and (changes or apply_cut):
        fail("--clear ends the plan; give it alone", 2)
    now = clock.now()
    if clear:
        _clear_plan()
        return
    bank = open_bank()
    store = open_progress(create=False)  # created only once there is a plan to save
    goal = _changed_goal(bank, store.study_goal(), changes, now)
    if goal is None:
        _no_plan(as_json)
        return
    _check_saved_goal(bank, goal)
    if apply_cut:
        goal = _apply_cut(bank, goal, plan_report(bank, store, goal, now))
    if changes or apply_cut:
        if not store.exists:
            store = open_progress()
        store.set_study_goal(goal)
    report = plan_report(bank, store, goal, now)
    if as_json:
        echo_json(report)
        return
    click.echo(render_report(bank, report))


def _given(**options: Any) -> dict[str, Any]:
    """The options given, as changes to the saved goal (by StudyGoal field); `--track none`
    removes the track."""
    changes = {key: value for key, value in options.items() if value is not None}
    if changes.get("track") == "none":
        changes["track"] = None
    return changes


def _clear_plan() -> None:
    """End the plan, if there is one."""
    store = open_progress(create=False)
    if store.study_goal() is None:
        click.echo("No plan to clear.")
        return
    store.set_study_goal(None)
    click.echo("Plan cleared: new questions come easiest first again.")


def _changed_goal(
    bank: Bank, goal: StudyGoal | None, changes: dict[str, Any], now: datetime
) -> StudyGoal | None:
    """The saved goal with ``changes`` applied (the saved one when there are none); a change
    that does not check out ends the command, naming every problem."""
    from quizzer.study.plan import PlanError, make_goal

    if not changes:
        return goal
    try:
        return make_goal(bank, goal, changes, now)
    except PlanError as exc:
        lines = str(exc).splitlines()
        for line in lines[:-1]:
            click.echo(f"quizzer: {line}", err=True)
        fail(lines[-1], 2)


def _no_plan(as_json: bool) -> None:
    """Say there is no plan yet, with an example of setting one (null with --json)."""
    from quizzer.study.plan import EXAMPLE

    if as_json:
        echo_json(None)
    else:
        click.echo(f"No plan yet. Set one, for example:\n  {EXAMPLE}")


def _check_saved_goal(bank: Bank, goal: StudyGoal) -> None:
    """End the command when the saved plan names keys the bank no longer has."""
    from quizzer.study.plan import goal_problems

    problems = goal_problems(bank, goal)
    if problems:
        for problem in problems:
            click.echo(f"quizzer: {problem}", err=True)
        fail("the saved plan needs fixing: give those options again, or `quizzer plan --clear`")


def _apply_cut(bank: Bank, goal: StudyGoal, report: dict[str, Any]) -> StudyGoal:
    """The goal with the proposed cut's topics dropped (unchanged when it fits)."""
    cut = report["cut"]
    if cut is None:
        click.echo("The plan fits: nothing to cut.")
        return goal
    keys = [t["key"] for t in cut["topics"]]
    click.echo(
        f"Dropped {len(keys)} topic(s), {cut['questions_saved']} question(s): {', '.join(keys)}"
    )
    return goal.model_copy(update={"dropped": tuple(dict.fromkeys([*goal.dropped, *keys]))})


def _bar(fraction: float, width: int = 10) -> str:
    filled = round(max(0.0, min(1.0, fraction)) * width)
    return "█" * filled + "·" * (width - filled)


def render_report(bank: Bank, report: dict[str, Any]) -> str:
    """The plan as text: countdown, scope, quota, time, readiness per topic and today's list."""
    goal = report["goal"]
    if not report["active"]:
        return f"The interview date {goal['date']} has passed. Set a new date or --clear."
    lines = _outline_lines(bank, report)
    if not report["fits"]:
        lines += ["", *cut_message(report)]
    lines += ["", *_readiness_lines(bank, report), "", *_today_lines(report)]
    return "\n".join(lines)


def _outline_lines(bank: Bank, report: dict[str, Any]) -> list[str]:
    """The countdown and aims, the scope, the daily quota, the time it takes and the desired
    retention, a line each."""
    goal = report["goal"]
    aim = [bank.companies[c].name_en for c in goal["companies"]]
    if report["track_title"]:
        aim.append(f"{report['track_title']} track")
    if goal["topics"]:
        aim.append("topics " + ", ".join(goal["topics"]))
    review_from = report["review_only_from"]
    window = f"; review only from {review_from}" if review_from else ""
    pace = f"{report['minutes_per_review']:g} min per review " + (
        f"(your last {report['pace_from_reviews']} reviews)"
        if report["pace_from_reviews"]
        else "(a default until you have 20 timed reviews)"
    )
    return [
        f"Interview on {goal['date']}: {report['days_left']} day(s) left · {' · '.join(aim)}",
        f"Scope: {report['in_scope']} questions in {len(report['topics'])} topics; "
        f"{report['introduced']} seen, {report['unseen']} new to introduce"
        + (f" ({len(goal['dropped'])} topic(s) dropped)" if goal["dropped"] else ""),
        f"New per day: {report['daily_new_quota']}{window} · today {report['new_today']} new "
        f"and {len(report['today_due'])} due",
        f"Time: about {report['busiest_week_minutes']:.0f} of {goal['minutes_per_day']} min a "
        f"day in the busiest week, at {pace}",
        f"Desired retention today {report['desired_retention_now']:.2f}; it rises to "
        f"{goal['final_retention']:.2f} over the last {goal['ramp_days']} days"
        if goal["ramp_days"]
        else f"Desired retention {report['desired_retention_now']:.2f} (no ramp)",
    ]


def _readiness_lines(bank: Bank, report: dict[str, Any]) -> list[str]:
    """Readiness on the day, overall and per company, then a row per topic (the first
    TOPICS_SHOWN)."""
    readiness = report["readiness"]
    companies = "".join(
        f"; {bank.companies[key].name_en} {value:.0%}"
        for key, value in readiness["companies"].items()
    )
    lines = [
        f"Ready on the day (recall if you stopped now): overall {readiness['overall']:.0%}"
        f"{companies}"
    ]
    header = f"{'topic (in the order they come)':<36} {'asked':>5} {'new':>4}/{'all':<4} recall"
    lines.append(f"  {header}")
    for row in report["topics"][:TOPICS_SHOWN]:
        lines.append(
            f"  {row['key']:<36} {row['asked']:>5} {row['unseen']:>4}/{row['questions']:<4} "
            f"{_bar(row['readiness'])} {row['readiness']:.0%}"
        )
    if len(report["topics"]) > TOPICS_SHOWN:
        lines.append(f"  … and {len(report['topics']) - TOPICS_SHOWN} more (--json lists all)")
    return lines


def _today_lines(report: dict[str, Any]) -> list[str]:
    """Today's due and new counts, and the first TODAY_SHOWN new questions."""
    today = report["today_due"] + report["today_new"]
    lines = [
        f"Today: {len(report['today_due'])} due, {len(report['today_new'])} new"
        + (" — start with `quizzer drill`" if today else " — nothing left for today")
    ]
    for qid in report["today_new"][:TODAY_SHOWN]:
        lines.append(f"  new  {qid}")
    if len(report["today_new"]) > TODAY_SHOWN:
        lines.append(f"  … {len(report['today_new']) - TODAY_SHOWN} more new")
    return lines


def cut_message(report: dict[str, Any]) -> list[str]:
    """Why the plan does not fit, and the cut that would make it (lines of text)."""
    goal = report["goal"]
    cut = report["cut"]
    if cut is None:  # no day is left to introduce them on
        return [
            f"These are the review-only days: the {report['unseen']} question(s) not seen yet "
            "will not be introduced. To bring them in, shorten the review with "
            "`quizzer plan --review-days N` (fewer days than are left)."
        ]
    lines = [
        f"This plan does not fit in {goal['minutes_per_day']} minutes a day: introducing all "
        f"{report['unseen']} new questions in time takes {report['needed_new_quota']} a day, "
        f"about {report['needed_busiest_week_minutes']:.0f} minutes a day in the busiest week. "
        f"At the {report['daily_new_quota']} a day that fit, {cut['shortfall']} would never "
        "come up."
    ]
    if cut["topics"]:
        lines.append(
            f"Proposed cut: drop the {len(cut['topics'])} least-asked topic(s), saving "
            f"{cut['questions_saved']} question(s):"
        )
        for topic in cut["topics"]:
            lines.append(
                f"  {topic['key']:<36} asked {topic['asked']:>3}  {topic['saved']:>3} question(s)"
            )
        lines.append(
            "Apply it with `quizzer plan --apply-cut`, or give more time with "
            f"`--minutes {math_ceil(report['needed_busiest_week_minutes'])}`."
        )
    else:
        lines.append("The reviews already due fill the time: give more minutes or a later date.")
    return lines


def math_ceil(value: float) -> int:
    """``value`` rounded up to a whole number of minutes."""
    import math

    return max(5, math.ceil(value))
