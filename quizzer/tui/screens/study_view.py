"""What a study session shows: the progress and chips, the question, the answer box, then the
verdict, the answer, a recall answer's key-point checklist and the rating buttons.

StudyView holds these widgets and fills them; StudyScreen (study.py) drives the session
(next question, grading, rating, undo, the mock interview's clock and self-rating) through it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Markdown, ProgressBar, Static

from quizzer.content.language import localise, shown_points
from quizzer.content.models import ChoiceQuestion, NumericQuestion, RecallQuestion
from quizzer.content.render import answer_markdown, prompt_markdown, your_answer_markdown
from quizzer.progress.scheduling import Grade
from quizzer.study.selfgrade import suggest_rating
from quizzer.tui.widgets.answer import (
    ANSWER_KEYS,
    FIRST_PLACEHOLDER,
    AnswerInput,
    numeric_feedback,
    verdict_text,
)
from quizzer.tui.widgets.checklist import KeyPointChecklist, checklist_title, self_grade_line
from quizzer.tui.widgets.chips import ChipBar, article_links, option_grid
from quizzer.tui.widgets.footer import QuizzerFooter
from quizzer.tui.widgets.status import StatusLine, StatusLineScreen

if TYPE_CHECKING:
    from quizzer.content.models import AnyQuestion
    from quizzer.study.session import Current, Outcome, StudySession
    from quizzer.tui.base import QuizzerAppBase


SELF_GRADING = ("#typed", "#checklist-title", "#checklist", "#self-grade")
"""The widgets of a recall answer's self-grading, shown after its reveal."""


class StudyView(StatusLineScreen):
    """The study screen's widgets and what they show (StudyScreen adds the session's flow)."""

    def __init__(self, questions: list[AnyQuestion], *, title: str = "Study") -> None:
        super().__init__()
        self.questions = questions
        """The session's questions, in the order they come."""
        self.session_title = title
        """The title at the top left."""
        self.session: StudySession | None = None
        """The session (opened when the screen mounts)."""
        self.outcome: Outcome | None = None
        """The graded answer on screen; None while the question is open."""
        self.rating_phase = False
        """True once a mock's questions are over and its recall answers are being self-rated."""

    @property
    def qapp(self) -> QuizzerAppBase:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    @property
    def is_recall(self) -> bool:
        """Whether the open question is a recall question."""
        current = self.session.current if self.session else None
        return bool(current and isinstance(current.question, RecallQuestion))

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
            yield AnswerInput(placeholder=FIRST_PLACEHOLDER, id="answer", compact=True)
            yield Static(id="feedback")
            yield Static(ANSWER_KEYS, id="answer-keys")
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
        yield QuizzerFooter()

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
        if current is None or not isinstance(current.question, NumericQuestion):
            return
        feedback = numeric_feedback(event.value, current.question.unit)
        self.query_one("#feedback", Static).update(feedback)

    def reveal(self, outcome: Outcome) -> None:
        """Show the verdict, the answer and the rating buttons."""
        assert self.session is not None and self.session.current is not None
        current = self.session.current
        q = current.question
        lang = self.qapp.language
        self.query_one("#verdict", Static).update(verdict_text(outcome))
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
