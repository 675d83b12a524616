"""Grading and rating (issue 13, items 14 and 15): a blank or wrong choice or numeric answer is
Again and only Again is offered, in the core, the plain drill and the app; a mock's recall
answers are self-rated at the end in both front ends, `:quit` and end of input keep only what
was rated, and nothing unrated is saved as Good."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from quizzer.content.bank import Bank, load_bank
from quizzer.progress.scheduling import Grade
from quizzer.progress.store import Store
from quizzer.study.mock import MockRatings
from quizzer.study.session import StudySession
from quizzer.tui.app import QuizzerApp
from quizzer.tui.widgets.checklist import KeyPointChecklist
from tests.conftest import plain_mock

Cli = Callable[..., Result]


def open_store() -> Store:
    return Store(Path(os.environ["QUIZZER_DB"]))


def saved(store: Store) -> list[tuple[str, int, str | None]]:
    """(question, rating, typed answer) of every stored review, oldest first."""
    return [(r["question_id"], r["rating"], r["answer"]) for r in store.reviews()]


@pytest.fixture
def bank(mini_bank: Path) -> Bank:
    return load_bank(mini_bank, use_cache=False)


# 15: the core -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("qid", "typed"),
    [
        ("t-choice-one", ""),
        ("t-choice-one", "A"),
        ("t-choice-one", "A, B"),
        ("t-numeric-weights", ""),
        ("t-numeric-weights", "1 GB"),
    ],
    ids=["choice-blank", "choice-wrong", "choice-half-right", "numeric-blank", "numeric-wrong"],
)
def test_blank_or_wrong_auto_graded_answer_offers_again_alone_and_saves_again(
    bank: Bank, qid: str, typed: str
) -> None:
    store = open_store()
    session = StudySession(bank, store, [bank.by_id[qid]])
    session.next()
    outcome = session.submit(typed)
    assert outcome.allowed == (Grade.AGAIN,) and outcome.suggested == Grade.AGAIN
    assert outcome.why_limited in ("a blank answer is rated again", "a wrong answer is rated again")
    session.rate(Grade.EASY)  # a front end that asked anyway still gets Again
    assert saved(store) == [(qid, 1, typed)]


def test_right_choice_and_revealed_recall_offer_all_four_ratings(bank: Bank) -> None:
    store = open_store()
    session = StudySession(bank, store, [bank.by_id["t-choice-one"], bank.by_id["t-recall-one"]])
    session.next()
    assert session.submit("B").allowed == tuple(Grade)
    session.rate(Grade.EASY)
    session.next()
    revealed = session.submit("")  # Space/Enter reveals a recall question to self-grade
    assert revealed.allowed == tuple(Grade) and revealed.why_limited == ""
    session.rate(Grade.GOOD)
    assert [(qid, rating) for qid, rating, _ in saved(store)] == [
        ("t-choice-one", 4),
        ("t-recall-one", 3),
    ]


# 15: the plain drill -------------------------------------------------------------------------


def test_plain_drill_blank_choice_refuses_easy_and_says_only_again_applies(
    cli: Cli, mini_bank: Path
) -> None:
    result = cli("drill", "--plain", "--id", "t-choice-one", input="\n4\n1\n")
    assert "Rate 1 again (1m) (a blank answer is rated again) [Enter = again]> " in result.output
    assert "2 hard" not in result.output and "4 easy" not in result.output
    assert "? a blank answer is rated again: type 1 (again) or press Enter" in result.output
    assert "saved: again" in result.output
    assert saved(open_store()) == [("t-choice-one", 1, "")]


def test_plain_drill_wrong_choice_refuses_good_then_enter_takes_again(
    cli: Cli, mini_bank: Path
) -> None:
    result = cli("drill", "--plain", "--id", "t-choice-one", input="A\n3\n\n")
    assert "✗ wrong: the answer is B" in result.output
    assert "? a wrong answer is rated again: type 1 (again) or press Enter" in result.output
    assert saved(open_store()) == [("t-choice-one", 1, "A")]


def test_plain_drill_right_choice_takes_easy(cli: Cli, mini_bank: Path) -> None:
    result = cli("drill", "--plain", "--id", "t-choice-one", input="B\n4\n")
    assert "1 again (1m) · 2 hard" in result.output and "4 easy" in result.output
    assert saved(open_store()) == [("t-choice-one", 4, "B")]


# 15: the app -----------------------------------------------------------------------------------


def app_for(bank: Bank, start: list[str] | None = None) -> QuizzerApp:
    return QuizzerApp(bank, open_store(), start)


def offered(app: QuizzerApp) -> list[int]:
    """The rating buttons on screen."""
    return [g.value for g in Grade if app.screen.query_one(f"#rate-{g.value}").display]


@pytest.mark.parametrize("typed", ["", "1", "3"], ids=["blank", "wrong-A", "wrong-C"])
async def test_app_blank_or_wrong_choice_offers_only_again_and_other_keys_do_nothing(
    bank: Bank, typed: str
) -> None:
    app = app_for(bank, ["t-choice-one"])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press(*typed, "enter")
        await pilot.pause()
        assert offered(app) == [1]
        for key in ("4", "3", "2"):
            await pilot.press(key)
            await pilot.pause()
        assert app.store.reviews() == []  # no rating, no toast-and-Again
        assert type(app.screen).__name__ == "StudyScreen" and offered(app) == [1]
        await pilot.press("1")
        await pilot.pause()
    assert saved(app.store) == [("t-choice-one", 1, typed)]


async def test_app_wrong_numeric_offers_only_again_and_right_choice_all_four(bank: Bank) -> None:
    app = app_for(bank, ["t-numeric-weights", "t-choice-one"])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press(*"1 GB", "enter")
        await pilot.pause()
        assert offered(app) == [1]
        await pilot.press("enter")  # Enter takes the one rating offered
        await pilot.pause()
        await pilot.press("2", "enter")
        await pilot.pause()
        assert offered(app) == [1, 2, 3, 4]
        await pilot.press("4")
        await pilot.pause()
    assert saved(app.store) == [("t-numeric-weights", 1, "1 GB"), ("t-choice-one", 4, "2")]


# 14: the plain mock ----------------------------------------------------------------------------


MOCK = ["t-recall-one", "t-choice-one", "t-recall-two"]


def test_plain_mock_quit_ends_it_is_not_an_answer_and_recall_is_self_rated(bank: Bank) -> None:
    text, store = plain_mock(bank, MOCK, "weights streamed\nB\n:quit\n\n2\n")
    assert "Interview ended." in text
    # The typed recall answer is shown beside the model answer and key points, then rated.
    assert "Your answer: weights streamed" in text
    assert "Model answer:\nEach step multiplies the weights" in text
    assert "  1. GEMV per sequence" in text
    assert saved(store) == [("t-choice-one", 3, "B"), ("t-recall-one", 2, "weights streamed")]
    assert all(answer != ":quit" for _, _, answer in saved(store))


def test_plain_mock_end_of_input_saves_what_was_rated_and_asks_nothing_more(bank: Bank) -> None:
    text, store = plain_mock(bank, MOCK, "weights streamed\nB\n")
    assert "Rate yourself" not in text
    assert saved(store) == [("t-choice-one", 3, "B")]  # the recall answer is not Good
    assert store.card("t-recall-one") is None  # still unreviewed
    assert "Not rated, so not saved: t-recall-one" in text


def test_plain_mock_end_of_input_while_self_rating_keeps_earlier_ratings(bank: Bank) -> None:
    text, store = plain_mock(bank, ["t-recall-one", "t-recall-two"], "a\nb\n\n4\n\n")
    assert text.count("Rate yourself") == 2
    assert saved(store) == [("t-recall-one", 4, "a")]
    assert store.card("t-recall-two") is None


def test_plain_mock_quit_while_self_rating_stops_leaving_the_rest_unrated(bank: Bank) -> None:
    text, store = plain_mock(bank, ["t-recall-one", "t-recall-two"], "a\nb\n\nagain\n:quit\n")
    assert saved(store) == [("t-recall-one", 1, "a")]
    assert "Not rated, so not saved: t-recall-two" in text


def test_plain_mock_blank_recall_enter_takes_again_typed_takes_good(bank: Bank) -> None:
    _, store = plain_mock(bank, ["t-recall-one", "t-recall-two"], "\nmy answer\n\n\n\n\n")
    assert saved(store) == [("t-recall-one", 1, ""), ("t-recall-two", 3, "my answer")]


def test_plain_mock_drill_commands_are_not_taken_as_answers(bank: Bank) -> None:
    text, store = plain_mock(bank, ["t-choice-one"], ":undo\n:bury\nB\n")
    assert "? :undo is not available in a mock; :quit ends it" in text
    assert saved(store) == [("t-choice-one", 3, "B")]


def test_mock_ratings_time_counts_to_the_answer_not_to_the_self_rating(bank: Bank) -> None:
    store = open_store()
    session = StudySession(bank, store, [bank.by_id["t-recall-one"]], mode="mock")
    ratings = MockRatings(session)
    session.next()
    assert ratings.answered(session.submit("an answer")) is None  # held, not saved
    assert saved(store) == []
    time.sleep(0.6)  # the rest of the interview
    current = ratings.next_to_rate()
    assert current is not None and ratings.suggestion(current) == Grade.GOOD
    rated = ratings.rate(Grade.HARD)
    assert rated.duration_ms < 500 and saved(store) == [("t-recall-one", 2, "an answer")]


# 14: the app's mock ----------------------------------------------------------------------------


async def start_mock(app: QuizzerApp, pilot, qids: list[str]) -> None:  # type: ignore[no-untyped-def]
    await pilot.pause()
    app.start_study(
        [app.bank.by_id[qid] for qid in qids],
        mode="mock",
        title="Mock: bytedance",
        timed_minutes=45,
        company="bytedance",
    )
    await pilot.pause()


async def test_app_mock_recall_is_self_rated_at_the_end_beside_the_model_answer(
    bank: Bank,
) -> None:
    app = app_for(bank)
    async with app.run_test(size=(100, 30)) as pilot:
        await start_mock(app, pilot, MOCK)
        await pilot.press(*"weights streamed", "enter")
        await pilot.pause()
        assert app.store.reviews() == []  # typed recall text is not a Good any more
        await pilot.press("2", "enter")  # B: right
        await pilot.pause()
        await pilot.press(*"logical blocks", "enter")
        await pilot.pause()
        assert saved(app.store) == [("t-choice-one", 3, "2")]
        study = app.screen
        typed = study.query_one("#typed").source  # type: ignore[attr-defined]
        reveal = study.query_one("#reveal").source  # type: ignore[attr-defined]
        assert "**Your answer**\n\nweights streamed" in typed
        assert "**Model answer**\n\nEach step multiplies the weights" in reveal
        checklist = study.query_one("#checklist", KeyPointChecklist)
        assert checklist.points == ["GEMV per sequence", "weights streamed from HBM"]
        assert offered(app) == [1, 2, 3, 4]
        await pilot.press("2", "enter")  # the second key point got: Hard
        await pilot.pause()
        assert "logical blocks" in study.query_one("#typed").source  # type: ignore[attr-defined]
        await pilot.press("tab", "4")  # Easy, from the rating buttons
        await pilot.pause()
        assert type(app.screen).__name__ == "SummaryScreen"
    assert saved(app.store) == [
        ("t-choice-one", 3, "2"),
        ("t-recall-one", 2, "weights streamed"),
        ("t-recall-two", 4, "logical blocks"),
    ]


async def test_app_mock_escape_ends_then_escape_again_leaves_the_rest_unrated(bank: Bank) -> None:
    app = app_for(bank)
    async with app.run_test(size=(100, 30)) as pilot:
        await start_mock(app, pilot, MOCK)
        await pilot.press(*"weights streamed", "enter")
        await pilot.pause()
        await pilot.press("escape")  # ends the interview: on to the self-rating
        await pilot.pause()
        assert type(app.screen).__name__ == "StudyScreen" and offered(app) == [1, 2, 3, 4]
        await pilot.press("escape")  # stops the self-rating
        await pilot.pause()
        assert type(app.screen).__name__ == "SummaryScreen"
        report = app.screen.report()  # type: ignore[attr-defined]
        assert "Not rated, so not saved: t-recall-one" in report
    assert saved(app.store) == []
    assert app.store.card("t-recall-one") is None


async def test_app_mock_time_up_goes_to_the_self_rating(bank: Bank) -> None:
    app = app_for(bank)
    async with app.run_test(size=(100, 30)) as pilot:
        await start_mock(app, pilot, MOCK)
        await pilot.press(*"weights streamed", "enter")
        await pilot.pause()
        study = app.screen
        study.deadline = time.monotonic() - 1  # type: ignore[attr-defined]
        study.tick()  # type: ignore[attr-defined]
        await pilot.pause()
        assert study.rating_phase  # type: ignore[attr-defined]
        await pilot.press("1", "2", "enter")  # both key points got: Enter takes Good
        await pilot.pause()
        assert type(app.screen).__name__ == "SummaryScreen"
    assert saved(app.store) == [("t-recall-one", 3, "weights streamed")]
