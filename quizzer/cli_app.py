"""Opens the Textual app; the only place the CLI reaches into quizzer.tui."""

from __future__ import annotations


def run_app() -> None:
    """Start the TUI."""
    from quizzer.tui.app import run

    run()
