"""The Textual app: bindings and wiring only. Screens live in quizzer/tui/screens/; the state
they read (bank, store, language) lives in quizzer/tui/base.py. Only the entry point
(quizzer.cli.app) imports this module."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.binding import Binding

from quizzer.tui.base import QuizzerAppBase

if TYPE_CHECKING:
    from textual.screen import Screen

    from quizzer.content.bank import Bank
    from quizzer.content.models import AnyQuestion
    from quizzer.progress.store import Store


class QuizzerApp(QuizzerAppBase):
    """quizzer in the terminal: the bindings and the wiring that opens screens."""

    TITLE = "quizzer"
    SUB_TITLE = "AI-infra interview drills"
    CSS_PATH = Path(__file__).with_name("quizzer.tcss")
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True, show=False),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("f1", "help", "Help", show=False),
    ]

    def get_default_screen(self) -> Screen[None]:
        """The dashboard is the app's base screen (one screen to build at start, not two)."""
        from quizzer.tui.screens.dashboard import DashboardScreen

        return DashboardScreen()

    def on_mount(self) -> None:
        if self.start_questions:
            questions = [q for qid in self.start_questions if (q := self.bank.get(qid))]
            self.start_study(questions, mode="drill")
        if self.start_mock:
            from quizzer.study.mock import assemble_mock

            company, minutes = self.start_mock
            plan = assemble_mock(self.bank, self.store, company, minutes)
            self.start_study(
                plan.questions,
                mode="mock",
                title=f"Mock: {company}",
                timed_minutes=minutes,
                company=company,
                notice=plan.message,
            )

    def start_study(
        self,
        questions: list[AnyQuestion],
        mode: str = "drill",
        title: str = "Study",
        timed_minutes: float | None = None,
        company: str | None = None,
        notice: str = "",
    ) -> None:
        """Open a study (or mock) session over ``questions``; ``notice`` shows as it opens."""
        from quizzer.tui.screens.study import StudyScreen

        if not questions:
            # Through the screen: one with a status line shows it there, not as a toast.
            self.screen.notify(notice or "Nothing to study here right now.", severity="warning")
            return
        self.push_screen(
            StudyScreen(
                questions,
                mode=mode,
                title=title,
                timed_minutes=timed_minutes,
                company=company,
                notice=notice,
            )
        )

    def show_bank_error(self, diagnostics: list[object]) -> None:
        """Replace everything with the list of bank problems (the app cannot run without it)."""
        from quizzer.tui.screens.errors import BankErrorScreen

        self.push_screen(BankErrorScreen([str(d) for d in diagnostics]))

    def action_help(self) -> None:
        """Show every key of the current screen."""
        from quizzer.tui.dialogs.help import HelpModal

        if not isinstance(self.screen, HelpModal):
            self.push_screen(HelpModal(self.screen))


def make_app(
    bank: Bank | None = None,
    store: Store | None = None,
    start_questions: list[str] | None = None,
    start_mock: tuple[str, float] | None = None,
) -> QuizzerApp:
    """Build the app; the CLI, the benchmarks and the tests share this factory. Without a
    bank, it is loaded in the background after the first frame."""
    from quizzer.progress.store import open_store

    return QuizzerApp(bank, store or open_store(), start_questions, start_mock)
