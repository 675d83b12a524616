"""Honest self-grading of recall answers: the key-point checklist, the rating it suggests, the
missed points saved with the review, and `quizzer weak` / the Stats screen listing them."""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from rich.console import Console

from quizzer.content.bank import Bank, load_bank
from quizzer.content.models import RecallQuestion
from quizzer.progress import migrations
from quizzer.progress.scheduling import Grade
from quizzer.progress.store import Store
from quizzer.study.selfgrade import PointsError, parse_points, shown_points, suggest_rating
from quizzer.study.session import StudySession
from quizzer.tui.app import QuizzerApp
from quizzer.tui.widgets.checklist import KeyPointChecklist
from tests.conftest import FIXTURES, make_bank, plain_mock

Cli = Callable[..., Result]
EVER = "2000-01-01T00:00:00+00:00"

FOUR_POINTS = """
- id: t-recall-limits
  kind: recall
  prompt: What limits decode throughput on one GPU?
  answer: Reading the weights, reading the KV cache, a small batch, and kernel launch gaps.
  key_points:
    - weight reads from HBM
    - KV-cache reads grow with context
    - batch too small to reuse weights
    - launch overhead between small kernels
  explanation: Decode does little arithmetic per byte it reads.
  topics: [prefill-decode]
  articles: [m4-c1-1.1]
  difficulty: 3
"""


def store_now() -> Store:
    return Store(Path(os.environ["QUIZZER_DB"]))


def missed_rows(store: Store) -> list[tuple[str, int, list[str] | None]]:
    """(question, rating, missed key points or None) of every review, oldest first."""
    return [
        (
            r["question_id"],
            r["rating"],
            None if r["missed_points"] is None else json.loads(r["missed_points"]),
        )
        for r in store.reviews()
    ]


@pytest.fixture
def bank(mini_bank: Path) -> Bank:
    return load_bank(mini_bank, use_cache=False)


@pytest.fixture
def four_bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Bank:
    """The mini bank plus a recall question with four key points."""
    text = (FIXTURES / "mini-questions.yaml").read_text("utf-8") + FOUR_POINTS
    root = make_bank(tmp_path / "four", text)
    monkeypatch.setenv("QUIZZER_BANK", str(root))
    return load_bank(root, use_cache=False)


# the suggestion rule -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("got", "total", "expected"),
    [
        (0, 4, Grade.AGAIN),
        (1, 4, Grade.HARD),
        (3, 4, Grade.HARD),
        (4, 4, Grade.GOOD),
        (0, 1, Grade.AGAIN),
        (1, 1, Grade.GOOD),
    ],
)
def test_share_of_key_points_got_suggests_the_rating(got: int, total: int, expected: Grade) -> None:
    assert suggest_rating(got, total) == expected


def test_easy_is_never_suggested_and_impossible_counts_are_refused() -> None:
    suggested = {suggest_rating(got, total) for total in range(1, 10) for got in range(total + 1)}
    assert suggested == {Grade.AGAIN, Grade.HARD, Grade.GOOD}
    with pytest.raises(ValueError):
        suggest_rating(5, 4)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("1,3", {0, 2}),
        (" 1 3 ", {0, 2}),
        ("1;3,3", {0, 2}),
        ("2-4", {1, 2, 3}),
        ("all", {0, 1, 2, 3}),
        ("ALL", {0, 1, 2, 3}),
        ("none", set()),
        ("0", set()),
        ("-", set()),
    ],
)
def test_a_line_of_key_point_numbers_is_understood(line: str, expected: set[int]) -> None:
    assert parse_points(line, 4) == frozenset(expected)


def test_an_empty_line_skips_the_checklist() -> None:
    assert parse_points("", 4) is None
    assert parse_points("   ", 4) is None


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("banana", "'banana' is not a key point number"),
        ("5", "there are 4 key points, so 5 is not one of them"),
        ("0,1", "so 0 is not one of them"),
        ("3-1", "'3-1' runs backwards"),
        ("1.5", "'1.5' is not a key point number"),
        ("good", "'good' is not a key point number"),
    ],
)
def test_garbage_key_point_lines_say_what_to_type(line: str, message: str) -> None:
    with pytest.raises(PointsError) as caught:
        parse_points(line, 4)
    assert message in str(caught.value) and "1–4, like 1,3" in str(caught.value)


def test_chinese_points_are_shown_only_when_they_match_the_english_ones(bank: Bank) -> None:
    q = bank.by_id["t-recall-one"]
    assert isinstance(q, RecallQuestion)
    assert shown_points(q, "zh") == ["GEMV", "HBM 带宽"]
    assert shown_points(q, "en") == ["GEMV per sequence", "weights streamed from HBM"]
    uneven = q.model_copy(update={"zh": q.zh.model_copy(update={"key_points": ["只有一个"]})})  # type: ignore[union-attr]
    assert shown_points(uneven, "zh") == list(q.key_points)


# the store ----------------------------------------------------------------------------------


def test_missed_points_round_trip_through_the_store(bank: Bank) -> None:
    store = store_now()
    session = StudySession(bank, store, [bank.by_id["t-recall-one"], bank.by_id["t-recall-two"]])
    session.next()
    session.submit("it reads the weights")
    assert session.check_points(frozenset({0})) == Grade.HARD
    assert session.rate().grade == Grade.HARD  # the suggestion follows the ticks
    session.next()
    session.submit("blocks")
    session.rate(Grade.GOOD)  # rated without the checklist: nothing about key points
    assert missed_rows(store) == [
        ("t-recall-one", 2, ["weights streamed from HBM"]),
        ("t-recall-two", 3, None),
    ]
    checks = store.point_checks(EVER)
    assert [(c.question_id, c.missed) for c in checks] == [
        ("t-recall-one", ["weights streamed from HBM"])
    ]
    session.undo()
    session.undo()
    assert store.point_checks(EVER) == []  # an undone review takes its missed points with it


def test_every_point_got_is_saved_as_an_empty_list_not_as_unchecked(bank: Bank) -> None:
    store = store_now()
    session = StudySession(bank, store, [bank.by_id["t-recall-one"]])
    session.next()
    session.submit("")
    assert session.check_points(frozenset({0, 1})) == Grade.GOOD
    session.rate()
    assert missed_rows(store) == [("t-recall-one", 3, [])]


def test_check_points_refuses_other_kinds_and_unknown_points(bank: Bank) -> None:
    store = store_now()
    session = StudySession(bank, store, [bank.by_id["t-choice-one"], bank.by_id["t-recall-one"]])
    session.next()
    session.submit("B")
    with pytest.raises(ValueError, match="not a recall question"):
        session.check_points(frozenset({0}))
    session.rate()
    session.next()
    session.submit("x")
    with pytest.raises(ValueError, match="has 2 key points"):
        session.check_points(frozenset({2}))


def test_export_and_import_keep_the_missed_points(
    cli: Cli, mini_bank: Path, tmp_path: Path
) -> None:
    assert cli("drill", "--plain", "--id", "t-recall-one", input="x\n2\n\n").exit_code == 0
    exported = tmp_path / "reviews.json"
    assert cli("export", "--format", "json", str(exported)).exit_code == 0
    data = json.loads(exported.read_text("utf-8"))
    assert data["reviews"][0]["missed_points"] == ["GEMV per sequence"]
    as_csv = tmp_path / "reviews.csv"
    assert cli("export", "--format", "csv", str(as_csv)).exit_code == 0
    assert '"[""GEMV per sequence""]"' in as_csv.read_text("utf-8")
    other = tmp_path / "other.db"
    assert cli("--db", str(other), "import-reviews", str(exported)).exit_code == 0
    imported = Store(other)
    assert [c.missed for c in imported.point_checks(EVER)] == [["GEMV per sequence"]]
    imported.close()
    data["reviews"][0]["missed_points"] = "GEMV per sequence"  # not a list
    data["reviews"][0]["uid"] = "another"
    exported.write_text(json.dumps(data), "utf-8")
    refused = cli("--db", str(other), "import-reviews", str(exported))
    assert refused.exit_code != 0 and "'missed_points' must be a list" in refused.output


# the migration ------------------------------------------------------------------------------


def test_a_database_from_before_the_checklist_upgrades_and_keeps_its_reviews(
    bank: Bank, tmp_path: Path
) -> None:
    db = tmp_path / "v003.db"
    shutil.copy(FIXTURES / "db" / "v003.db", db)
    store = Store(db)
    assert migrations.pending(store.conn) == []
    old = store.reviews()
    assert len(old) == 3 and all(r["missed_points"] is None for r in old)  # never checked
    assert store.point_checks(EVER) == []
    session = StudySession(bank, store, [bank.by_id["t-recall-one"]])
    session.next()
    session.submit("x")
    session.check_points(frozenset())
    session.rate()
    assert [c.missed for c in store.point_checks(EVER)] == [
        ["GEMV per sequence", "weights streamed from HBM"]
    ]
    assert store.card("t-recall-one").reps == 4  # type: ignore[union-attr]
    store.close()


@pytest.mark.parametrize("version", ["v002", "v003"])
def test_restore_takes_a_backup_from_before_the_checklist(
    cli: Cli, mini_bank: Path, tmp_path: Path, version: str
) -> None:
    backup = tmp_path / f"{version}.db"
    shutil.copy(FIXTURES / "db" / f"{version}.db", backup)
    result = cli("restore", str(backup), "--yes")
    assert result.exit_code == 0, result.output
    assert json.loads(cli("stats", "--json").output)["reviews_total"] == 3


# the plain drill ----------------------------------------------------------------------------


def test_plain_drill_lists_numbered_points_and_takes_the_ones_got(
    cli: Cli, mini_bank: Path
) -> None:
    out = cli("drill", "--plain", "--id", "t-recall-one", input="it reads weights\n1\n\n").output
    assert "Key points:\n  1. GEMV per sequence\n  2. weights streamed from HBM\n" in out
    assert "1 of 2 key points → Hard (missed: 2)\n" in out
    assert "[Enter = hard]" in out and "saved: hard" in out
    assert missed_rows(store_now()) == [("t-recall-one", 2, ["weights streamed from HBM"])]


def test_plain_drill_garbage_key_point_lines_are_explained_and_asked_again(
    cli: Cli, mini_bank: Path
) -> None:
    result = cli("drill", "--plain", "--id", "t-recall-one", input="x\nbanana\n7\n2-1\n3\nall\n\n")
    out = result.output
    assert result.exit_code == 0
    assert "? 'banana' is not a key point number" in out
    assert "? there are 2 key points, so 7 is not one of them" in out
    assert "? '2-1' runs backwards" in out
    assert out.count("Key points you got") == 5  # asked again after each of the four
    assert "2 of 2 key points → Good\n" in out and "saved: good" in out
    assert missed_rows(store_now()) == [("t-recall-one", 3, [])]


def test_plain_drill_empty_key_point_line_keeps_the_old_behaviour(
    cli: Cli, mini_bank: Path
) -> None:
    typed = cli("drill", "--plain", "--id", "t-recall-one", input="x\n\n\n").output
    assert "[Enter = good]" in typed and "saved: good" in typed
    blank = cli("drill", "--plain", "--id", "t-recall-two", input="\n\n\n").output
    assert "[Enter = again]" in blank and "saved: again" in blank
    assert missed_rows(store_now()) == [("t-recall-one", 3, None), ("t-recall-two", 1, None)]


def test_plain_drill_none_got_suggests_again_and_the_rating_can_still_differ(
    cli: Cli, mini_bank: Path
) -> None:
    out = cli("drill", "--plain", "--id", "t-recall-one", input="x\nnone\nhard\n").output
    assert "0 of 2 key points → Again (missed: 1, 2)" in out and "[Enter = again]" in out
    assert "saved: hard" in out  # the suggestion is a suggestion
    assert missed_rows(store_now()) == [
        ("t-recall-one", 2, ["GEMV per sequence", "weights streamed from HBM"])
    ]


def test_plain_drill_quit_or_end_of_input_at_the_key_points_saves_nothing(
    cli: Cli, mini_bank: Path
) -> None:
    quit_out = cli("drill", "--plain", "--id", "t-recall-one", input="x\n:quit\n").output
    assert "Session over: 0 rated" in quit_out
    ended = cli("drill", "--plain", "--id", "t-recall-one", input="x\n")
    assert ended.exit_code == 0 and "Session over: 0 rated" in ended.output
    assert store_now().reviews() == []


def test_plain_drill_in_chinese_shows_chinese_points_and_saves_english_ones(
    cli: Cli, mini_bank: Path
) -> None:
    out = cli("drill", "--plain", "--lang", "zh", "--id", "t-recall-one", input="x\n2\n\n").output
    assert "  1. GEMV\n  2. HBM 带宽\n" in out
    assert missed_rows(store_now()) == [("t-recall-one", 2, ["GEMV per sequence"])]


def test_plain_drill_choice_questions_have_no_key_point_line(cli: Cli, mini_bank: Path) -> None:
    out = cli("drill", "--plain", "--id", "t-choice-one", input="B\n\n").output
    assert "Key points you got" not in out and "saved: good" in out


# the plain mock's self-rating ----------------------------------------------------------------


def test_plain_mock_self_rating_takes_the_key_point_line_like_the_drill(bank: Bank) -> None:
    # Two recall answers, rated at the end: the first got point 2 of 2 (Enter takes Hard), the
    # second got none (Enter takes Again; a rating typed instead still wins).
    out, store = plain_mock(
        bank, ["t-recall-one", "t-recall-two"], "reads weights\nno idea\n2\n\nnone\ngood\n"
    )
    assert "Key points:\n  1. GEMV per sequence\n  2. weights streamed from HBM\n" in out
    assert "1 of 2 key points → Hard (missed: 1)\n" in out and "[Enter = hard]" in out
    assert "0 of 2 key points → Again (missed: 1, 2)\n" in out and "[Enter = again]" in out
    assert missed_rows(store) == [
        ("t-recall-one", 2, ["GEMV per sequence"]),
        ("t-recall-two", 3, ["logical to physical", "fixed-size blocks"]),
    ]


def test_plain_mock_key_point_line_garbage_asks_again_and_quit_stops_the_rating(
    bank: Bank,
) -> None:
    out, store = plain_mock(bank, ["t-recall-one", "t-recall-two"], "a\nb\nbanana\nall\n\n:quit\n")
    assert "? 'banana' is not a key point number" in out
    assert "2 of 2 key points → Good\n" in out
    assert "Not rated, so not saved: t-recall-two" in out  # :quit at its key-point line
    assert missed_rows(store) == [("t-recall-one", 3, [])]


# quizzer weak -------------------------------------------------------------------------------


def drill(cli: Cli, qid: str, got: str) -> None:
    result = cli("drill", "--plain", "--id", qid, input=f"x\n{got}\n\n")
    assert "saved:" in result.output, result.output


def test_weak_lists_the_key_points_missed_most_with_their_questions(
    cli: Cli, mini_bank: Path
) -> None:
    drill(cli, "t-recall-one", "1")  # misses #2
    drill(cli, "t-recall-one", "none")  # misses both
    drill(cli, "t-recall-two", "1")  # misses #2
    cli("drill", "--plain", "--id", "t-recall-three", input="x\n\n1\n")  # no checklist
    text = cli("weak").output
    assert "Key points you miss most often (last 60 days):" in text
    lines = text[text.index("Key points you miss") :].splitlines()
    assert lines[1].strip() == "missed 2 of 2  weights streamed from HBM"
    assert lines[2].strip() == "t-recall-one #2: Why does decode read every weight once per step?"
    assert lines[3].strip() == "missed 1 of 1  fixed-size blocks"
    assert lines[5].strip() == "missed 1 of 2  GEMV per sequence"
    assert "optimizer states only" not in text  # rated without the checklist
    listed = json.loads(cli("weak", "--key-points", "--json").output)
    assert [(p["question_id"], p["point_number"], p["missed"], p["checked"]) for p in listed] == [
        ("t-recall-one", 2, 2, 2),
        ("t-recall-two", 2, 1, 1),
        ("t-recall-one", 1, 1, 2),
    ]
    assert listed[0]["point"] == "weights streamed from HBM" and listed[0]["share"] == 1.0
    assert listed[0]["prompt"] == "Why does decode read every weight once per step?"
    assert listed[2]["got_last_time"] is False
    only = cli("weak", "--key-points", "--limit", "1").output
    assert "weights streamed from HBM" in only and "fixed-size blocks" not in only
    assert "score" not in only  # only the key points
    groups = json.loads(cli("weak", "--json").output)
    assert groups and "key" in groups[0]  # --json without --key-points keeps its shape


def test_a_point_got_last_time_says_so(cli: Cli, mini_bank: Path) -> None:
    drill(cli, "t-recall-one", "1")
    drill(cli, "t-recall-one", "all")
    text = cli("weak", "--key-points").output
    assert "missed 1 of 2  weights streamed from HBM (got it last time)" in text


def test_weak_key_points_without_any_check_says_how_to_get_some(cli: Cli, mini_bank: Path) -> None:
    assert "tick the key points you got" in cli("weak", "--key-points").output
    assert json.loads(cli("weak", "--key-points", "--json").output) == []


def test_old_misses_and_points_edited_out_of_the_bank_drop_out(
    cli: Cli, mini_bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIZZER_NOW", "2026-08-01T10:00:00+00:00")  # four months ago
    drill(cli, "t-recall-two", "1")
    monkeypatch.setenv("QUIZZER_NOW", "2026-11-30T10:00:00+00:00")
    drill(cli, "t-recall-one", "1")
    listed = json.loads(cli("weak", "--key-points", "--json").output)
    assert [p["question_id"] for p in listed] == ["t-recall-one"]
    path = mini_bank / "questions" / "test" / "mini.yaml"
    text = path.read_text("utf-8").replace("weights streamed from HBM", "weights read from HBM")
    path.write_text(text, "utf-8")
    assert json.loads(cli("weak", "--key-points", "--json").output) == []


# the app ------------------------------------------------------------------------------------


def app_for(bank: Bank, start: list[str] | None = None) -> QuizzerApp:
    return QuizzerApp(bank, store_now(), start)


def screen_text(app: QuizzerApp) -> str:
    """What the terminal shows, roughly (the SVG screenshot's text)."""
    return app.export_screenshot().replace("&#160;", " ")


def checklist_lines(checklist: KeyPointChecklist) -> list[str]:
    """The checklist's lines as plain text, as a terminal 100 columns wide shows them."""
    console = Console(width=100, record=True, file=io.StringIO())
    for option in checklist.options:
        console.print(option.prompt)
    return [text.rstrip() for text in console.export_text().splitlines()]


def line(app: QuizzerApp) -> str:
    return str(app.screen.query_one("#self-grade").render())


async def test_checklist_three_of_four_ticked_suggests_hard_and_saves_the_missed_point(
    four_bank: Bank,
) -> None:
    app = app_for(four_bank, ["t-recall-limits"])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press(*"weights and kv cache", "enter")
        await pilot.pause()
        study = app.screen
        assert "weights and kv cache" in study.query_one("#typed").source  # type: ignore[attr-defined]
        assert study.query_one("#typed").display  # beside the model answer
        assert study.focused is study.query_one("#checklist")
        assert line(app).startswith("0 of 4 key points → Again")
        await pilot.press("1", "3", "4")
        await pilot.pause()
        assert app.store.reviews() == []  # digits tick here; they do not rate
        assert line(app).startswith("3 of 4 key points → Hard")
        assert str(study.query_one("#rate-2").label).endswith("←")
        assert not str(study.query_one("#rate-3").label).endswith("←")
        checklist = study.query_one("#checklist", KeyPointChecklist)
        assert checklist_lines(checklist) == [
            "[✓] 1. weight reads from HBM",
            "[ ] 2. KV-cache reads grow with context",
            "[✓] 3. batch too small to reuse weights",
            "[✓] 4. launch overhead between small kernels",
        ]
        await pilot.press("enter")
        await pilot.pause()
    assert missed_rows(app.store) == [("t-recall-limits", 2, ["KV-cache reads grow with context"])]


async def test_space_and_clicks_tick_and_untick_and_all_suggests_good(four_bank: Bank) -> None:
    app = app_for(four_bank, ["t-recall-limits"])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("space")  # reveals (empty answer box)
        await pilot.pause()
        assert not app.screen.query_one("#typed").display  # nothing typed: no column for it
        await pilot.press("space", "down", "space")  # the first two, by the highlight
        await pilot.pause()
        assert line(app).startswith("2 of 4 key points → Hard")
        await pilot.click("#checklist", offset=(2, 2))  # the third line
        await pilot.click("#checklist", offset=(2, 3))
        await pilot.pause()
        assert line(app).startswith("4 of 4 key points → Good")
        await pilot.press("9")  # past the last point: nothing happens
        await pilot.press("2")
        await pilot.press("2")  # unticked and ticked again
        await pilot.pause()
        assert line(app).startswith("4 of 4 key points → Good")
        await pilot.press("enter")
        await pilot.pause()
    assert missed_rows(app.store) == [("t-recall-limits", 3, [])]


async def test_rating_buttons_stay_usable_and_unused_checklist_records_nothing(
    four_bank: Bank,
) -> None:
    app = app_for(four_bank, ["t-recall-limits", "t-recall-one", "t-recall-two"])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press(*"everything", "enter")
        await pilot.pause()
        await pilot.press("tab", "4")  # to the buttons; Easy stays the user's call
        await pilot.pause()
        await pilot.press("enter")  # t-recall-one revealed blank
        await pilot.pause()
        await pilot.press("2")
        await pilot.pause()
        await pilot.click("#rate-3")  # a click on Good, after ticking
        await pilot.pause()
        await pilot.press("enter")  # t-recall-two: nothing ticked, Enter
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
    assert missed_rows(app.store) == [
        ("t-recall-limits", 4, None),  # the checklist was not used
        ("t-recall-one", 3, ["GEMV per sequence"]),
        ("t-recall-two", 1, ["logical to physical", "fixed-size blocks"]),
    ]


async def test_choice_reveal_has_no_checklist_and_digits_still_rate(bank: Bank) -> None:
    app = app_for(bank, ["t-choice-one"])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("2", "enter")
        await pilot.pause()
        study = app.screen
        for widget_id in ("#typed", "#checklist", "#checklist-title", "#self-grade"):
            assert not study.query_one(widget_id).display, widget_id
        await pilot.press("4")
        await pilot.pause()
    assert missed_rows(app.store) == [("t-choice-one", 4, None)]


async def test_help_lists_the_checklist_keys(bank: Bank) -> None:
    app = app_for(bank, ["t-recall-one"])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("space")
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpModal"
        text = screen_text(app)
        assert "tick the key points you got" in text and "to the rating buttons" in text


async def test_stats_screen_lists_the_missed_points_with_their_questions(bank: Bank) -> None:
    store = store_now()
    session = StudySession(bank, store, [bank.by_id["t-recall-one"]])
    session.next()
    session.submit("x")
    session.check_points(frozenset({0}))
    session.rate()
    store.close()
    app = app_for(bank)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("v")
        await pilot.pause()
        shown = app.screen.query_one("#missed-points")
        text = screen_text(app)
        assert shown.region.height >= 2
        assert "weights streamed from HBM" in text and "t-recall-one #2: Why does decode" in text
