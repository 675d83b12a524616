"""A screen's status line: one row of its own above the footer for short messages.

Textual's toasts float over the bottom right of the screen, where the study screen has its
answer box and key hints and the browser its preview; a screen with a StatusLine sends its
notifications here instead (``StatusLineScreen``), so a message hides nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.screen import Screen
from textual.widgets import Static

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.timer import Timer

STYLES = {"information": "dim", "warning": "yellow", "error": "bold red"}
"""How each severity looks (shapes of text, not only colour: errors are bold)."""


class StatusLine(Static):
    """Shows one message at a time and clears it after its timeout."""

    DEFAULT_CSS = "StatusLine { height: auto; min-height: 1; max-height: 4; padding: 0 1; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._timer: Timer | None = None

    def say(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
    ) -> None:
        """Show ``message`` (after ``title``, if any) until ``timeout`` seconds pass (default:
        5, errors 10) or the next message replaces it."""
        self.update(Text(f"{title}: {message}" if title else message, style=STYLES[severity]))
        if self._timer is not None:
            self._timer.stop()
        delay = timeout if timeout is not None else (10 if severity == "error" else 5)
        self._timer = self.set_timer(delay, self.clear)

    def clear(self) -> None:
        """Empty the line (the row stays, so nothing moves)."""
        self.update("")


class StatusLineScreen(Screen[None]):
    """A screen whose notifications go to its StatusLine (which it composes), a row of their
    own above the footer, instead of a toast over its content."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Show ``message`` on the status line (``markup`` is unused: the line shows plain
        text)."""
        self.query_one(StatusLine).say(message, title=title, severity=severity, timeout=timeout)
