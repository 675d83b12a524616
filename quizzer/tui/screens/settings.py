"""Desired retention, new questions per day, theme and language, saved in the progress DB."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Select, Static

from quizzer.tui.widgets.titlebar import TitleBar

if TYPE_CHECKING:
    from quizzer.tui.app import QuizzerApp


class SettingsScreen(Screen[None]):
    """Edit and save the user's settings."""

    BINDINGS = [Binding("escape", "back", "Back"), Binding("ctrl+s", "save", "Save")]

    @property
    def qapp(self) -> QuizzerApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        store = self.qapp.store
        yield TitleBar()
        with Vertical(id="settings-form"):
            with Grid(id="settings-grid"):
                yield Label("Desired retention (0.70–0.99)")
                yield Input(
                    str(store.setting("desired_retention", 0.9)), id="retention", compact=True
                )
                yield Label("New questions per day")
                yield Input(
                    str(store.setting("new_per_day", 15)),
                    id="new-per-day",
                    type="integer",
                    compact=True,
                )
                yield Label("Theme")
                yield Select(
                    [("dark", "dark"), ("light", "light")],
                    id="theme",
                    value=store.setting("theme", "dark"),
                    allow_blank=False,
                    compact=True,
                )
                yield Label("Language (where a question has zh)")
                yield Select(
                    [("English", "en"), ("中文", "zh")],
                    id="language",
                    value=store.setting("language", "en"),
                    allow_blank=False,
                    compact=True,
                )
            yield Static(id="settings-error")
            yield Button("Save (ctrl+s)", id="save", variant="primary", compact=True)
        yield Footer()

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        """Validate and store every setting; errors show inline."""
        error = self.query_one("#settings-error", Static)
        try:
            retention = float(self.query_one("#retention", Input).value)
        except ValueError:
            error.update("Desired retention must be a number such as 0.9.")
            return
        if not 0.7 <= retention <= 0.99:
            error.update("Desired retention must be between 0.70 and 0.99.")
            return
        try:
            per_day = int(self.query_one("#new-per-day", Input).value)
        except ValueError:
            error.update("New questions per day must be a whole number.")
            return
        if not 0 <= per_day <= 1000:
            error.update("New questions per day must be between 0 and 1000.")
            return
        store = self.qapp.store
        theme = str(self.query_one("#theme", Select).value)
        language = str(self.query_one("#language", Select).value)
        store.set_setting("desired_retention", retention)
        store.set_setting("new_per_day", per_day)
        store.set_setting("theme", theme)
        store.set_setting("language", language)
        self.qapp.language = language
        self.qapp.theme = "textual-light" if theme == "light" else "textual-dark"
        error.update("")
        self.notify("Settings saved.")

    def action_back(self) -> None:
        self.app.pop_screen()
