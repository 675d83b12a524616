"""One attempt at a code exercise: the file, the checks run on it, the hints taken, and the
rating they suggest. Front ends drive it; StudySession turns it into an Outcome and a review.

The suggestion follows what the attempt cost: passed on the first check with no hint → Good;
passed after a failed check or a hint → Hard; gave up (the solution revealed unpassed) → Again.
Every rating stays on offer, as for a recall question.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from quizzer.content.models import CodeQuestion
from quizzer.progress.attempts import AttemptError, Attempts
from quizzer.progress.scheduling import Grade

if TYPE_CHECKING:
    from quizzer.grading.exercise_verdict import Verdict


@dataclass
class ExerciseWork:
    """The state of one attempt at ``question``."""

    question: CodeQuestion
    attempts: Attempts
    """Where the attempt file lives."""
    path: Path | None = None
    """The attempt file, once ``open`` has run."""
    restored: bool = False
    """The file held code from an earlier, unrated attempt."""
    runs: int = 0
    """Checks run so far."""
    hints_shown: int = 0
    """Hints shown so far (they are shown in order)."""
    verdict: Verdict | None = None
    """The last check's verdict."""
    passed_on: int | None = None
    """Which check passed first (1 = the first)."""
    gave_up: bool = False
    """The user asked for the solution without passing."""
    history: list[str] = field(default_factory=list)
    """One line per check: its status and summary."""
    checked: Path | None = None
    """The file the last check ran on (the attempt file, or a path the user gave)."""

    def open(self) -> Path:
        """The attempt file: restored if one is kept, else the starter. Raises AttemptError."""
        opened = self.attempts.open(self.question.id, self.question.starter)
        self.path, self.restored = opened.path, opened.restored
        return opened.path

    def read(self) -> str:
        """The attempt's current text (the starter when there is no file)."""
        text = self.attempts.read(self.question.id)
        return self.question.starter if text is None else text

    def save(self, text: str) -> None:
        """Write the editor's text to the attempt file. Raises AttemptError."""
        self.path = self.attempts.save(self.question.id, text)

    def run_check(self, path: Path | None = None, seed: int | None = None) -> Verdict:
        """Check ``path`` (default: the attempt file) without recording anything: safe to call
        from a worker thread. Raises ExerciseError if the exercise itself is broken."""
        from quizzer.grading.exercises import check_file

        target = path or self.path or self.open()
        return check_file(self.question, target, seed)

    def record(self, verdict: Verdict, path: Path | None = None) -> None:
        """Count a finished check (of ``path``, default the attempt file)."""
        self.checked = path or self.path
        self.runs += 1
        self.verdict = verdict
        self.history.append(f"{verdict.status}: {verdict.summary}")
        if verdict.passed and self.passed_on is None:
            self.passed_on = self.runs

    def check(self, path: Path | None = None, seed: int | None = None) -> Verdict:
        """Run the checks on ``path`` (default: the attempt file) and count the run."""
        verdict = self.run_check(path, seed)
        self.record(verdict, path)
        return verdict

    def hints(self, lang: str = "en") -> list[str]:
        """Every hint of the exercise in ``lang``."""
        from quizzer.grading.exercise_task import hints_of

        return hints_of(self.question, lang)

    def next_hint(self, lang: str = "en") -> str | None:
        """Show the next hint (None when all have been shown)."""
        hints = self.hints(lang)
        if self.hints_shown >= len(hints):
            return None
        self.hints_shown += 1
        return hints[self.hints_shown - 1]

    def shown_hints(self, lang: str = "en") -> list[str]:
        """The hints shown so far."""
        return self.hints(lang)[: self.hints_shown]

    def give_up(self) -> None:
        """Reveal the solution without passing."""
        if not self.passed:
            self.gave_up = True

    @property
    def passed(self) -> bool:
        """Whether some check passed."""
        return self.passed_on is not None

    @property
    def finished(self) -> bool:
        """Passed or given up: the solution can be shown and the attempt rated."""
        return self.passed or self.gave_up

    @property
    def seed(self) -> int | None:
        """The seed of the last check that ran (to replay it)."""
        return self.verdict.seed if self.verdict is not None else None

    def suggested(self) -> Grade:
        """Good for a pass on the first check without hints, Hard for a pass that took more,
        Again for giving up."""
        if not self.passed:
            return Grade.AGAIN
        if self.passed_on == 1 and self.hints_shown == 0:
            return Grade.GOOD
        return Grade.HARD

    def effort(self) -> str:
        """`2 checks, 1 hint`."""
        checks = f"{self.runs} check{'s' if self.runs != 1 else ''}"
        hints = f"{self.hints_shown} hint{'s' if self.hints_shown != 1 else ''}"
        return f"{checks}, {hints}"

    def message(self) -> str:
        """The verdict line shown with the solution: `passed on the first check`, `passed
        after 3 checks, 1 hint`, `gave up after 2 checks, 0 hints (last: failed 3 of 19 …)`."""
        if self.passed:
            if self.passed_on == 1 and self.hints_shown == 0:
                return "passed on the first check"
            return f"passed after {self.effort()}"
        if self.runs == 0:
            return "gave up before running the checks"
        last = self.verdict.summary if self.verdict else ""
        return f"gave up after {self.effort()} (last: {last})"

    def answer_text(self) -> str:
        """What the review records as the answer: the outcome, the effort and the file."""
        where = f"; file {self.checked or self.path}" if self.checked or self.path else ""
        return f"{'passed' if self.passed else 'gave up'} after {self.effort()}{where}"

    def set_aside(self, when: datetime) -> Path | None:
        """After the rating: move the attempt to past/, so the next review starts fresh.
        A file that cannot be moved is left where it is (the review is saved either way)."""
        try:
            return self.attempts.set_aside(self.question.id, when)
        except AttemptError:
            return None
