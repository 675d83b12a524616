"""The Textual app: bindings and wiring only. Screens live in quizzer/tui/screens/."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.binding import Binding

from quizzer.bank import Bank
from quizzer.models import AnyQuestion
from quizzer.store import Store


class QuizzerApp(App[None]):
    """quizzer in the terminal."""

    TITLE = "quizzer"
    SUB_TITLE = "AI-infra interview drills"
    CSS_PATH = Path(__file__).with_name("quizzer.tcss")
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True, show=False),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("f1", "help", "Help", show=False),
    ]

    def __init__(
        self,
        bank: Bank,
        store: Store,
        start_questions: list[str] | None = None,
        start_mock: tuple[str, float] | None = None,
    ) -> None:
        super().__init__()
        self.bank = bank
        self.store = store
        self.start_questions = start_questions
        self.start_mock = start_mock
        self.language: str = store.setting("language", "en")
        self.theme = (
            "textual-light" if store.setting("theme", "dark") == "light" else ("textual-dark")
        )

    def on_mount(self) -> None:
        from quizzer.tui.screens.dashboard import DashboardScreen

        self.push_screen(DashboardScreen())
        if self.start_questions:
            questions = [q for qid in self.start_questions if (q := self.bank.get(qid))]
            self.start_study(questions, mode="drill")
        if self.start_mock:
            from quizzer.mock import assemble_mock

            company, minutes = self.start_mock
            plan = assemble_mock(self.bank, self.store, company, minutes)
            self.start_study(
                plan.questions,
                mode="mock",
                title=f"Mock: {company}",
                timed_minutes=minutes,
                company=company,
            )

    def start_study(
        self,
        questions: list[AnyQuestion],
        mode: str = "drill",
        title: str = "Study",
        timed_minutes: float | None = None,
        company: str | None = None,
    ) -> None:
        """Open a study (or mock) session over ``questions``."""
        from quizzer.tui.screens.study import StudyScreen

        if not questions:
            self.notify("Nothing to study here right now.", severity="warning")
            return
        self.push_screen(
            StudyScreen(
                questions, mode=mode, title=title, timed_minutes=timed_minutes, company=company
            )
        )

    def action_help(self) -> None:
        """Show every key of the current screen."""
        from quizzer.tui.screens.help import HelpModal

        if not isinstance(self.screen, HelpModal):
            self.push_screen(HelpModal(self.screen))


def make_app(
    bank: Bank | None = None,
    store: Store | None = None,
    start_questions: list[str] | None = None,
    db: Path | None = None,
) -> QuizzerApp:
    """Build the app; the CLI and the tests share this factory."""
    from quizzer.bank import load_bank
    from quizzer.store import open_store

    return QuizzerApp(bank or load_bank(), store or open_store(db), start_questions)


def run(start_questions: list[str] | None = None) -> None:
    """Start the app in this terminal (the CLI has already checked bank and DB)."""
    make_app(start_questions=start_questions).run()
