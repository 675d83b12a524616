"""The FSRS part of Settings: fit the parameters to your history (in a worker thread, with
progress), go back to the defaults, and a chart of what each desired retention costs."""

from __future__ import annotations

from contextlib import suppress
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.widgets import Button, ProgressBar, Static
from textual.worker import get_current_worker

from quizzer.base import clock
from quizzer.tui.widgets.charts import bar

if TYPE_CHECKING:
    from quizzer.study.workload import Workload
    from quizzer.tui.base import QuizzerAppBase


def workload_chart(result: Workload, width: int = 24) -> Text:
    """Reviews a day as bars, one row per desired retention, with the recall it buys; the
    retention set now is marked ▸."""
    top = max((row["reviews_per_day"] for row in result.rows), default=0.0) or 1.0
    text = Text()
    text.append(f"  retention  {'reviews/day':<{width + 7}} recall at day 30\n", style="dim")
    for row in result.rows:
        style = "bold" if row["current"] else ""
        recall = "—" if row["recall"] is None else f"{row['recall']:.1%}"
        text.append("▸ " if row["current"] else "  ", style="bold cyan")
        text.append(f"{row['retention']:>9.2f}  {row['reviews_per_day']:>5.0f} ", style=style)
        text.append(bar(row["reviews_per_day"] / top, width), style="cyan")
        text.append(f"  {recall:>6}\n", style=style)
    source = "your parameters" if result.own_parameters else "the default parameters"
    text.append(
        f"Next {result.days} days with {source}: {result.cards} studied questions, "
        f"{result.new_per_day} new a day ({result.new_available} left).",
        style="dim",
    )
    return text


class FsrsPanel(Vertical):
    """Optimize / reset the FSRS parameters, and the workload chart."""

    busy = False
    """A fit or a reset is running."""

    @property
    def qapp(self) -> QuizzerAppBase:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Static(id="fsrs-status")
        with Horizontal(id="fsrs-buttons"):
            yield Button("Optimize FSRS (ctrl+o)", id="fsrs-optimize", compact=True)
            yield Button("Reset to defaults", id="fsrs-reset", compact=True)
        yield ProgressBar(total=1.0, id="fsrs-progress", show_eta=False)
        yield Static(id="fsrs-step")
        yield Static(id="fsrs-report")
        yield Static("Workload by desired retention", id="workload-title")
        yield Static(Text("simulating…", style="dim"), id="workload")

    def on_mount(self) -> None:
        self.query_one("#fsrs-progress").display = False
        self.show_status()
        self.call_after_refresh(self.refresh_workload)

    def show_status(self) -> None:
        """Say which parameters are in use."""
        from quizzer.progress.settings import stored_parameters

        own = stored_parameters(self.qapp.store) is not None
        self.query_one("#fsrs-status", Static).update(
            "FSRS-6 parameters: yours (fitted to your history, or pasted)."
            if own
            else "FSRS-6 parameters: the defaults. Optimize fits them to your own reviews."
        )
        self.query_one("#fsrs-reset", Button).disabled = not own

    # optimizing -------------------------------------------------------------------------

    @on(Button.Pressed, "#fsrs-optimize")
    def optimize(self) -> None:
        """Start fitting in a worker thread (one at a time)."""
        if self.busy:
            return
        self.busy = True
        self.query_one("#fsrs-optimize", Button).disabled = True
        progress = self.query_one("#fsrs-progress", ProgressBar)
        progress.display = True
        progress.update(progress=0.0)
        self.query_one("#fsrs-report", Static).update("")
        self.fit()

    @work(thread=True, exclusive=True, group="fsrs-fit")
    def fit(self) -> None:
        """Run `quizzer optimize` with its own connection, reporting each stage."""
        from quizzer.progress.optimizer import NotEnoughHistory, optimize, report_lines
        from quizzer.progress.store import Store, StoreError

        app = self.qapp
        try:
            store = Store(app.store.path)
        except StoreError as exc:
            app.call_from_thread(self.fit_done, str(exc))
            return
        try:
            report = optimize(
                store, lambda done, what: app.call_from_thread(self.fit_progress, done, what)
            )
        except (NotEnoughHistory, StoreError) as exc:
            app.call_from_thread(self.fit_done, str(exc))
            return
        finally:
            store.close()
        app.call_from_thread(self.fit_done, "\n".join(report_lines(report)))

    def fit_progress(self, done: float, what: str) -> None:
        """Move the bar and name the stage."""
        if not self.is_attached:  # the user left Settings; the fit still finishes and saves
            return
        with suppress(NoMatches):  # leaving Settings removes the children first
            self.query_one("#fsrs-progress", ProgressBar).update(progress=done)
            self.query_one("#fsrs-step", Static).update(Text(what + "…", style="dim"))

    def fit_done(self, message: str) -> None:
        """Show the report (or why there is none) and refresh what depends on it."""
        self.busy = False
        if not self.is_attached:
            return
        try:
            self.query_one("#fsrs-optimize", Button).disabled = False
            self.query_one("#fsrs-progress").display = False
            self.query_one("#fsrs-step", Static).update("")
            self.query_one("#fsrs-report", Static).update(message)
            self.show_status()
        except NoMatches:  # the user left Settings while it ran; the result is saved anyway
            return
        self.refresh_workload()

    @on(Button.Pressed, "#fsrs-reset")
    def reset(self) -> None:
        """Back to the default parameters (memory states recomputed, due dates kept)."""
        if self.busy:
            return
        self.busy = True
        self.query_one("#fsrs-optimize", Button).disabled = True
        self.query_one("#fsrs-report", Static).update("")
        self.back_to_defaults()

    @work(thread=True, exclusive=True, group="fsrs-fit")
    def back_to_defaults(self) -> None:
        """`quizzer optimize --reset`, with its own connection."""
        from quizzer.progress.optimizer import reset
        from quizzer.progress.store import Store, StoreError

        app = self.qapp
        try:
            store = Store(app.store.path)
            try:
                updated = reset(store)
            finally:
                store.close()
        except StoreError as exc:
            app.call_from_thread(self.fit_done, str(exc))
            return
        app.call_from_thread(
            self.fit_done,
            f"Back to the default FSRS-6 parameters; memory states of {updated} cards "
            "recomputed (due dates unchanged).",
        )

    # workload ---------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="fsrs-workload")
    def refresh_workload(self) -> None:
        """Simulate the month ahead at each retention (in a thread, with its own connection)."""
        from quizzer.content.bank import BankError
        from quizzer.progress.store import Store, StoreError
        from quizzer.study.workload import workload

        app = self.qapp
        shown: Any
        try:
            store = Store(app.store.path)
            try:
                shown = workload_chart(workload(app.bank, store, clock.now()))
            finally:
                store.close()
        except (BankError, StoreError) as exc:
            shown = Text(f"no simulation: {exc}", style="dim")
        if not get_current_worker().is_cancelled:  # else a newer simulation has taken over
            app.call_from_thread(self.show_workload, shown)

    def show_workload(self, chart: Any) -> None:
        """Put the simulated chart (or why there is none) on screen."""
        if self.is_attached:
            with suppress(NoMatches):  # leaving Settings removes the children first
                self.query_one("#workload", Static).update(chart)
