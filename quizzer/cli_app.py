"""Opens the Textual app; the only place the CLI reaches into quizzer.tui."""

from __future__ import annotations


def run_app(
    start_questions: list[str] | None = None, start_mock: tuple[str, float] | None = None
) -> None:
    """Start the TUI, with clear messages (not tracebacks) for a bad bank or database."""
    from quizzer.cli_common import fail, open_bank
    from quizzer.store import StoreError, open_store

    bank = open_bank()
    try:
        store = open_store()
    except StoreError as exc:
        fail(str(exc))
    store.adopt_renames(bank.previous)
    from quizzer.tui.app import QuizzerApp

    QuizzerApp(bank, store, start_questions, start_mock).run()
