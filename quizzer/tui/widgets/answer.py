"""The study screen's answer box and what it shows around it: the placeholder for each kind of
question, how a numeric answer is read as it is typed, the keys line under it, and the verdict
once the answer is graded."""

from __future__ import annotations

from rich.text import Text
from textual.events import Key
from textual.widgets import Input

from quizzer.content.models import AnyQuestion, ChoiceQuestion, NumericQuestion
from quizzer.grading.answers import AnswerError, parse_answer
from quizzer.grading.calc import format_number
from quizzer.study.session import Outcome

FIRST_PLACEHOLDER = "Your answer (Enter submits, empty Enter reveals)"
"""The answer box's placeholder before the first question is shown."""

ANSWER_KEYS = "enter submit · empty: reveal · esc back · ctrl+z undo · ctrl+o link · f1 help"
"""The keys line under the answer box."""


class AnswerInput(Input):
    """The answer box. Space on an empty box reveals a recall question."""

    async def _on_key(self, event: Key) -> None:
        if event.key == "space" and not self.value and getattr(self.screen, "is_recall", False):
            event.stop()
            event.prevent_default()
            self.post_message(self.Submitted(self, ""))
            return
        await super()._on_key(event)


def placeholder_for(q: AnyQuestion) -> str:
    """What the empty answer box says for ``q``."""
    if isinstance(q, ChoiceQuestion):
        return f"Option letter(s) or number 1–{len(q.options)}; empty Enter reveals"
    if isinstance(q, NumericQuestion):
        return f"A number, with a unit or not (in {q.unit}); e.g. 2*70e9/2**30 GiB"
    return "Type your answer if you like; Enter or Space reveals"


def numeric_feedback(typed: str, unit: str) -> Text | str:
    """How a numeric answer is understood as it is typed, in ``unit`` ("" for an empty box)."""
    text = typed.strip()
    if not text:
        return ""
    try:
        parsed = parse_answer(text, unit)
    except AnswerError as exc:
        return Text(f"? {exc}", style="yellow")
    note = "" if not parsed.assumed_unit else f" (no unit typed: read as {unit})"
    if parsed.read_as:
        note = f" ({parsed.unit} read as {parsed.read_as})"
    return Text(f"= {format_number(parsed.value)} {unit}{note}", style="green")


def verdict_text(outcome: Outcome) -> Text:
    """✓ right, ✗ wrong or · self-graded, with the hint under it."""
    style = {True: "bold green", False: "bold red", None: "bold"}[outcome.correct]
    mark = {True: "✓ ", False: "✗ ", None: "· "}[outcome.correct]
    verdict = Text(mark + outcome.message, style=style)
    if outcome.hint:
        verdict.append(f"\n  hint: {outcome.hint}", style="yellow")
    return verdict
