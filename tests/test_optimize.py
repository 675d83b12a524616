"""FSRS tuned to the user: `quizzer optimize` fits the parameters to a simulated learner whose
memory differs from the defaults, every later review uses them, `--reset` undoes it; and
`quizzer settings --simulate` shows what each desired retention costs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import yaml
from click.testing import Result
from fsrs import Rating, Scheduler

from quizzer.progress.optimizer import MIN_REVIEWS, FitReport, Score
from quizzer.progress.scheduling import (
    DEFAULT_PARAMETERS,
    SchedulerSettings,
    card_from_json,
    new_card,
    review,
)
from quizzer.progress.store import Store
from quizzer.study.workload import rating_habits, simulate
from tests.conftest import FIXED_NOW, FIXTURES, save_review
from tests.fsrs_history import TRUE_PARAMETERS, simulate_history

Cli = Callable[..., Result]
NOW = datetime.fromisoformat(FIXED_NOW)
MINI_IDS = [q["id"] for q in yaml.safe_load((FIXTURES / "mini-questions.yaml").read_text("utf-8"))]


@pytest.fixture(scope="module")
def long_history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DB with about 2,500 reviews of 260 questions over 120 days (the mini bank's questions
    first), made once for the module and copied into each test's own DB."""
    path = tmp_path_factory.mktemp("history") / "history.db"
    store = Store(path)
    ids = MINI_IDS + [f"synthetic-{n:03d}" for n in range(260 - len(MINI_IDS))]
    simulate_history(store, question_ids=ids, end=NOW, days=120, new_per_day=5, seed=1)
    store.close()
    return path


@pytest.fixture
def history(long_history: Path) -> Store:
    """This test's DB, holding the long history."""
    target = Path(os.environ["QUIZZER_DB"])
    shutil.copy(long_history, target)
    return Store(target)


def stored_weights(store: Store) -> list[float] | None:
    return store.setting("fsrs_parameters")


def test_optimize_fits_the_history_and_every_later_review_uses_it(
    cli: Cli, mini_bank: Path, history: Store
) -> None:
    assert history.review_count() >= 2000
    before_fit = json.loads(cli("show", "t-recall-one", "--json").output)["card"]

    result = cli("optimize", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["reviews"] == history.review_count() and report["saved"] is True
    current, fitted = report["current"], report["fitted"]
    assert current["source"] == "default" and current["parameters"] == list(DEFAULT_PARAMETERS)
    # lower log loss and RMSE on the whole history, and on the newest 20% held out of the fit
    for scope in ("whole_history", "held_out"):
        assert fitted[scope]["log_loss"] < current[scope]["log_loss"] - 0.005, scope
        assert fitted[scope]["rmse_bins"] < current[scope]["rmse_bins"], scope
    weights = stored_weights(history)
    assert weights == fitted["parameters"] and len(weights) == 21

    # studied cards got the new memory state; their due dates stayed
    refitted = json.loads(cli("show", "t-recall-one", "--json").output)["card"]
    assert refitted["due"] == before_fit["due"]
    assert refitted["stability"] != pytest.approx(before_fit["stability"])

    # the next review is scheduled with the fitted parameters, not the defaults
    card = history.card("t-recall-one")
    assert card is not None
    reviewed = cli("drill", "--id", "t-recall-one", input="x\n\n3\n")
    assert reviewed.exit_code == 0, reviewed.output
    shown = json.loads(cli("show", "t-recall-one", "--json").output)["card"]
    with_fit = Scheduler(parameters=weights, enable_fuzzing=False)
    with_defaults = Scheduler(enable_fuzzing=False)
    expected, _ = with_fit.review_card(card.card, Rating.Good, NOW)
    default, _ = with_defaults.review_card(card.card, Rating.Good, NOW)
    assert shown["stability"] == pytest.approx(expected.stability)
    assert shown["difficulty"] == pytest.approx(expected.difficulty)
    assert shown["due"] == expected.due.isoformat()
    assert shown["stability"] != pytest.approx(default.stability, rel=1e-3)

    text = cli("optimize").output  # the same figures, for people
    assert f"{history.review_count():,} reviews of 260 questions" in text
    assert "log loss" in text and "RMSE" in text and "held out" in text


def test_optimize_text_report_and_reset(cli: Cli, mini_bank: Path, history: Store) -> None:
    original = json.loads(cli("show", "t-recall-one", "--json").output)["card"]
    text = cli("optimize").output
    assert "Saved: every review from now on" in text
    assert "default parameters" in text and "fitted to you" in text
    assert "quizzer optimize --reset" in text
    assert cli("settings").output.count("yours") == 1
    pasted = cli("settings", "fsrs_parameters").output.strip()
    assert [float(v) for v in pasted.split(",")] == stored_weights(history)

    result = cli("optimize", "--reset")
    assert result.exit_code == 0
    assert "Back to the default FSRS-6 parameters" in result.output
    assert stored_weights(history) is None
    # the history was scheduled with the defaults, so the memory states are as they were
    assert json.loads(cli("show", "t-recall-one", "--json").output)["card"] == original
    assert "Already on the default" in cli("optimize", "--reset").output


def test_ten_reviews_are_refused_with_how_much_is_needed(cli: Cli, mini_bank: Path) -> None:
    store = Store(Path(os.environ["QUIZZER_DB"]))
    scheduler = Scheduler(enable_fuzzing=False)
    card = new_card(NOW - timedelta(days=40))
    for day in range(10):
        when = NOW - timedelta(days=40 - 4 * day)
        after = review(scheduler, card, 3, when)
        save_review(store, "t-recall-one", card, after, 3, when)
        card = after
    result = cli("optimize")
    assert result.exit_code == 1
    assert "too little history" in result.stderr
    assert "10 review(s), 9 of them made a day or more after" in result.stderr
    assert f"at least {MIN_REVIEWS} reviews" in result.stderr
    assert "Traceback" not in result.output
    assert stored_weights(store) is None
    assert cli("optimize", "--json").exit_code == 1  # no half-written JSON either


def test_fsrs_parameters_can_be_pasted_and_are_checked(
    cli: Cli, mini_bank: Path, history: Store
) -> None:
    wrong = cli("settings", "fsrs_parameters", "1,2,3")
    assert wrong.exit_code == 2 and "takes 21 parameters, not 3" in wrong.stderr
    weights = [str(w) for w in DEFAULT_PARAMETERS]
    weights[4] = "100"  # initial difficulty: fsrs takes 1 to 10
    refused = cli("settings", "fsrs_parameters", ",".join(weights))
    assert refused.exit_code == 2 and "w4 = 100 is outside 1..10" in refused.stderr
    pasted = ",".join(f"{w:g}" for w in TRUE_PARAMETERS)
    assert cli("settings", "fsrs_parameters", pasted).exit_code == 0
    assert stored_weights(history) == list(TRUE_PARAMETERS)
    before = history.card("t-recall-two")
    assert before is not None
    cli("drill", "--id", "t-recall-two", input="x\n\n3\n")
    shown = json.loads(cli("show", "t-recall-two", "--json").output)["card"]
    expected, _ = Scheduler(parameters=TRUE_PARAMETERS, enable_fuzzing=False).review_card(
        before.card, Rating.Good, NOW
    )
    assert shown["stability"] == pytest.approx(expected.stability)
    assert cli("settings", "fsrs_parameters", "default").exit_code == 0
    assert stored_weights(history) is None


def test_a_fit_that_is_worse_on_held_out_reviews_is_not_better() -> None:
    def report(whole: float, held: float) -> FitReport:
        base = Score(0.40, 0.05)
        return FitReport(
            reviews=1000,
            questions=100,
            later_reviews=600,
            current=tuple(DEFAULT_PARAMETERS),
            current_is_default=True,
            fitted=tuple(DEFAULT_PARAMETERS),
            before=base,
            after=Score(whole, 0.04),
            held_out_reviews=120,
            held_out_before=base,
            held_out_after=Score(held, 0.04),
        )

    assert report(0.38, 0.39).better
    assert not report(0.38, 0.41).better  # overfits: better on the past, worse on the new
    assert not report(0.40, 0.39).better  # no gain on the whole history


def workload_rows(cli: Cli) -> list[dict[str, float]]:
    result = cli("settings", "--simulate", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["rows"]


def test_higher_retention_costs_more_reviews_and_buys_more_recall(history: Store) -> None:
    cards = [card_from_json(row.card_json) for row in history.studied_cards()]
    assert len(cards) == 260
    rows = simulate(
        cards,
        SchedulerSettings(),
        rating_habits(history.rating_counts()),
        now=NOW,
        new_available=100,
        new_per_day=5,
        new_today=5,
    )
    reviews = [row["reviews_per_day"] for row in rows]
    recall = [row["recall"] for row in rows]
    assert reviews == sorted(reviews) and reviews[-1] > 2 * reviews[0]
    assert recall == sorted(recall) and recall[-1] - recall[0] > 0.03  # type: ignore[operator]
    assert all(row["new_per_day"] == pytest.approx(100 / 30, abs=0.01) for row in rows)


def test_settings_simulate_table_and_json(cli: Cli, mini_bank: Path, history: Store) -> None:
    rows = workload_rows(cli)
    assert [row["retention"] for row in rows] == [0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97]
    assert [row["retention"] for row in rows if row["current"]] == [0.9]
    assert rows[-1]["reviews_per_day"] >= rows[0]["reviews_per_day"]
    assert all(len(row["daily_reviews"]) == 30 for row in rows)  # type: ignore[arg-type]

    cli("settings", "desired_retention", "0.88")
    text = cli("settings", "--simulate").output
    assert "▸      0.88" in text and "reviews/day" in text and "recall at day 30" in text
    assert "the default parameters over your 7 studied questions" in text

    cli("optimize")
    simulated = json.loads(cli("settings", "--simulate", "--json").output)
    assert simulated["parameters"] == "yours"
    assert cli("settings", "--json").exit_code == 2  # --json belongs to --simulate


def test_simulating_nothing_to_study_costs_nothing(cli: Cli, mini_bank: Path) -> None:
    cli("settings", "new_per_day", "0")
    rows = workload_rows(cli)
    assert all(row["reviews_per_day"] == 0 and row["recall"] is None for row in rows)
    cli("settings", "new_per_day", "2")
    rows = workload_rows(cli)
    # the mini bank's 7 questions, 2 a day, each rated at least once on the day it comes
    assert all(row["new_per_day"] == pytest.approx(7 / 30, abs=0.01) for row in rows)
    assert all(row["reviews_per_day"] * 30 >= 7 for row in rows)


def test_the_library_is_loaded_only_when_fitting() -> None:
    code = (
        "import sys, quizzer.cli.main, quizzer.tui.app, quizzer.progress.optimizer, "
        "quizzer.study.workload, quizzer.tui.screens.settings; "
        "print('fsrs_rs_python' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_settings_screen_optimizes_in_a_worker_and_charts_the_workload(
    mini_bank: Path, history: Store
) -> None:
    from quizzer.content.bank import load_bank
    from quizzer.tui.app import QuizzerApp

    app = QuizzerApp(load_bank(mini_bank, use_cache=False), history)
    async with app.run_test(size=(110, 50)) as pilot:
        await pilot.press("comma")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        chart = str(app.screen.query_one("#workload").render())
        assert "0.97" in chart and "▸" in chart and "reviews/day" in chart
        assert "the defaults" in str(app.screen.query_one("#fsrs-status").render())
        await pilot.press("ctrl+o")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        report = str(app.screen.query_one("#fsrs-report").render())
        assert "Fitted FSRS-6 to" in report and "Saved" in report
        assert "yours" in str(app.screen.query_one("#fsrs-status").render())
        assert "your parameters" in str(app.screen.query_one("#workload").render())
    assert stored_weights(history) is not None and len(stored_weights(history) or []) == 21


async def test_leaving_settings_while_it_fits_is_safe(mini_bank: Path, history: Store) -> None:
    from quizzer.content.bank import load_bank
    from quizzer.tui.app import QuizzerApp

    app = QuizzerApp(load_bank(mini_bank, use_cache=False), history)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("comma")
        await pilot.pause()
        await pilot.press("ctrl+o", "escape")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen.__class__.__name__ == "DashboardScreen"
    assert len(stored_weights(history) or []) == 21  # the fit finished and saved all the same
