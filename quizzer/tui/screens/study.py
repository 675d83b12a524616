"""The study screen: prompt, answer, verdict, rating. Grading and scheduling live in
quizzer.study.session; this screen only shows them and forwards keys."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Key
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Markdown, ProgressBar, Static

from quizzer.content.language import localise, shown_points
from quizzer.content.models import ChoiceQuestion, CodeQuestion, NumericQuestion, RecallQuestion
from quizzer.content.render import (
    answer_markdown,
    explanation_markdown,
    prompt_markdown,
    your_answer_markdown,
)
from quizzer.grading.answers import AnswerError, parse_answer
from quizzer.grading.calc import format_number
from quizzer.progress.scheduling import Grade
from quizzer.progress.store import StoreError
from quizzer.study.mock import MockRatings
from quizzer.study.selfgrade import suggest_rating
from quizzer.study.session import Current, Outcome, StudySession
from quizzer.tui.links import open_link
from quizzer.tui.widgets.checklist import KeyPointChecklist, checklist_title, self_grade_line
from quizzer.tui.widgets.chips import ChipBar, article_links, option_grid
from quizzer.tui.widgets.status import StatusLine

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from quizzer.content.models import AnyQuestion
    from quizzer.tui.base import QuizzerAppBase


SELF_GRADING = ("#typed", "#checklist-title", "#checklist", "#self-grade")
"""The widgets of a recall answer's self-grading, shown after its reveal."""


class AnswerInput(Input):
    """The answer box. Space on an empty box reveals a recall question."""

    async def _on_key(self, event: Key) -> None:
        if event.key == "space" and not self.value and getattr(self.screen, "is_recall", False):
            event.stop()
            event.prevent_default()
            self.post_message(self.Submitted(self, ""))
            return
        await super()._on_key(event)


class StudyScreen(Screen[None]):
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
        super().__init__()
        self.questions = questions
        self.mode = mode
        self.session_title = title
        self.timed_minutes = timed_minutes
        self.company = company
        self.session: StudySession | None = None
        self.outcome: Outcome | None = None
        self.show_explanation = False
        self.deadline: float | None = None
        self.mock_ratings: MockRatings | None = None
        """A mock's rating policy (shared with the plain mock): recall answers wait for it."""
        self.rating_phase = False
        """True once a mock's questions are over and its recall answers are being self-rated."""
        self.notice = notice
        """A message to show when the session opens (a mock standing in for a company)."""

    @property
    def qapp(self) -> QuizzerAppBase:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    @property
    def is_recall(self) -> bool:
        """Whether the open question is a recall question."""
        current = self.session.current if self.session else None
        return bool(current and isinstance(current.question, RecallQuestion))

    @property
    def is_mock(self) -> bool:
        """Mock interviews hide answers until the end."""
        return self.mode == "mock"

    def compose(self) -> ComposeResult:
        with Horizontal(id="study-top"):
            yield Static(self.session_title, id="study-title")
            yield ProgressBar(total=len(self.questions), show_eta=False, id="progress")
            yield Static("", id="clock")
        yield ChipBar(id="chips")
        with VerticalScroll(id="study-body"):
            yield Markdown(id="prompt")
            yield Static(id="options")
            yield Static(id="verdict")
            with Horizontal(id="compare"):
                yield Markdown(id="typed")
                yield Markdown(id="reveal")
            yield Markdown(id="explanation")
            yield Static(id="links")
        with Vertical(id="answer-area"):
            yield AnswerInput(
                placeholder="Your answer (Enter submits, empty Enter reveals)",
                id="answer",
                compact=True,
            )
            yield Static(id="feedback")
            yield Static(
                "enter submit · empty: reveal · esc back · ctrl+z undo · ctrl+o link · f1 help",
                id="answer-keys",
            )
        # Docked under the answer rather than in the scrolling body, so the key points stay in
        # view beside the ratings however long the model answer is.
        yield Static(id="checklist-title")
        yield KeyPointChecklist(id="checklist")
        yield Static(id="self-grade")
        with Horizontal(id="ratings"):
            for grade in Grade:
                yield Button(
                    f"{grade.value} {grade.label.title()}",
                    id=f"rate-{grade.value}",
                    compact=True,
                    variant="error" if grade == Grade.AGAIN else "default",
                )
        yield StatusLine(id="status")
        yield Footer()

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
        q = current.question
        box = self.query_one("#answer", AnswerInput)
        if isinstance(q, ChoiceQuestion):
            box.placeholder = f"Option letter(s) or number 1–{len(q.options)}; empty Enter reveals"
        elif isinstance(q, NumericQuestion):
            box.placeholder = f"A number, with a unit or not (in {q.unit}); e.g. 2*70e9/2**30 GiB"
        else:
            box.placeholder = "Type your answer if you like; Enter or Space reveals"
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

    def show_question(self, current: Current) -> None:
        """The progress, chips, prompt and options of ``current``, with the answer box open."""
        assert self.session is not None
        q = current.question
        lang = self.qapp.language
        self.query_one("#progress", ProgressBar).update(
            total=max(self.session.total, 1), progress=self.session.position
        )
        self.query_one("#chips", ChipBar).show(self.qapp.bank, q, lang)
        prompt = prompt_markdown(current.prompt(lang), edited=current.edited)
        self.query_one("#prompt", Markdown).update(prompt)
        options = self.query_one("#options", Static)
        if isinstance(q, ChoiceQuestion):
            options.update(option_grid(localise(q, lang).options))
            options.display = True
        else:
            options.display = False
        for widget_id in ("#verdict", "#links"):
            self.query_one(widget_id, Static).update("")
        self.query_one("#reveal", Markdown).update("")
        self.query_one("#explanation", Markdown).update("")
        for widget_id in SELF_GRADING:
            self.query_one(widget_id).display = False
        self.query_one("#ratings").display = False
        area = self.query_one("#answer-area")
        area.display = True
        box = self.query_one("#answer", AnswerInput)
        box.value = ""
        box.disabled = False

    @on(Input.Changed, "#answer")
    def live_feedback(self, event: Input.Changed) -> None:
        """Show how a numeric answer is understood, as it is typed."""
        current = self.session.current if self.session else None
        feedback = self.query_one("#feedback", Static)
        if current is None or not isinstance(current.question, NumericQuestion):
            return
        text = event.value.strip()
        if not text:
            feedback.update("")
            return
        try:
            parsed = parse_answer(text, current.question.unit)
        except AnswerError as exc:
            feedback.update(Text(f"? {exc}", style="yellow"))
            return
        unit = current.question.unit
        note = "" if not parsed.assumed_unit else f" (no unit typed: read as {unit})"
        if parsed.read_as:
            note = f" ({parsed.unit} read as {parsed.read_as})"
        feedback.update(Text(f"= {format_number(parsed.value)} {unit}{note}", style="green"))

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

    def reveal(self, outcome: Outcome) -> None:
        """Show the verdict, the answer and the rating buttons."""
        assert self.session is not None and self.session.current is not None
        current = self.session.current
        q = current.question
        lang = self.qapp.language
        style = {True: "bold green", False: "bold red", None: "bold"}[outcome.correct]
        mark = {True: "✓ ", False: "✗ ", None: "· "}[outcome.correct]
        verdict = Text(mark + outcome.message, style=style)
        if outcome.hint:
            verdict.append(f"\n  hint: {outcome.hint}", style="yellow")
        self.query_one("#verdict", Static).update(verdict)
        worked = ""
        if isinstance(q, NumericQuestion):
            assert current.attempt is not None
            worked = current.attempt.worked(localise(q, lang).worked)
        elif isinstance(q, RecallQuestion):
            typed = self.query_one("#typed", Markdown)
            typed.update(your_answer_markdown(current.answer))
            typed.display = bool(current.answer) or self.rating_phase
            points = shown_points(q, lang)
            self.query_one("#checklist-title", Static).update(checklist_title(len(points)))
            self.query_one("#checklist", KeyPointChecklist).show_points(points)
        self.query_one("#reveal", Markdown).update(answer_markdown(q, lang, worked=worked))
        self.query_one("#links", Static).update(article_links(self.qapp.bank, q, lang))
        box = self.query_one("#answer", AnswerInput)
        box.disabled = True
        self.query_one("#answer-area").display = False
        ratings = self.query_one("#ratings")
        ratings.display = True
        if isinstance(q, RecallQuestion):
            for widget_id in SELF_GRADING:
                self.query_one(widget_id).display = widget_id != "#typed" or typed.display
            self.show_suggestion()
            self.query_one("#checklist", KeyPointChecklist).focus()
        else:
            self.label_ratings(outcome.suggested)
            self.query_one(f"#rate-{outcome.suggested.value}", Button).focus()
        self.refresh_bindings()

    def label_ratings(self, suggested: Grade) -> None:
        """Each offered rating's button with its interval, the suggested one marked."""
        assert self.outcome is not None
        for grade in Grade:
            # Only the ratings that apply are offered (a wrong or blank choice or numeric
            # answer: Again alone); their keys are switched off too (check_action).
            button = self.query_one(f"#rate-{grade.value}", Button)
            label = f"{grade.value} {grade.label.title()} · {self.outcome.intervals[grade]}"
            if grade == suggested:
                label += " ←"
            button.label = label
            button.display = grade in self.outcome.allowed

    def show_suggestion(self) -> Grade:
        """The rating the ticked key points suggest, on the self-grade line and the buttons."""
        checklist = self.query_one("#checklist", KeyPointChecklist)
        got, total = len(checklist.got), len(checklist.points)
        suggested = suggest_rating(got, total)
        self.query_one("#self-grade", Static).update(self_grade_line(got, total))
        self.label_ratings(suggested)
        return suggested

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

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Messages of a session go to its status line above the footer, a row of their own
        (a toast would cover the answer box and its key hints)."""
        self.query_one(StatusLine).say(message, title=title, severity=severity, timeout=timeout)

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
