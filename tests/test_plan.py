"""The study plan: tracks, scope and order, the daily quota, the cut, readiness, the retention
ramp, `quizzer plan`, and the app's Plan screen (driven with Textual's pilot)."""

from __future__ import annotations

import json
import math
import os
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from quizzer.base.clock import iso
from quizzer.content.bank import Bank, load_bank
from quizzer.content.tracks import track_topic_weights
from quizzer.progress.goal import StudyGoal
from quizzer.progress.scheduling import (
    Grade,
    SchedulerSettings,
    make_scheduler,
    new_card,
    review,
)
from quizzer.progress.store import Store
from tests.conftest import FIXED_NOW, SHIPPED_BANK, make_bank

NOW = datetime.fromisoformat(FIXED_NOW)
INTERVIEW = "2027-01-15"


@pytest.fixture
def shipped(warm_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Bank:
    """The shipped bank (with its interview map), through QUIZZER_BANK."""
    monkeypatch.setenv("QUIZZER_BANK", str(SHIPPED_BANK))
    return load_bank()


def store() -> Store:
    return Store(Path(os.environ["QUIZZER_DB"]))


def plan_json(cli, *args: str) -> dict:  # type: ignore[no-untyped-def,type-arg]
    result = cli("plan", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def study_days(
    bank: Bank,
    days: int,
    monkeypatch: pytest.MonkeyPatch,
    *,
    start: datetime = NOW,
    duration_ms: int = 60_000,
    forget: tuple[str, ...] = (),
) -> None:
    """A scripted history: each day at start's hour, every question the queue offers (due first,
    then the plan's new ones) is reviewed, Good unless its id is in ``forget`` (Again)."""
    from quizzer.study.session import due_queue

    scheduler = make_scheduler(SchedulerSettings(fuzz=False))
    db = store()
    for day in range(days):
        moment = start + timedelta(days=day)
        monkeypatch.setenv("QUIZZER_NOW", moment.isoformat())
        for q in due_queue(bank, db, moment):
            row = db.card(q.id)
            before = row.card if row else new_card(moment)
            grade = Grade.AGAIN if q.id in forget else Grade.GOOD
            db.record_review(
                question_id=q.id,
                before=before,
                after=review(scheduler, before, grade, moment),
                rating=int(grade),
                reviewed_at=moment,
                answer="",
                correct=None,
                duration_ms=duration_ms,
                seed=None,
                session_id=None,
                retrievability=None,
                content_hash=None,
            )
    db.close()


def bytedance_most_asked(bank: Bank, top: int, track: str = "inference") -> set[str]:
    """The topics of the track that ByteDance's interview pages ask most, read straight from its
    map file: each line counts once for each topic (first topic) of the questions mapped to it.
    Only the track's topics rank: a plan weighs a topic by the track too, so ByteDance's many C++
    and classic-ML lines do not put those topics first in an inference plan."""
    in_track = track_topic_weights(bank.tracks[track], bank.modules)
    data = yaml.safe_load((SHIPPED_BANK / "interview_map" / "bytedance.yaml").read_text("utf-8"))
    counts: dict[str, int] = {}
    for page in data["pages"]:
        for ids in page["lines"].values():
            if isinstance(ids, list):
                for topic in {bank.by_id[qid].topics[0] for qid in ids} & in_track.keys():
                    counts[topic] = counts.get(topic, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: -item[1])
    cutoff = ranked[top - 1][1]
    return {topic for topic, count in ranked if count >= cutoff}


# tracks ----------------------------------------------------------------------------------


def test_shipped_tracks_cover_the_four_roles_and_only_known_topics(shipped: Bank) -> None:
    assert set(shipped.tracks) == {"inference", "training", "kernels", "generalist"}
    for track in shipped.tracks.values():
        assert set(track.topics) <= set(shipped.topics), track.key
        assert set(track.modules) <= {m.module for m in shipped.modules}
    assert shipped.tracks["inference"].topics["kv-cache"] == 3


def test_validate_points_at_a_bad_track_entry(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    bank = make_bank(tmp_path / "bank")
    path = bank / "tracks.yaml"
    text = path.read_text("utf-8")
    text = text.replace("      kv-cache: 3\n", "      kv-cach: 3\n", 1)
    text = text.replace("      prefix-caching: 3\n", "      prefix-caching: 5\n", 1)
    text = text.replace("    modules:\n      3: 2\n", "    modules:\n      9: 2\n", 1)
    path.write_text(text, "utf-8")
    lines = text.splitlines()
    result = cli("--bank", str(bank), "validate", "--no-solutions")
    assert result.exit_code == 1
    bad = lines.index("      kv-cach: 3") + 1
    assert (
        f"tracks.yaml:{bad}:7: unknown topic 'kv-cach' (did you mean 'kv-cache'?)" in result.output
    )
    weight = lines.index("      prefix-caching: 5") + 1
    assert f"tracks.yaml:{weight}:23: topics.prefix-caching:" in result.output
    module = lines.index("      9: 2") + 1
    assert f"tracks.yaml:{module}:7: unknown module 9" in result.output


def test_a_bank_without_tracks_yaml_is_refused(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    bank = make_bank(tmp_path / "bank")
    (bank / "tracks.yaml").unlink()
    result = cli("--bank", str(bank), "validate", "--no-solutions")
    assert result.exit_code == 1 and "missing catalog tracks.yaml" in result.output


def test_tracks_survive_the_bank_cache(mini_bank: Path) -> None:
    first = load_bank(mini_bank)
    again = load_bank(mini_bank)  # from the cache written by the first load
    assert again.tracks == first.tracks and again.tracks["generalist"].modules[4] == 1


# setting, showing and clearing -----------------------------------------------------------


def test_unknown_keys_get_a_suggestion_and_the_valid_keys(mini_bank: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("plan", "--date", INTERVIEW, "--company", "bytedance", "--company", "moonshot")
    assert result.exit_code == 2
    assert "unknown company 'moonshot'; the company keys are: " in result.output
    assert "bytedance" in result.output.split("the company keys are:")[1]
    result = cli("plan", "--date", INTERVIEW, "--company", "bytdance", "--track", "infrence")
    assert "unknown company 'bytdance' (did you mean 'bytedance'?)" in result.output
    assert "unknown track 'infrence' (did you mean 'inference'?)" in result.output
    assert "generalist, inference, kernels, training" in result.output
    assert not Path(os.environ["QUIZZER_DB"]).exists()  # nothing saved, no DB created


def test_a_plan_needs_a_future_date_and_something_to_cover(mini_bank: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("plan", "--track", "inference")
    assert result.exit_code == 2 and "a new plan needs a date" in result.output
    result = cli("plan", "--date", "2026-11-01", "--track", "inference")
    assert result.exit_code == 2 and "has already passed" in result.output
    result = cli("plan", "--date", INTERVIEW)
    assert result.exit_code == 2 and "needs a track, a company or a topic" in result.output


def test_set_show_update_and_clear(mini_bank: Path, cli) -> None:  # type: ignore[no-untyped-def]
    assert cli("plan", "--json").output.strip() == "null"
    assert "No plan yet" in cli("plan").output
    data = plan_json(cli, "--date", INTERVIEW, "--track", "inference", "--minutes", "30")
    assert data["goal"]["track"] == "inference" and data["goal"]["minutes_per_day"] == 30
    assert data["days_left"] == (date(2027, 1, 15) - NOW.astimezone().date()).days
    data = plan_json(cli, "--minutes", "60")  # one option changed, the rest kept
    assert data["goal"]["minutes_per_day"] == 60 and data["goal"]["track"] == "inference"
    shown = cli("plan").output
    assert f"Interview on {INTERVIEW}" in shown and "day(s) left" in shown
    assert "Plan cleared" in cli("plan", "--clear").output
    assert cli("plan", "--json").output.strip() == "null"
    assert "No plan to clear" in cli("plan", "--clear").output


def test_a_saved_goal_that_no_longer_reads_counts_as_none(mini_bank: Path) -> None:
    db = store()
    db.set_setting("study_plan", {"date": "someday", "track": 3})
    assert db.study_goal() is None
    goal = StudyGoal(date=date(2027, 1, 15), track="inference")
    db.set_study_goal(goal)
    assert db.study_goal() == goal
    db.set_study_goal(None)
    assert db.study_goal() is None and db.setting("study_plan") is None


# order and quota --------------------------------------------------------------------------


def test_a_fresh_plan_starts_with_the_companys_most_asked_topics(shipped: Bank, cli) -> None:  # type: ignore[no-untyped-def]
    unplanned = cli("drill", "--plain", "--limit", "1", input=":quit\n").output
    assert "topics: cuda-programming-model" in unplanned  # without a plan: CUDA basics first
    data = plan_json(cli, "--date", INTERVIEW, "--track", "inference", "--company", "bytedance")
    most_asked = bytedance_most_asked(shipped, 6)
    first = [shipped.by_id[qid] for qid in data["today_new"][:5]]
    assert first and all(q.topics[0] in most_asked for q in first), [q.id for q in first]
    assert all(q.topics[0] != "cuda-programming-model" for q in first)
    drilled = cli("drill", "--plain", "--limit", "1", input=":quit\n").output
    assert f"[1/1] {data['today_new'][0]} " in drilled  # the drill takes the plan's order


def test_order_bands_guide_order_and_easiest_first(mini_bank: Path, cli) -> None:  # type: ignore[no-untyped-def]
    from quizzer.study.session import due_queue

    bank = load_bank(mini_bank)
    db = store()
    before = [q.id for q in due_queue(bank, db, NOW)]
    assert before[0] == "t-recall-two"  # easiest first without a plan
    plan_json(cli, "--date", INTERVIEW, "--track", "inference", "--topic", "zero")
    db = store()
    order = [q.id for q in due_queue(bank, db, NOW, new_per_day=100)]
    # No interview map in this bank, so weights are the track's: 3 for the inference topics, 2
    # for the hand-picked zero. Both are within a factor of two of the heaviest, so one band,
    # in guide order: zero (module 3) before module 4's prefill-decode, kv-cache and
    # weight-memory (chapter 1) and paged-attention (chapter 2). Then the questions outside
    # the plan, easiest first.
    assert order == [
        "t-recall-three",
        "t-recall-one",
        "t-choice-one",
        "t-numeric-weights",
        "t-recall-two",
        "t-recall-four",
        "t-numeric-allreduce",
    ]


def test_quota_spreads_the_scope_over_the_days_before_the_review_week(
    mini_bank: Path,
    cli,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from quizzer.study.session import due_queue

    today = NOW.astimezone().date()
    interview = (today + timedelta(days=9)).isoformat()
    data = plan_json(
        cli, "--date", interview, "--track", "inference", "--minutes", "60", "--review-days", "7"
    )
    # 4 in-scope questions over 9 - 7 = 2 introduction days: 2 a day, then review only.
    assert data["in_scope"] == 4 and data["daily_new_quota"] == 2 and data["fits"]
    assert data["review_only_from"] == (today + timedelta(days=2)).isoformat()
    bank = load_bank(mini_bank)
    queue = due_queue(bank, store(), NOW)
    assert [q.id for q in queue] == ["t-recall-one", "t-choice-one"]  # the quota, no more
    study_days(bank, 1, monkeypatch)
    assert plan_json(cli)["new_today"] == 0  # today's quota is used up
    tomorrow = NOW + timedelta(days=1)
    monkeypatch.setenv("QUIZZER_NOW", tomorrow.isoformat())
    assert plan_json(cli)["today_new"] == ["t-numeric-weights", "t-recall-two"]
    study_days(bank, 1, monkeypatch, start=tomorrow)
    data = plan_json(cli)
    assert data["unseen"] == 0 and data["new_today"] == 0 and data["today_new"] == []
    monkeypatch.setenv("QUIZZER_NOW", (NOW + timedelta(days=3)).isoformat())
    data = plan_json(cli)  # the review-only days: due reviews, nothing new
    assert data["introduction_days"] == 0 and data["fits"] and data["today_new"] == []


def test_the_review_week_shrinks_when_the_date_is_close(mini_bank: Path, cli) -> None:  # type: ignore[no-untyped-def]
    today = NOW.astimezone().date()
    soon = plan_json(cli, "--date", str(today + timedelta(days=6)), "--track", "inference")
    assert soon["goal"]["review_days"] == 3 and soon["introduction_days"] == 3
    later = plan_json(cli, "--date", str(today + timedelta(days=30)))
    assert later["goal"]["review_days"] == 7
    inside = plan_json(cli, "--review-days", "30")  # every day left is review-only
    assert not inside["fits"] and inside["cut"] is None
    assert "These are the review-only days: the 4 question(s)" in cli("plan").output


# readiness --------------------------------------------------------------------------------


def test_plan_json_with_a_scripted_history(shipped: Bank, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from fsrs import Scheduler

    plan_json(
        cli,
        "--date",
        INTERVIEW,
        "--track",
        "inference",
        "--company",
        "bytedance",
        "--minutes",
        "300",
    )
    forget = ("inf-kv-cache-purpose",)
    study_days(shipped, 5, monkeypatch, forget=forget)
    now = NOW + timedelta(days=5)
    monkeypatch.setenv("QUIZZER_NOW", now.isoformat())
    data = plan_json(cli)
    assert data["days_left"] == (date(2027, 1, 15) - now.astimezone().date()).days
    assert data["in_scope"] == data["introduced"] + data["unseen"] > 0
    intro_days = data["days_left"] - 7
    assert data["fits"] and data["daily_new_quota"] == math.ceil(data["unseen"] / intro_days)
    assert data["minutes_per_review"] == 1.0 and data["pace_from_reviews"] > 0  # 60 s each
    # Readiness per topic: FSRS retrievability on the morning of the date, 0 for unseen.
    db = store()
    scheduler = Scheduler(enable_fuzzing=False)
    morning = datetime.combine(date(2027, 1, 15), datetime.min.time().replace(hour=9))
    moment = morning.astimezone().astimezone(UTC)
    expected: dict[str, list[float]] = {}
    for qid in [qid for row in data["topics"] for qid in _topic_ids(shipped, data, row["key"])]:
        row = db.card(qid)
        value = 0.0 if row is None else scheduler.get_card_retrievability(row.card, moment)
        expected.setdefault(shipped.by_id[qid].topics[0], []).append(value)
    for row in data["topics"]:
        values = expected[row["key"]]
        assert row["readiness"] == pytest.approx(sum(values) / len(values), abs=1e-3), row
    studied = [row for row in data["topics"] if row["unseen"] < row["questions"]]
    assert studied and all(row["readiness"] > 0 for row in studied)
    assert all(row["readiness"] == 0 for row in data["topics"] if row["unseen"] == row["questions"])
    everything = [value for values in expected.values() for value in values]
    assert data["readiness"]["overall"] == pytest.approx(sum(everything) / len(everything), 1e-3)
    assert 0 < data["readiness"]["companies"]["bytedance"] < 1
    assert any(r["question_id"] == forget[0] and r["rating"] == 1 for r in db.reviews())
    forgotten = shipped.by_id[forget[0]].topics[0]
    assert next(r for r in data["topics"] if r["key"] == forgotten)["unseen"] == 0
    assert data["today_due"]  # a forgotten question is due again today
    text = cli("plan").output
    assert "Ready on the day" in text and "ByteDance" in text and f"{data['days_left']} day" in text
    again = plan_json(
        cli, "--date", INTERVIEW, "--track", "inference", "--company", "bytedance", "--minutes=300"
    )  # setting the same goal again reports the same
    assert again == data


def _topic_ids(bank: Bank, data: dict, topic: str) -> list[str]:  # type: ignore[type-arg]
    """The in-scope questions of a topic under the report's goal (rebuilt from its scope)."""
    from quizzer.study.plan_scope import scope_for

    goal = StudyGoal.model_validate(data["goal"])
    return scope_for(bank, goal).topics[topic].question_ids


# does not fit -----------------------------------------------------------------------------


def test_when_the_work_cannot_fit_the_plan_says_so_and_proposes_the_cut(
    shipped: Bank,
    cli,  # type: ignore[no-untyped-def]
) -> None:
    data = plan_json(
        cli,
        "--date",
        INTERVIEW,
        "--track",
        "inference",
        "--company",
        "bytedance",
        "--minutes",
        "20",
    )
    assert not data["fits"]
    assert data["daily_new_quota"] < data["needed_new_quota"]
    assert data["busiest_week_minutes"] <= 20 < data["needed_busiest_week_minutes"]
    cut = data["cut"]
    assert cut["questions_saved"] >= cut["shortfall"] > 0
    assert cut["questions_saved"] == sum(t["saved"] for t in cut["topics"])
    dropped = {t["key"] for t in cut["topics"]}
    kept = [row for row in data["topics"] if row["key"] not in dropped]
    assert max(t["weight"] for t in cut["topics"]) <= min(row["weight"] for row in kept)
    text = cli("plan").output
    assert "This plan does not fit in 20 minutes a day" in text
    assert f"saving {cut['questions_saved']} question(s)" in text
    assert cut["topics"][0]["key"] in text and "quizzer plan --apply-cut" in text
    applied = cli("plan", "--apply-cut")
    assert f"Dropped {len(dropped)} topic(s)" in applied.output
    after = plan_json(cli)
    assert after["fits"] and set(after["goal"]["dropped"]) == dropped
    assert after["in_scope"] == data["in_scope"] - cut["questions_saved"]
    assert "nothing to cut" in cli("plan", "--apply-cut").output


def test_pace_comes_from_the_users_own_review_times(mini_bank: Path) -> None:
    from quizzer.study.plan_load import DEFAULT_MINUTES_PER_REVIEW, review_pace

    db = store()
    assert review_pace(db).minutes == DEFAULT_MINUTES_PER_REVIEW
    scheduler = make_scheduler(SchedulerSettings(fuzz=False))
    for index in range(30):
        moment = NOW - timedelta(minutes=index)
        card = new_card(moment)
        db.record_review(
            question_id=f"q{index}",
            before=card,
            after=review(scheduler, card, Grade.GOOD, moment),
            rating=3,
            reviewed_at=moment,
            answer="",
            correct=None,
            duration_ms=3_600_000 if index == 0 else 120_000,  # one left open for an hour
            seed=None,
            session_id=None,
            retrievability=None,
            content_hash=None,
        )
    pace = review_pace(db)
    assert pace.timed_reviews == 30
    assert pace.minutes == pytest.approx((29 * 2 + 5) / 30, abs=0.01)  # the hour counts as 5 min


# the retention ramp -----------------------------------------------------------------------


def test_retention_rises_over_the_last_two_weeks() -> None:
    goal = StudyGoal(date=date(2027, 1, 15), track="inference")
    at = lambda days: datetime(2027, 1, 15, 12, tzinfo=UTC) - timedelta(days=days)  # noqa: E731
    assert goal.retention_on(at(30), 0.9) == 0.9
    assert goal.retention_on(at(14), 0.9) == 0.9
    assert goal.retention_on(at(7), 0.9) == pytest.approx(0.925)
    assert goal.retention_on(at(0), 0.9) == pytest.approx(0.95)
    assert goal.retention_on(at(-1), 0.9) == 0.9  # the date has passed
    assert goal.retention_on(at(3), 0.97) == 0.97  # never lowered
    flat = goal.model_copy(update={"ramp_days": 0})
    assert flat.retention_on(at(1), 0.9) == 0.9
    custom = goal.model_copy(update={"final_retention": 0.97, "ramp_days": 10})
    assert custom.retention_on(at(5), 0.9) == pytest.approx(0.935)


def test_reviews_near_the_date_get_shorter_intervals(
    mini_bank: Path,
    cli,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from quizzer.study.session import StudySession

    bank = load_bank(mini_bank)
    db = store()
    scheduler = make_scheduler(SchedulerSettings(fuzz=False))
    card = new_card(NOW - timedelta(days=40))
    for days in (40, 37, 27, 5):  # a mature card, due again today
        card = review(scheduler, card, Grade.GOOD, NOW - timedelta(days=days))
    question = bank.by_id["t-recall-one"]

    def good_interval() -> tuple[str, float]:
        """What Good would give the mature card now, and the retention the session aims at."""
        session = StudySession(bank, db, [question], record_session=False)
        session.next()
        return session.intervals(card)[Grade.GOOD], session.scheduler.desired_retention

    plain, plain_retention = good_interval()
    interview = (NOW.astimezone().date() + timedelta(days=4)).isoformat()
    cli("plan", "--date", interview, "--track", "inference")
    ramped, ramped_retention = good_interval()
    assert plain_retention == 0.9
    assert ramped_retention == pytest.approx(0.9 + 0.05 * (1 - 4 / 14), abs=1e-4)
    assert _days(ramped) < _days(plain)
    assert f"Desired retention today {ramped_retention:.2f}" in cli("plan").output


def _days(interval: str) -> float:
    """'12d' -> 12, '1.3mo' -> 39: the interval strings the rating buttons show."""
    units = {"m": 1 / 1440, "h": 1 / 24, "d": 1, "mo": 30, "y": 365}
    for suffix in ("mo", "m", "h", "d", "y"):
        if interval.endswith(suffix):
            return float(interval[: -len(suffix)]) * units[suffix]
    raise AssertionError(interval)


def test_the_dashboard_counts_follow_the_plan(mini_bank: Path, cli) -> None:  # type: ignore[no-untyped-def]
    from quizzer.study.stats import dashboard_data

    bank = load_bank(mini_bank)
    assert dashboard_data(bank, store(), NOW)["plan"] is None
    interview = (NOW.astimezone().date() + timedelta(days=9)).isoformat()
    cli("plan", "--date", interview, "--track", "inference")
    data = dashboard_data(bank, store(), NOW)
    # 4 questions over the 5 days before the (shortened) review days: 1 a day, not the
    # new_per_day setting's 15.
    assert data["new_available"] == 1
    assert data["plan"].startswith("Plan: Inference and serving · 9 days left · 1 new today")
    assert json.loads(cli("stats", "--json").output)["new_available"] == 1
    assert iso(NOW)  # the clock stayed fixed


# the Plan screen ----------------------------------------------------------------------------


async def test_plan_screen_sets_the_goal_and_shows_countdown_readiness_and_today(
    mini_bank: Path,
) -> None:
    from textual.widgets import Select, SelectionList

    from quizzer.tui.app import QuizzerApp

    bank = load_bank(mini_bank, use_cache=False)
    app = QuizzerApp(bank, store())
    async with app.run_test(size=(100, 30)) as pilot:

        async def settle() -> None:
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()

        await settle()
        await pilot.press("p")
        await settle()
        assert type(app.screen).__name__ == "PlanFormModal"  # no plan yet: the form opens
        await pilot.press(*INTERVIEW)
        app.screen.query_one("#plan-track", Select).value = "inference"
        app.screen.query_one("#plan-companies", SelectionList).select("bytedance")
        topics = app.screen.query_one("#plan-topics")
        topics.value = "kv-cach"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await pilot.pause()
        error = str(app.screen.query_one("#plan-form-error").render())
        assert "unknown topic 'kv-cach' (did you mean 'kv-cache'?)" in error
        assert app.store.study_goal() is None  # nothing saved
        topics.value = "zero"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await settle()
        goal = app.store.study_goal()
        assert goal is not None and goal.companies == ("bytedance",) and goal.topics == ("zero",)
        assert type(app.screen).__name__ == "PlanScreen"
        days = (date(2027, 1, 15) - NOW.astimezone().date()).days
        head = str(app.screen.query_one("#plan-head").render())
        assert f"{days} days left · interview {INTERVIEW}" in head and "Ready overall 0%" in head
        shown = app.export_screenshot()
        for title in ("Prefill and decode", "KV cache", "ZeRO 1/2/3 and offload"):
            assert title.replace(" ", "&#160;") in shown, title  # one row per in-scope topic
        assert "········&#160;&#160;&#160;0%" in shown  # an empty bar: nothing studied yet
        today = str(app.screen.query_one("#plan-today").render())
        assert "0 due · 1 new today" in today and "Quota 1 new a day" in today
        assert "new t-recall-three" in today
        await pilot.press("s")
        await pilot.pause()
        assert type(app.screen).__name__ == "StudyScreen"
        assert app.screen.session.current.question.id == "t-recall-three"  # type: ignore[attr-defined]
        await pilot.press("escape")
        await settle()
        await pilot.press("escape")
        await settle()
        counts = str(app.screen.query_one("#counts").render())
        assert "Plan: ByteDance · Inference and serving" in counts and f"{days} days left" in counts
