"""The code exercise screen: the task beside a Python editor; ctrl+r runs the checks in a worker
thread and shows the verdict; hints one at a time; the reference solution once the checks pass
or you give up; then the rating. The StudyScreen opens it for each code question of a session.

The code is saved to the attempt file as you type (quizzer.progress.attempts), so leaving and
coming back restores it; ctrl+e hands the file to $EDITOR and reloads it afterwards.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Markdown, Static, TextArea

from quizzer.grading.exercise_spec import ExerciseError
from quizzer.progress.attempts import AttemptError
from quizzer.progress.scheduling import Grade
from quizzer.progress.store import StoreError
from quizzer.tui.widgets.chips import ChipBar
from quizzer.tui.widgets.exercise_text import reveal_markdown, task_markdown, verdict_text
from quizzer.tui.widgets.footer import QuizzerFooter

if TYPE_CHECKING:
    from quizzer.grading.exercise_verdict import Verdict
    from quizzer.study.exercise import ExerciseWork
    from quizzer.study.session import Current, Outcome, StudySession
    from quizzer.tui.base import QuizzerAppBase

AUTOSAVE_SECONDS = 1.0
"""How often typed code is written to the attempt file."""


class ExerciseScreen(Screen[str]):
    """One code exercise. Dismissed with `rated`, `answered` (a mock: the StudyScreen saves the
    suggested rating), `left` (Esc: the code is kept, nothing is rated) or `time` (a mock's
    clock ran out)."""

    BINDINGS = [
        Binding("ctrl+r", "run_checks", "Run checks", priority=True),
        Binding("ctrl+t", "hint", "Hint", priority=True),
        Binding("ctrl+g", "give_up", "Solution", priority=True),
        Binding("ctrl+e", "external_editor", "$EDITOR", priority=True),
        Binding("ctrl+o", "open_article", "Article", show=False, priority=True),
        Binding("escape", "back", "Back", priority=True),
        Binding("1", "rate(1)", "Again", show=False),
        Binding("2", "rate(2)", "Hard", show=False),
        Binding("3", "rate(3)", "Good", show=False),
        Binding("4", "rate(4)", "Easy", show=False),
    ]

    def __init__(
        self,
        session: StudySession,
        current: Current,
        *,
        title: str = "Study",
        mock: bool = False,
        deadline: float | None = None,
    ) -> None:
        super().__init__()
        assert current.work is not None, "not a code exercise"
        self.session = session
        self.current = current
        self.work: ExerciseWork = current.work
        self.session_title = title
        self.mock = mock
        """In a mock the solution is not shown: a pass or a give-up ends the exercise."""
        self.deadline = deadline
        """time.monotonic() at which a mock's time is up."""
        self.outcome: Outcome | None = None
        self.running = False
        """A check is running in the worker thread."""
        self.dirty = False
        """The editor holds text not yet written to the attempt file."""
        self.can_save = True
        """False when the attempt file cannot be written (the code then lives in the editor)."""

    @property
    def qapp(self) -> QuizzerAppBase:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        with Horizontal(id="ex-top"):
            yield Static(f"{self.session_title} · {self.work.question.id}", id="ex-title")
            yield Static("", id="ex-status")
            yield Static("", id="ex-clock")
        yield ChipBar(id="ex-chips")
        with Horizontal(id="ex-main"):
            with VerticalScroll(id="ex-task"):
                yield Markdown(id="ex-task-md")
                yield Markdown(id="ex-hints")
            with Vertical(id="ex-work"):
                yield TextArea.code_editor(language="python", id="editor", soft_wrap=False)
                yield TextArea.code_editor(
                    language="python", id="solution", read_only=True, show_cursor=False
                )
                with VerticalScroll(id="ex-verdict-box"):
                    yield Static(id="ex-verdict")
        with Horizontal(id="ex-ratings"):
            for grade in Grade:
                yield Button(
                    f"{grade.value} {grade.label.title()}",
                    id=f"ex-rate-{grade.value}",
                    compact=True,
                    variant="error" if grade == Grade.AGAIN else "default",
                )
        yield QuizzerFooter()

    def on_mount(self) -> None:
        lang = self.qapp.language
        question = self.work.question
        self.query_one("#ex-chips", ChipBar).show(self.qapp.bank, question, lang)
        try:
            task = task_markdown(question, lang)
        except ExerciseError as exc:
            task = f"**This exercise is broken (not your code):** {exc}"
        self.query_one("#ex-task-md", Markdown).update(task)
        editor = self.query_one("#editor", TextArea)
        note = "ctrl+r runs the checks · ctrl+t hint · ctrl+g solution · ctrl+e $EDITOR"
        try:
            path = self.work.open()
            editor.load_text(self.work.read())
            if self.work.restored:
                note = f"Your code from last time is back ({path}). " + note
            else:
                note = f"Saved as you type to {path}. " + note
        except AttemptError as exc:
            self.can_save = False
            editor.load_text(question.starter)
            note = f"! {exc}: your code is kept in the editor only."
        self.query_one("#ex-verdict", Static).update(Text(note, style="dim"))
        self.query_one("#ex-ratings").display = False
        self.query_one("#solution").display = False
        self.show_status()
        editor.focus()
        self.set_interval(AUTOSAVE_SECONDS, self.autosave)
        if self.deadline is not None:
            self.set_interval(1, self.tick)
            self.tick()

    # the code ---------------------------------------------------------------------------

    @on(TextArea.Changed, "#editor")
    def edited(self) -> None:
        self.dirty = True

    def autosave(self) -> None:
        """Write typed code to the attempt file (every AUTOSAVE_SECONDS, when it changed)."""
        if self.dirty:
            self.save_now()

    def save_now(self) -> bool:
        """Write the editor's text to the attempt file; False (with a notice) if it fails."""
        if not self.can_save:
            return False
        try:
            self.work.save(self.query_one("#editor", TextArea).text)
        except AttemptError as exc:
            self.can_save = False
            self.notify(f"{exc}; your code stays in the editor only.", severity="error")
            return False
        self.dirty = False
        return True

    def action_external_editor(self) -> None:
        """Edit the attempt file in $EDITOR (the app steps aside), then reload it."""
        if self.outcome is not None or self.running:
            return
        command = os.environ.get("EDITOR") or os.environ.get("VISUAL")
        if not command:
            self.notify("Set $EDITOR (e.g. export EDITOR=vim) to use your own editor.")
            return
        if not self.save_now() or self.work.path is None:
            return
        argv = [*shlex.split(command), str(self.work.path)]
        if shutil.which(argv[0]) is None:
            self.notify(f"$EDITOR is {command!r}, which is not found.", severity="warning")
            return
        try:
            with self.app.suspend():
                subprocess.run(argv, check=False)
        except SuspendNotSupported:
            self.notify("This terminal cannot hand over to $EDITOR.", severity="warning")
            return
        except OSError as exc:
            self.notify(f"Could not start {argv[0]}: {exc}", severity="error")
            return
        try:
            self.query_one("#editor", TextArea).load_text(self.work.read())
        except AttemptError as exc:
            self.notify(str(exc), severity="error")
        self.dirty = False
        self.notify(f"Reloaded {self.work.path.name}; ctrl+r runs the checks.", timeout=3)

    # checks, hints, solution ------------------------------------------------------------

    def action_run_checks(self) -> None:
        """Save and check the code in a worker thread (the screen stays responsive)."""
        if self.outcome is not None:
            return
        if self.running:
            self.notify("The checks are still running.", timeout=2)
            return
        if not self.save_now():
            return
        self.running = True
        self.query_one("#ex-verdict", Static).update(
            Text(f"running the checks (up to {self.work.question.time_limit_s:g} s each)…")
        )
        self.show_status()
        self.check_in_thread()

    @work(thread=True, exclusive=True, group="exercise-check")
    def check_in_thread(self) -> None:
        """Run the checker off the UI thread and hand the verdict back."""
        try:
            verdict: Verdict | str = self.work.run_check()
        except (ExerciseError, AttemptError) as exc:
            verdict = str(exc)
        self.app.call_from_thread(self.checked, verdict)

    def checked(self, verdict: Verdict | str) -> None:
        """Show the verdict; a pass ends the attempt."""
        self.running = False
        if not self.is_attached:  # left while the check ran: nothing is recorded
            return
        box = self.query_one("#ex-verdict", Static)
        if isinstance(verdict, str):
            box.update(Text(f"! this exercise is broken (not your code): {verdict}", "bold red"))
            return
        self.work.record(verdict)
        self.show_status()
        box.update(verdict_text(verdict))
        self.query_one("#ex-verdict-box", VerticalScroll).scroll_home(animate=False)
        if verdict.passed:
            self.finish_attempt()

    def action_hint(self) -> None:
        """Show the next hint under the task."""
        if self.outcome is not None:
            return
        lang = self.qapp.language
        if self.work.next_hint(lang) is None:
            self.notify("No more hints: ctrl+g shows the solution.", timeout=3)
            return
        hints = self.work.shown_hints(lang)
        total = len(self.work.hints(lang))
        text = "\n\n".join(f"**Hint {i}/{total}.** {h}" for i, h in enumerate(hints, 1))
        self.query_one("#ex-hints", Markdown).update(text)
        self.query_one("#ex-task", VerticalScroll).scroll_end(animate=False)
        self.show_status()

    def action_give_up(self) -> None:
        """Stop trying: the reference solution is shown and Again suggested."""
        if self.outcome is not None or self.running:
            return
        self.save_now()
        self.work.give_up()
        self.finish_attempt()

    def finish_attempt(self) -> None:
        """The attempt is over (passed or given up): reveal and offer the ratings, or in a
        mock hand it back to be saved with its suggested rating."""
        self.outcome = self.session.submit("")
        if self.mock:
            self.dismiss("answered")
            return
        lang = self.qapp.language
        self.query_one("#ex-task-md", Markdown).update(
            reveal_markdown(self.qapp.bank, self.current, self.outcome, lang)
        )
        self.query_one("#ex-hints", Markdown).update("")
        self.query_one("#ex-task", VerticalScroll).scroll_home(animate=False)
        self.query_one("#editor", TextArea).read_only = True
        self.query_one("#ex-verdict-box").display = self.work.runs > 0
        self.show_solution()
        ratings = self.query_one("#ex-ratings")
        ratings.display = True
        for grade in Grade:
            button = self.query_one(f"#ex-rate-{grade.value}", Button)
            label = f"{grade.value} {grade.label.title()} · {self.outcome.intervals[grade]}"
            button.label = label + (" ←" if grade == self.outcome.suggested else "")
        self.query_one(f"#ex-rate-{self.outcome.suggested.value}", Button).focus()
        self.refresh_bindings()

    def show_solution(self) -> None:
        """The reference solution under the user's code, to compare line by line."""
        from quizzer.grading.exercise_task import reference_solution

        try:
            text = reference_solution(self.work.question)
        except ExerciseError as exc:
            text = f"# cannot load the reference solution: {exc}\n"
        solution = self.query_one("#solution", TextArea)
        solution.load_text(text)
        solution.border_title = "Reference solution"
        solution.display = True
        editor = self.query_one("#editor", TextArea)
        editor.border_title = "Your code"
        editor.add_class("-revealed")

    # rating, leaving --------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The rating keys work once the solution is shown; the editing keys until then."""
        revealed = self.outcome is not None
        if action == "rate":
            return revealed and not self.mock
        if action in ("run_checks", "hint", "give_up", "external_editor"):
            return not revealed
        return True

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id and event.button.id.startswith("ex-rate-"):
            self.action_rate(int(event.button.id.removeprefix("ex-rate-")))

    def action_rate(self, value: int) -> None:
        """Save the rating (through the session, like every review) and move on."""
        if self.outcome is None or self.mock:
            return
        try:
            rated = self.session.rate(Grade(value))
        except StoreError as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return
        self.notify(
            f"{rated.grade.label.title()}: next in {self.outcome.intervals[rated.grade]}", timeout=2
        )
        self.dismiss("rated")

    def action_back(self) -> None:
        """Leave: the code stays in its file for next time; nothing is rated."""
        if self.outcome is None:
            self.save_now()
        self.dismiss("left")

    def action_open_article(self) -> None:
        """Open the main linked article in the browser."""
        import webbrowser

        _title, url = self.qapp.bank.main_link(self.work.question)
        try:
            webbrowser.open(url)
            self.notify(f"Opening {url}", timeout=3)
        except Exception as exc:  # a headless machine has no browser; say so, don't crash
            self.notify(f"Could not open a browser: {exc}. The link: {url}", severity="warning")

    def show_status(self) -> None:
        """`2 checks · 1 hint`, or `checking…`."""
        status = "checking… · " if self.running else ""
        status += self.work.effort().replace(", ", " · ")
        self.query_one("#ex-status", Static).update(Text(status, style="dim"))

    def tick(self) -> None:
        """A mock's clock; time up saves the code and ends the interview."""
        if self.deadline is None:
            return
        left = max(0, self.deadline - time.monotonic())
        minutes, seconds = divmod(int(left), 60)
        self.query_one("#ex-clock", Static).update(
            Text(f"⏱ {minutes:02d}:{seconds:02d}", style="bold red" if left < 60 else "bold")
        )
        if left <= 0 and self.outcome is None and self.app.screen is self:  # not under a dialog
            self.deadline = None
            self.save_now()
            self.dismiss("time")
