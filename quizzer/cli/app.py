"""Opens the Textual app; the only place the CLI reaches into quizzer.tui."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from quizzer.content.bank import Bank


def run_app(
    start_questions: list[str] | None = None,
    start_mock: tuple[str, float] | None = None,
    bank: Bank | None = None,
) -> None:
    """Start the TUI. A bad database is reported here, before the screen opens; the bank
    loads in the background and problems with it are shown on screen."""
    from quizzer.cli.common import fail
    from quizzer.progress.store import StoreError, open_store

    try:
        store = open_store()
    except StoreError as exc:
        fail(str(exc))
    from quizzer.tui.app import make_app

    make_app(bank, store, start_questions, start_mock).run()
