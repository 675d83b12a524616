"""The study screen: one session, question by question (answer, reveal, rating), or a mock
interview (timed, answers hidden, recall answers self-rated at the end). Grading and
scheduling live in quizzer.study.session; the widgets and what they show in study_view.py;
this screen drives the session and forwards keys."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.binding import Binding
from textual.widgets import Button, Input, Markdown, ProgressBar, Static

from quizzer.content.models import CodeQuestion
from quizzer.content.render import explanation_markdown
from quizzer.grading.answers import AnswerError
from quizzer.progress.scheduling import Grade
from quizzer.progress.store import StoreError
from quizzer.study.mock import MockRatings
from quizzer.study.session import StudySession
from quizzer.tui.links import open_link
from quizzer.tui.screens.study_view import SELF_GRADING as SELF_GRADING
from quizzer.tui.screens.study_view import StudyView
from quizzer.tui.widgets.answer import AnswerInput, placeholder_for
from quizzer.tui.widgets.checklist import KeyPointChecklist

if TYPE_CHECKING:
    from quizzer.content.models import AnyQuestion
    from quizzer.study.session import Current


class StudyScreen(StudyView):
    """One session: a progress bar, the question, an answer box, then the verdict and ratings."""

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("1", "rate(1)", "Again", show=False),
        Binding("2", "rate(2)", "Hard", show=False),
        Binding("3", "rate(3)", "Good", show=False),
        Binding("4", "rate(4)", "Easy", show=False),
        Binding("enter", "accept", "Rate suggested", show=False),
        Binding("e", "explain", "Explain"),
        Binding("o", "open_article", "Open article"),
        Binding("u", "undo", "Undo"),
        Binding("ctrl+z", "undo", "Undo", show=False),
        Binding("ctrl+o", "open_article", "Open article", show=False),
        Binding("exclamation_mark", "suspend", "Suspend", key_display="!"),
    ]

    def __init__(
        self,
        questions: list[AnyQuestion],
        *,
        mode: str = "drill",
        title: str = "Study",
        timed_minutes: float | None = None,
        company: str | None = None,
        notice: str = "",
    ) -> None:
        super().__init__(questions, title=title)
        self.mode = mode
        """"drill", "weak" or "mock" (recorded with the session)."""
        self.timed_minutes = timed_minutes
        """A mock interview's length; None for an untimed session."""
        self.company = company
        """The company a mock interview is for."""
        self.show_explanation = False
        """Whether the explanation is shown (e toggles it after the reveal)."""
        self.deadline: float | None = None
        """When a timed session ends (time.monotonic); None once it has."""
        self.mock_ratings: MockRatings | None = None
        """A mock's rating policy (shared with the plain mock): recall answers wait for it."""
        self.notice = notice
        """A message to show when the session opens (a mock standing in for a company)."""

    @property
    def is_mock(self) -> bool:
        """Mock interviews hide answers until the end."""
        return self.mode == "mock"

    def on_mount(self) -> None:
        app = self.qapp
        self.session = StudySession(
            app.bank, app.store, self.questions, mode=self.mode, company=self.company
        )
        if self.is_mock:
            self.mock_ratings = MockRatings(self.session)
        if self.timed_minutes:
            self.deadline = time.monotonic() + self.timed_minutes * 60
            self.set_interval(1, self.tick)
            self.tick()
        self.show_next()
        if self.notice:
            self.notify(self.notice, timeout=15)

    # phases ------------------------------------------------------------------------------

    def show_next(self) -> None:
        """Present the next question or finish."""
        assert self.session is not None
        current = self.session.current or self.session.next()
        self.outcome = None
        self.show_explanation = False
        if current is None:
            self.finish()
            return
        if isinstance(current.question, CodeQuestion):
            self.open_exercise(current)
            return
        self.show_question(current)
        box = self.query_one("#answer", AnswerInput)
        box.placeholder = placeholder_for(current.question)
        self.query_one("#feedback", Static).update("")
        box.focus()

    def open_exercise(self, current: Current) -> None:
        """A code question opens the exercise screen (editor, checks, solution, rating)."""
        from quizzer.tui.screens.exercise import ExerciseScreen

        assert self.session is not None
        self.query_one("#progress", ProgressBar).update(
            total=max(self.session.total, 1), progress=self.session.position
        )
        screen = ExerciseScreen(
            self.session,
            current,
            title=self.session_title,
            mock=self.is_mock,
            deadline=self.deadline,
        )
        self.app.push_screen(screen, self.exercise_closed)

    def exercise_closed(self, result: str | None) -> None:
        """Back from the exercise screen: next question, or leave, or the mock's end."""
        assert self.session is not None
        if result == "answered" and self.mock_ratings is not None:
            current = self.session.current
            assert current is not None and current.outcome is not None
            try:
                self.mock_ratings.answered(current.outcome)
            except StoreError as exc:
                self.notify(str(exc), severity="error", timeout=10)
        if result == "left":
            self.action_back()
        elif result == "time":
            self.deadline = None
            self.notify("Time is up.", severity="warning")
            self.finish()
        else:
            self.show_next()

    @on(Input.Submitted, "#answer")
    def submit(self, event: Input.Submitted) -> None:
        """Grade the answer (errors show inline; the question stays open)."""
        assert self.session is not None
        if self.session.current is None or self.outcome is not None:
            return
        try:
            outcome = self.session.submit(event.value)
        except AnswerError as exc:
            self.query_one("#feedback", Static).update(Text(f"? {exc}", style="bold yellow"))
            return
        self.outcome = outcome
        if self.mock_ratings is not None:
            # Choice and numeric are saved now; a recall answer waits for the self-rating.
            self.mock_ratings.answered(outcome)
            self.show_next()
            return
        self.reveal(outcome)

    def show_self_rating(self) -> None:
        """After a mock's questions: the next recall answer beside the model answer, to rate
        1–4; the summary once none is left."""
        assert self.mock_ratings is not None
        current = self.mock_ratings.next_to_rate()
        if current is None:
            self.finish()
            return
        assert current.outcome is not None
        self.outcome = current.outcome
        self.show_explanation = False
        self.show_question(current)
        left = len(self.mock_ratings.pending)
        self.query_one("#study-title", Static).update(
            f"{self.session_title} · rate your recall answers ({left} left)"
        )
        self.reveal(current.outcome)

    @on(KeyPointChecklist.Toggled, "#checklist")
    def ticked(self) -> None:
        """A key point ticked or unticked: it is recorded and the suggestion follows."""
        if self.session is not None and self.outcome is not None:
            self.session.check_points(self.query_one("#checklist", KeyPointChecklist).got)
            self.show_suggestion()

    @on(KeyPointChecklist.Confirmed, "#checklist")
    def confirmed(self) -> None:
        """Enter on the checklist: take the suggested rating."""
        self.action_accept()

    # actions -----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The rating keys that do not apply to the revealed answer do nothing."""
        if action == "rate" and self.outcome is not None and parameters:
            return Grade(int(str(parameters[0]))) in self.outcome.allowed
        return True

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id and event.button.id.startswith("rate-"):
            self.action_rate(int(event.button.id.removeprefix("rate-")))

    def action_rate(self, value: int) -> None:
        """Rate the revealed question (or, after a mock, the recall answer) and move on."""
        if self.session is None or self.outcome is None:
            return
        if self.is_mock and not self.rating_phase:
            return
        grade = Grade(value)
        if grade not in self.outcome.allowed:
            return  # not offered: its button is hidden and its key switched off
        try:
            if self.rating_phase:
                assert self.mock_ratings is not None
                rated = self.mock_ratings.rate(grade)
            else:
                rated = self.session.rate(grade)
        except StoreError as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return
        self.notify(
            f"{rated.grade.label.title()}: next in {self.outcome.intervals[rated.grade]}", timeout=2
        )
        if self.rating_phase:
            self.show_self_rating()
        else:
            self.show_next()

    def action_accept(self) -> None:
        """Enter after the reveal takes the suggested rating; for a recall answer, the one its
        ticked key points suggest (ticking none is then recorded too)."""
        if self.outcome is None or self.session is None or (self.is_mock and not self.rating_phase):
            return
        if self.is_recall and self.query_one("#checklist").display:
            self.session.check_points(self.query_one("#checklist", KeyPointChecklist).got)
        self.action_rate(self.outcome.suggested.value)

    def action_explain(self) -> None:
        """Toggle the explanation (after the reveal)."""
        current = self.session.current if self.session else None
        if current is None or self.outcome is None:
            self.notify("Answer first; the explanation comes with the reveal.")
            return
        self.show_explanation = not self.show_explanation
        text = explanation_markdown(current.question, self.qapp.language)
        self.query_one("#explanation", Markdown).update(text if self.show_explanation else "")

    def action_open_article(self) -> None:
        """Open the main linked article in the browser."""
        current = self.session.current if self.session else None
        if current is None:
            return
        title, url = self.qapp.bank.main_link(current.question)
        open_link(self, title, url)

    def action_undo(self) -> None:
        """Undo the last rating; that question comes back."""
        if self.session is None or self.is_mock:
            return
        undone = self.session.undo()
        if undone is None:
            self.notify("Nothing to undo in this session.")
            return
        self.notify(f"Undone: {undone.id}")
        self.show_next()

    def action_suspend(self) -> None:
        """Suspend the open question."""
        if self.session is None or self.session.current is None or self.rating_phase:
            return
        q = self.session.suspend_current()
        if q is not None:
            self.notify(f"Suspended {q.id}. `quizzer unsuspend {q.id}` brings it back.")
        self.show_next()

    def action_back(self) -> None:
        """Leave the session (every rating so far is saved). In a mock, Esc ends the interview
        and goes to the self-rating of recall answers; Esc there stops it, leaving the rest
        unrated and unsaved."""
        if self.session is not None:
            if self.is_mock:
                if self.rating_phase:
                    self.finish(stop_rating=True)
                else:
                    self.finish()
                return
            self.session.finish()
        self.app.pop_screen()

    def tick(self) -> None:
        """Update the mock-interview clock; time up ends the interview."""
        if self.deadline is None:
            return
        left = max(0, self.deadline - time.monotonic())
        minutes, seconds = divmod(int(left), 60)
        self.query_one("#clock", Static).update(
            Text(f"⏱ {minutes:02d}:{seconds:02d}", style="bold red" if left < 60 else "bold")
        )
        if left <= 0 and self.session is not None:
            if self.app.screen is not self:
                return  # the exercise screen on top ends the mock itself (or a dialog is open)
            self.deadline = None
            self.notify("Time is up.", severity="warning")
            self.finish()

    def finish(self, *, stop_rating: bool = False) -> None:
        """Replace this screen with the session summary; a mock first has its recall answers
        self-rated (unless ``stop_rating``: those left are not saved)."""
        from quizzer.tui.screens.summary import SummaryScreen

        assert self.session is not None
        ratings = self.mock_ratings
        if ratings is not None and not self.rating_phase and ratings.pending and not stop_rating:
            self.rating_phase = True
            self.deadline = None
            if self.session.current is not None and self.session.current.outcome is None:
                self.session.leave_current()  # the question on screen was not answered
            self.show_self_rating()
            return
        unrated = ratings.stop() if ratings is not None else []
        self.session.finish()
        self.app.switch_screen(
            SummaryScreen(self.session, mock=self.is_mock, company=self.company, unrated=unrated)
        )
