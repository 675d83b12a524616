"""Set or change the study plan: the interview date, a track, companies, topics, minutes a day."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, SelectionList, Static

from quizzer.base import clock
from quizzer.content.language import title_in

if TYPE_CHECKING:
    from quizzer.progress.goal import StudyGoal
    from quizzer.tui.base import QuizzerAppBase


class PlanFormModal(ModalScreen["StudyGoal | None"]):
    """Returns the saved goal, or None when cancelled. Nothing is saved until every field
    checks out (quizzer.study.plan.make_goal, as the CLI does); the first problem shows inline."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Save"),
    ]

    def __init__(self, goal: StudyGoal | None) -> None:
        super().__init__()
        self.goal = goal

    @property
    def qapp(self) -> QuizzerAppBase:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        bank = self.qapp.bank
        goal = self.goal
        lang = self.qapp.language
        with Vertical(id="plan-form"):
            yield Static("Plan toward an interview", classes="section-title")
            with Grid(id="plan-form-grid"):
                yield Label("Interview date (YYYY-MM-DD)")
                yield Input(
                    goal.date.isoformat() if goal else "",
                    placeholder="2027-01-15",
                    id="plan-date",
                    compact=True,
                )
                yield Label("Track")
                yield Select(
                    [(title_in(t, lang), t.key) for t in bank.tracks.values()],
                    id="plan-track",
                    value=goal.track if goal and goal.track else Select.NULL,
                    prompt="no track",
                    compact=True,
                )
                yield Label("Minutes per day")
                yield Input(
                    str(goal.minutes_per_day if goal else 45),
                    id="plan-minutes",
                    type="integer",
                    compact=True,
                )
                yield Label("Topics by hand (keys, commas)")
                yield Input(
                    ", ".join(goal.topics) if goal else "",
                    placeholder="kv-cache, moe",
                    id="plan-topics",
                    compact=True,
                )
            yield Label("Companies (space to tick)")
            chosen = set(goal.companies) if goal else set()
            yield SelectionList[str](
                *[
                    (f"{c.name_en} · {c.name_zh}  [dim]{c.key}[/dim]", c.key, c.key in chosen)
                    for c in sorted(bank.companies.values(), key=lambda c: c.name_en.lower())
                ],
                id="plan-companies",
                compact=True,
            )
            yield Static(id="plan-form-error")
            with Horizontal(id="plan-form-buttons"):
                yield Button("Save (ctrl+s)", id="plan-save", variant="primary", compact=True)
                yield Button("Cancel (esc)", id="plan-cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#plan-date", Input).focus()

    def changes(self) -> dict[str, Any]:
        """The form's fields as StudyGoal values; raises ValueError naming the field."""
        text = self.query_one("#plan-date", Input).value.strip()
        try:
            when = date.fromisoformat(text)
        except ValueError:
            raise ValueError(f"Interview date: {text or 'nothing'!r} is not YYYY-MM-DD") from None
        minutes_text = self.query_one("#plan-minutes", Input).value.strip()
        if not minutes_text.isdigit():
            raise ValueError("Minutes per day must be a whole number")
        track = self.query_one("#plan-track", Select).value
        topics = self.query_one("#plan-topics", Input).value.replace(",", " ").split()
        return {
            "date": when,
            "track": track if isinstance(track, str) else None,
            "companies": tuple(self.query_one("#plan-companies", SelectionList).selected),
            "topics": tuple(dict.fromkeys(topics)),
            "minutes_per_day": int(minutes_text),
        }

    @on(Button.Pressed, "#plan-save")
    def action_save(self) -> None:
        """Check the fields and save the goal; the first problem shows inline instead."""
        from quizzer.study.plan import PlanError, make_goal

        error = self.query_one("#plan-form-error", Static)
        try:
            goal = make_goal(self.qapp.bank, self.goal, self.changes(), clock.now())
        except (ValueError, PlanError) as exc:
            # The first line only: an unknown key's message ends with every valid key.
            error.update(str(exc).splitlines()[0].split("; the ")[0])
            return
        self.qapp.store.set_study_goal(goal)
        self.dismiss(goal)

    @on(Button.Pressed, "#plan-cancel")
    def action_cancel(self) -> None:
        """Close without saving."""
        self.dismiss(None)
