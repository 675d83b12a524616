"""`?`: every key of the screen underneath, with what it does."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

GLOBAL_KEYS = [("?, f1", "this help"), ("ctrl+q", "quit from anywhere"), ("escape", "back")]
EXTRA = {
    "StudyScreen": [
        ("enter", "submit (empty: reveal, not answered); after the reveal: rate as suggested"),
        ("space", "reveal a recall question; after it: tick the highlighted key point"),
        ("1-9", "tick the key points you got (recall); type an option number (choice)"),
        ("tab", "to the rating buttons (recall, after the reveal), where 1-4 rate"),
        ("1-4", "rate Again / Hard / Good / Easy (choice, numeric, or on the buttons)"),
        ("ctrl+z", "undo the last rating"),
    ],
}
KEY_NAMES = {"exclamation_mark": "!", "comma": ",", "question_mark": "?", "slash": "/"}


def help_rows(screen: Screen[object]) -> list[tuple[str, str]]:
    """(keys, what they do) for ``screen``: each key once. Keys bound to the same action share
    a row (`o, ctrl+o`); the notes in EXTRA replace a binding's short description; the global
    keys come last, unless the screen binds that key itself."""
    study = type(screen).__name__ == "StudyScreen"
    by_action: dict[str, list[str]] = {}
    texts: dict[str, str] = {}
    for binding in getattr(screen, "BINDINGS", []):
        if not hasattr(binding, "key") or not binding.description:
            continue
        if study and binding.key in ("1", "2", "3", "4"):
            continue  # one "1-4" row in EXTRA
        for key in binding.key.split(","):
            shown = binding.key_display or KEY_NAMES.get(key, key)
            keys = by_action.setdefault(binding.action, [])
            if shown not in keys:
                keys.append(shown)
        texts.setdefault(binding.action, binding.description)
    extra = dict(EXTRA.get(type(screen).__name__, []))
    rows: list[tuple[str, str]] = []
    seen: set[str] = set()
    for action, keys in by_action.items():
        keys = [k for k in keys if k not in seen]
        if not keys:
            continue
        seen.update(keys)
        note = next((extra.pop(k) for k in list(extra) if k in keys), None)
        rows.append((", ".join(keys), note or texts[action]))
    rows += [(key, text) for key, text in extra.items() if key not in seen]
    seen.update(extra)
    rows += [(key, text) for key, text in GLOBAL_KEYS if key not in seen]
    return rows


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
        for keys, text in help_rows(self.under):
            table.add_row(keys, text)
        name = type(self.under).__name__.removesuffix("Screen")
        with Vertical(id="help-box"):
            yield Static(f"Keys · {name}  (escape closes)", classes="section-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(table)
