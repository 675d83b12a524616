"""The Textual app driven through Pilot, asserting what lands in the DB."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quizzer.content.bank import load_bank
from quizzer.progress.store import Store
from quizzer.tui.app import QuizzerApp
from quizzer.tui.widgets.checklist import KeyPointChecklist


def make(mini_bank: Path, start: list[str] | None = None) -> QuizzerApp:
    bank = load_bank(mini_bank, use_cache=False)
    return QuizzerApp(bank, Store(Path(os.environ["QUIZZER_DB"])), start)


def reviews(app: QuizzerApp) -> list[tuple[str, int, int | None]]:
    return [(r["question_id"], r["rating"], r["correct"]) for r in app.store.reviews()]


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    """Let the dashboard's background loader finish and the screen repaint."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_dashboard_shows_counts_and_every_button(mini_bank: Path) -> None:
    app = make(mini_bank)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = str(app.screen.query_one("#counts").render())
        assert "New 7" in text and "Due now 0" in text
        menu = app.screen.query_one("#menu")
        shown = app.export_screenshot()
        for label in (
            "Study (s)",
            "Weak (w)",
            "Mock (m)",
            "Browse (b)",
            "Stats (v)",
            "Topic (t)",
            "Company (c)",
            "Article (a)",
            "Settings (,)",
            "Quit (q)",
        ):
            assert label.replace(" ", "&#160;") in shown or label in shown, label
        assert menu.region.right <= 80 and menu.region.bottom <= 23  # above the footer


async def test_clicking_the_study_button_starts_a_session(mini_bank: Path) -> None:
    app = make(mini_bank)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.click("#menu", offset=(4, 0))
        await pilot.pause()
        assert type(app.screen).__name__ == "StudyScreen"


async def test_enter_on_empty_then_again_twice_makes_two_reviews(mini_bank: Path) -> None:
    app = make(mini_bank)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("s")
        for _ in range(2):
            await pilot.press("enter")
            await pilot.pause()
            # Again: Enter takes the suggestion, Again for a blank answer and for a recall
            # answer with no key point ticked (digits tick key points there).
            await pilot.press("enter")
            await pilot.pause()
        await pilot.press("escape")
        await pilot.press("q")
    assert [r[1] for r in reviews(app)] == [1, 1]


async def test_numeric_right_then_wrong_rate_undo_suspend(mini_bank: Path) -> None:
    app = make(mini_bank, ["t-numeric-weights", "t-numeric-allreduce", "t-recall-one"])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        study = app.screen
        attempt = study.session.current.attempt  # type: ignore[attr-defined]
        await pilot.press(*f"{attempt.answer:.4f} GB")
        await pilot.pause()
        assert "= " in str(study.query_one("#feedback").render())
        await pilot.press("enter")
        await pilot.pause()
        assert "✓" in str(study.query_one("#verdict").render())
        await pilot.press("3")
        await pilot.pause()
        assert reviews(app) == [("t-numeric-weights", 3, 1)]
        await pilot.press(*"12 GBs", "enter")  # unparseable: inline error, nothing saved
        await pilot.pause()
        assert "did you mean" in str(study.query_one("#feedback").render())
        assert len(reviews(app)) == 1
        await pilot.press(*["backspace"] * 6, *"99999 s", "enter")
        await pilot.pause()
        assert "✗" in str(study.query_one("#verdict").render())
        await pilot.press("4")  # not offered for a wrong answer: the key does nothing
        await pilot.pause()
        assert len(reviews(app)) == 1
        await pilot.press("1")
        await pilot.pause()
        assert reviews(app)[-1] == ("t-numeric-allreduce", 1, 0)
        await pilot.press("ctrl+z")  # undo brings the allreduce question back
        await pilot.pause()
        assert len(reviews(app)) == 1
        assert study.session.current.question.id == "t-numeric-allreduce"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("exclamation_mark")
        await pilot.pause()
        assert app.store.card("t-numeric-allreduce").suspended  # type: ignore[union-attr]
        assert study.session.current.question.id == "t-recall-one"  # type: ignore[attr-defined]


async def test_question_mark_opens_help_listing_keys(mini_bank: Path) -> None:
    app = make(mini_bank)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpModal"
        await pilot.press("escape")
        await pilot.press("s")
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpModal"


async def test_study_screen_fits_80x24(mini_bank: Path) -> None:
    app = make(mini_bank, ["t-choice-one"])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        study = app.screen
        assert study.query_one("#answer").region.bottom <= 22
        await pilot.press("2", "enter")  # right: all four ratings are offered
        await pilot.pause()
        for button in study.query("#ratings Button"):
            assert button.region.width > 0 and button.region.bottom <= 23
            assert "·" in str(button.label)


async def test_choice_by_number_key_and_chinese_language(mini_bank: Path) -> None:
    app = make(mini_bank, ["t-recall-one", "t-choice-one"])
    app.language = "zh"
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "为什么" in app.screen.query_one("#prompt").source  # type: ignore[attr-defined]
        await pilot.press("space")  # reveals a recall question
        await pilot.pause()
        checklist = app.screen.query_one("#checklist", KeyPointChecklist)
        assert checklist.points == ["GEMV", "HBM 带宽"]  # the Chinese key points
        await pilot.press("1", "2", "enter")  # both key points got: Good, confirmed
        await pilot.pause()
        await pilot.press("2", "enter")
        await pilot.pause()
        await pilot.press("enter")  # takes the suggested rating (Good)
        await pilot.pause()
    assert reviews(app) == [("t-recall-one", 3, None), ("t-choice-one", 3, 1)]


async def test_browse_search_and_settings_save(mini_bank: Path) -> None:
    app = make(mini_bank)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("b")
        await pilot.pause()
        await pilot.press("slash", *"block table")
        await pilot.pause()
        tree = app.screen.query_one("#tree")
        assert "(1)" in str(tree.root.label)  # type: ignore[attr-defined]
        await pilot.press("escape", "escape")
        await pilot.press("comma")
        await pilot.pause()
        retention = app.screen.query_one("#retention")
        retention.value = "0.5"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "between 0.70 and 0.99" in str(app.screen.query_one("#settings-error").render())
        retention.value = "0.85"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.store.setting("desired_retention") == 0.85


async def test_garbage_pasted_into_every_input_never_crashes(mini_bank: Path) -> None:
    garbage = "\x00\x1b[31m{}[]()'\";DROP TABLE reviews;-- 中文 🤖 1e999 __import__('os')"
    app = make(mini_bank, ["t-numeric-weights", "t-choice-one", "t-recall-one"])
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(3):
            await pilot.pause()
            box = app.screen.query_one("#answer")
            box.value = garbage  # type: ignore[attr-defined]
            await pilot.press("enter")
            await pilot.pause()
            if app.screen.query_one("#ratings").display:
                await pilot.press("enter")  # Again: wrong, or no key point ticked
            else:
                box.value = ""  # type: ignore[attr-defined]
                await pilot.press("enter")
                await pilot.pause()
                await pilot.press("enter")
    assert len(reviews(app)) == 3


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_dashboard_snapshot(mini_bank: Path, snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(make(mini_bank), terminal_size=size, run_before=settle)


def test_study_snapshot(mini_bank: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(
        make(mini_bank, ["t-choice-one"]),
        terminal_size=(80, 24),
        press=["enter"],
        run_before=settle,
    )


async def test_bank_problems_show_on_screen_not_as_a_crash(tmp_path: Path) -> None:
    from tests.conftest import make_bank

    bank_dir = make_bank(tmp_path / "broken", "- id: [oops\n")
    from quizzer.content.bank import load_bank

    app = QuizzerApp(
        None,
        Store(Path(os.environ["QUIZZER_DB"])),
        bank_loader=lambda: load_bank(bank_dir, use_cache=False),
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert type(app.screen).__name__ == "BankErrorScreen"
        text = " ".join(str(w.render()) for w in app.screen.query("Static"))
        assert "mini.yaml:2:1" in text or "mini.yaml:1" in text
        await pilot.press("q")


async def test_a_session_opened_at_start_fills_the_dashboard_only_when_it_shows(
    mini_bank: Path,
) -> None:
    app = make(mini_bank, ["t-recall-one"])  # `quizzer drill --id t-recall-one`
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        dashboard = app.screen_stack[0]
        assert type(app.screen).__name__ == "StudyScreen"
        # Nothing computed for a screen nobody sees yet (start-up work saved).
        assert "loading" in str(dashboard.query_one("#counts").render())
        await pilot.press("enter")  # a blank answer: the model answer shows
        await pilot.pause()
        await pilot.press("enter")  # Again, the suggestion for a blank answer
        await pilot.pause()
        assert [r[1] for r in reviews(app)] == [1]
        for _ in range(3):
            if app.screen is dashboard:
                break
            await pilot.press("escape")
            await pilot.pause()
        await settle(pilot)
        assert app.screen is dashboard
        counts = str(dashboard.query_one("#counts").render())
        assert "loading" not in counts and "Reviewed today 1" in counts


async def test_back_from_a_session_lands_on_the_dashboard_with_new_counts(mini_bank: Path) -> None:
    app = make(mini_bank)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        # The dashboard is the app's only, bottom screen: nothing blank underneath it.
        assert [type(s).__name__ for s in app.screen_stack] == ["DashboardScreen"]
        title = str(app.screen.query_one("TitleBar").render())
        assert "quizzer — AI-infra interview drills" in title
        await pilot.press("s", "enter")
        await pilot.pause()
        await pilot.press("enter")  # a recall answer with no key point ticked: Again
        await pilot.pause()
        for _ in range(3):
            if type(app.screen).__name__ == "DashboardScreen":
                break
            await pilot.press("escape")
            await pilot.pause()
        await settle(pilot)
        assert [type(s).__name__ for s in app.screen_stack] == ["DashboardScreen"]
        assert "Reviewed today 1" in str(app.screen.query_one("#counts").render())
        # The topic just failed now heads the weakest list, with its accuracy.
        left = str(app.screen.query_one("#dash-left").render())
        assert "Weakest topics" in left and "Nothing yet" not in left and "%" in left
        assert "Retention (30 days)" in left


async def test_footer_shows_the_revealed_keys_and_is_not_rebuilt_when_they_stay(
    mini_bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from collections.abc import Iterator

    from textual.widget import Widget
    from textual.widgets._footer import FooterKey

    from quizzer.tui.widgets.footer import QuizzerFooter

    def footer(app: QuizzerApp) -> list[tuple[str, str, FooterKey]]:
        return [(key.key, key.description, key) for key in app.screen.query(FooterKey)]

    builds: list[str] = []
    compose = QuizzerFooter.compose

    def counted(self: QuizzerFooter) -> Iterator[Widget]:
        builds.append(type(self.screen).__name__)
        return compose(self)

    monkeypatch.setattr(QuizzerFooter, "compose", counted)
    app = make(mini_bank)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("s")
        await pilot.pause()
        assert [(k, d) for k, d, _ in footer(app)] == [("escape", "Back")]
        before = len(builds)
        await pilot.press("enter")  # reveal: the answer's keys appear
        await pilot.pause()
        # Several binding signals arrive at a reveal; the keys are built once, not once each.
        assert builds[before:] == ["StudyScreen"]
        revealed = footer(app)
        assert [d for _, d, _ in revealed] == [
            "Back",
            "Explain",
            "Open article",
            "Undo",
            "Suspend",
            "Help",
        ]
        await pilot.press("tab")  # focus moves; the keys stay, so the same widgets stay
        await pilot.pause()
        assert [w for _, _, w in footer(app)] == [w for _, _, w in revealed]
