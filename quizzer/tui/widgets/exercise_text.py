"""What the exercise screen shows as text: the task, the verdict of a check, and the reveal
(the reference solution, its key idea, the explanation and the links)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from quizzer.content.bank import Bank
    from quizzer.content.models import CodeQuestion
    from quizzer.grading.exercise_verdict import Verdict
    from quizzer.study.session import Current, Outcome

STATUS_STYLE = {"passed": "bold green", "failed": "bold red", "cannot-run": "bold yellow"}


def task_markdown(question: CodeQuestion, lang: str) -> str:
    """The prompt and the public examples with their expected outputs. Raises ExerciseError."""
    from quizzer.grading.exercise_task import public_examples
    from quizzer.grading.exercise_task import task_markdown as markdown

    return markdown(question, lang, public_examples(question))


def verdict_text(verdict: Verdict) -> Text:
    """The checker's report, its first line coloured by the outcome."""
    head, _, rest = verdict.report().partition("\n")
    text = Text(head, style=STATUS_STYLE[verdict.status])
    if rest:
        text.append("\n" + rest)
    if not verdict.passed:
        text.append("\nFix it and ctrl+r again · ctrl+t hint · ctrl+g solution", style="dim")
    return text


def reveal_markdown(bank: Bank, current: Current, outcome: Outcome, lang: str) -> str:
    """The end of an attempt: how it went, the key idea, why, and the links (articles, then
    the interview pages that asked it). The reference solution is shown beside it, in the
    editor pane."""
    from quizzer.grading.exercise_task import explanation_of, hints_of

    work = current.work
    assert work is not None
    question = work.question
    mark = "✓" if outcome.correct else "✗"
    parts = [
        f"## {mark} {outcome.message}",
        f"Suggested rating: **{outcome.suggested.label}** (1–4 to choose). The reference "
        "solution is under your code.",
        f"**Key idea.** {hints_of(question, lang)[-1]}",
        "### Why",
        explanation_of(question, lang),
        "### Read more",
        "\n".join(f"- [{title}]({url})" for title, url in bank.links(question, lang)),
    ]
    if question.readings:
        parts += [
            "**Further reading**",
            "\n".join(f"- {line}" for line in bank.further_reading(question, lang)),
        ]
    if work.path is not None:
        parts.append(
            f"*Your code stays in `{work.path}` until you rate; then it moves to `past/` and the "
            "next review starts from the starter.*"
        )
    return "\n\n".join(parts)
