"""The app as its screens see it: the bank, the progress store, the language, and the two ways
a screen hands control back (open a session, show bank problems).

QuizzerApp (app.py) subclasses this with the bindings and the wiring that opens screens.
Screens, dialogs and widgets type their app as QuizzerAppBase, so none of them imports app.py,
which imports them: there is no import cycle, not even a type-only one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import App

if TYPE_CHECKING:
    from quizzer.content.bank import Bank
    from quizzer.content.models import AnyQuestion
    from quizzer.progress.store import Store


class QuizzerAppBase(App[None]):
    """The bank (loaded on first use), the progress store and the language setting."""

    def __init__(
        self,
        bank: Bank | None,
        store: Store,
        start_questions: list[str] | None = None,
        start_mock: tuple[str, float] | None = None,
        bank_loader: Callable[[], Bank] | None = None,
    ) -> None:
        super().__init__()
        self._bank = bank
        self._bank_loader = bank_loader
        self._bank_lock = threading.Lock()
        self.store = store
        """The progress store (the app's own connection; workers open their own)."""
        self.start_questions = start_questions
        """Question ids to drill as soon as the app opens (`quizzer drill --tui --id …`)."""
        self.start_mock = start_mock
        """(company, minutes) of a mock interview to open at start (`quizzer mock --tui`)."""
        from quizzer.progress.settings import stored_setting

        self.language: str = stored_setting(store, "language")
        """The language questions and catalog titles are shown in ("en" or "zh")."""
        if stored_setting(store, "theme") == "light":
            # Only when it differs from Textual's default: setting the theme restyles everything.
            self.theme = "textual-light"

    @property
    def bank(self) -> Bank:
        """The question bank, loaded on first use (the dashboard's worker loads it right after
        the first frame, so start-up does not wait for it). Raises BankError."""
        if self._bank is None:
            with self._bank_lock:
                if self._bank is None:
                    if self._bank_loader is None:
                        from quizzer.content.bank import load_bank

                        self._bank = load_bank()
                    else:
                        self._bank = self._bank_loader()
        return self._bank

    @property
    def bank_loaded(self) -> bool:
        """Whether the bank is in memory."""
        return self._bank is not None

    def start_study(
        self,
        questions: list[AnyQuestion],
        mode: str = "drill",
        title: str = "Study",
        timed_minutes: float | None = None,
        company: str | None = None,
        notice: str = "",
    ) -> None:
        """Open a study (or mock) session over ``questions``; ``notice`` shows as it opens.
        QuizzerApp opens the screen."""
        raise NotImplementedError

    def show_bank_error(self, diagnostics: list[object]) -> None:
        """Replace everything with the list of bank problems (the app cannot run without it).
        QuizzerApp opens the screen."""
        raise NotImplementedError
