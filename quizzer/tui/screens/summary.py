"""The end of a session: score, time, what to review (with links); for a mock, the report."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Markdown

from quizzer.study.session import StudySession
from quizzer.tui.widgets.footer import QuizzerFooter

if TYPE_CHECKING:
    from quizzer.content.models import AnyQuestion
    from quizzer.tui.base import QuizzerAppBase


class SummaryScreen(Screen[None]):
    """Shows how the session went."""

    BINDINGS = [Binding("escape,enter,q", "home", "Home")]

    def __init__(
        self,
        session: StudySession,
        *,
        mock: bool = False,
        company: str | None = None,
        unrated: list[AnyQuestion] | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.mock = mock
        self.company = company
        self.unrated = unrated or []
        """A mock's recall answers left unrated (not saved)."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="summary"):
            yield Markdown(self.report())
        yield QuizzerFooter()

    def report(self) -> str:
        """The summary as Markdown."""
        app: QuizzerAppBase = self.app  # type: ignore[assignment]
        if self.mock and self.company:
            from quizzer.study.mock import mock_report_markdown

            return mock_report_markdown(
                app.bank, app.store, self.session, self.company, self.unrated
            )
        data = self.session.summary()
        minutes, seconds = divmod(int(data["seconds"]), 60)
        lines = [
            "# Session over",
            "",
            f"- **Rated:** {data['rated']}",
            f"- **Auto-graded right:** {data['correct']} / {data['graded']}",
            f"- **Time:** {minutes}m {seconds:02d}s",
        ]
        if data["again"]:
            lines += ["", "## Review these", ""]
            lines += [f"- `{qid}`" for qid in data["again"]]
            lines += ["", "## Read again", ""]
            for key, url in data["review_articles"].items():
                lines.append(f"- [{app.bank.articles[key].title_en}]({url})")
        lines += ["", "Press Enter to go home."]
        return "\n".join(lines)

    def action_home(self) -> None:
        self.app.pop_screen()
