"""Shown when the question bank has problems: every message, then quit."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from quizzer.tui.widgets.footer import QuizzerFooter


class BankErrorScreen(Screen[None]):
    """The bank could not be loaded; list why."""

    BINDINGS = [Binding("q,escape", "app.quit", "Quit")]

    def __init__(self, messages: list[str]) -> None:
        super().__init__()
        self.messages = messages

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="summary"):
            yield Static(
                f"The question bank has {len(self.messages)} problem(s):\n", classes="section-title"
            )
            yield Static("\n".join(self.messages[:200]), markup=False)
            yield Static(
                "\nFix them (`quizzer validate` lists the same), then start quizzer again.",
                classes="dim",
            )
        yield QuizzerFooter()
