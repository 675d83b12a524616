"""Desired retention, new questions per day, theme and language, saved in the progress DB;
the FSRS parameters (fit to your history, or back to the defaults) and what each desired
retention costs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static

from quizzer.content.language import LANGUAGE_NAMES
from quizzer.progress.settings import SettingError, parse_setting, stored_setting
from quizzer.tui.widgets.footer import QuizzerFooter
from quizzer.tui.widgets.fsrs_panel import FsrsPanel
from quizzer.tui.widgets.titlebar import TitleBar

if TYPE_CHECKING:
    from quizzer.tui.base import QuizzerAppBase


class SettingsScreen(Screen[None]):
    """Edit and save the user's settings."""

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("ctrl+s", "save", "Save"),
        Binding("ctrl+o", "optimize", "Optimize FSRS"),
    ]

    @property
    def qapp(self) -> QuizzerAppBase:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        store = self.qapp.store
        yield TitleBar()
        with VerticalScroll(id="settings-form"):
            with Grid(id="settings-grid"):
                yield Label("Desired retention (0.70–0.99)")
                yield Input(
                    str(stored_setting(store, "desired_retention")), id="retention", compact=True
                )
                yield Label("New questions per day")
                yield Input(
                    str(stored_setting(store, "new_per_day")),
                    id="new-per-day",
                    type="integer",
                    compact=True,
                )
                yield Label("Theme")
                yield Select(
                    [("dark", "dark"), ("light", "light")],
                    id="theme",
                    value=stored_setting(store, "theme"),
                    allow_blank=False,
                    compact=True,
                )
                yield Label("Language (where a question has zh)")
                yield Select(
                    [(name, lang) for lang, name in LANGUAGE_NAMES.items()],
                    id="language",
                    value=stored_setting(store, "language"),
                    allow_blank=False,
                    compact=True,
                )
            yield Static(id="settings-error")
            yield Button("Save (ctrl+s)", id="save", variant="primary", compact=True)
            yield FsrsPanel(id="fsrs")
        yield QuizzerFooter()

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        """Validate every setting (quizzer.progress.settings.parse_setting, as the CLI does)
        and store them; the first error shows inline and nothing is saved."""
        error = self.query_one("#settings-error", Static)
        typed = {
            "desired_retention": self.query_one("#retention", Input).value,
            "new_per_day": self.query_one("#new-per-day", Input).value,
            "theme": str(self.query_one("#theme", Select).value),
            "language": str(self.query_one("#language", Select).value),
        }
        labels = {
            "desired_retention": "Desired retention",
            "new_per_day": "New questions per day",
            "theme": "Theme",
            "language": "Language",
        }
        values = {}
        for key, raw in typed.items():
            try:
                values[key] = parse_setting(key, raw)
            except SettingError as exc:
                error.update(f"{labels[key]} must be {exc.rule}.")
                return
        store = self.qapp.store
        for key, value in values.items():
            store.set_setting(key, value)
        self.qapp.language = values["language"]
        self.qapp.theme = "textual-light" if values["theme"] == "light" else "textual-dark"
        error.update("")
        self.notify("Settings saved.")
        self.query_one(FsrsPanel).refresh_workload()  # the ▸ follows the saved retention

    def action_optimize(self) -> None:
        """Fit FSRS to the user's history (the panel runs it in a worker)."""
        self.query_one(FsrsPanel).optimize()

    def action_back(self) -> None:
        self.app.pop_screen()
