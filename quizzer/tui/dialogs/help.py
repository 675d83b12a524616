"""`?`: every key of the screen underneath, with what it does."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

GLOBAL_KEYS = [("?", "this help"), ("ctrl+q", "quit from anywhere"), ("escape", "back")]
EXTRA = {
    "StudyScreen": [
        ("enter", "submit; empty: reveal, counted as not answered"),
        ("space", "reveal a recall question (empty answer box)"),
        ("1-9", "recall, after the reveal: tick the key points you got (also space, a click)"),
        ("enter", "after the reveal: take the suggested rating (recall: the ticks suggest it)"),
        ("tab", "recall, after the reveal: to the rating buttons, where 1-4 rate"),
        ("1-4", "rate Again / Hard / Good / Easy (choice, numeric, or on the buttons)"),
        ("1-9", "before the reveal: type an option number for a choice question"),
        ("ctrl+z", "undo the last rating (also u after the reveal)"),
    ],
}


class HelpModal(ModalScreen[None]):
    """Lists the bindings of the screen it was opened over."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def __init__(self, under: Screen[object]) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        table = Table(box=None, show_header=False, padding=(0, 2))
        table.add_column(style="bold")
        table.add_column()
        seen = set()
        for binding in getattr(self.under, "BINDINGS", []):
            if not hasattr(binding, "key"):
                continue
            key = binding.key_display or binding.key
            if key in ("1", "2", "3", "4") and type(self.under).__name__ == "StudyScreen":
                continue
            if (key, binding.description) in seen or not binding.description:
                continue
            seen.add((key, binding.description))
            table.add_row(
                key.replace("exclamation_mark", "!").replace("comma", ","), binding.description
            )
        for key, text in EXTRA.get(type(self.under).__name__, []) + GLOBAL_KEYS:
            table.add_row(key, text)
        name = type(self.under).__name__.removesuffix("Screen")
        with Vertical(id="help-box"):
            yield Static(f"Keys · {name}  (escape closes)", classes="section-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(table)
