"""What a code exercise shows the user: the task (prompt and public examples with their expected
outputs), the hints and the reference solution. Text only; the checks live in exercises.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quizzer.content.language import localise

if TYPE_CHECKING:
    from quizzer.content.models import CodeQuestion


@dataclass(frozen=True)
class Example:
    """One public example: its inputs and what the reference returns for them."""

    inputs: list[str]
    """One line per argument: name, dtype, shape and a few values."""
    expected: str
    """The expected output, described the same way."""


def public_examples(question: CodeQuestion) -> list[Example]:
    """The exercise's public examples (the first cases every check runs), with the reference's
    output for each. Raises ExerciseError if the exercise's checks cannot be loaded."""
    from quizzer.grading.exercise_verdict import describe_input
    from quizzer.grading.exercises import load_spec

    spec = load_spec(question.checks)
    found = []
    for case in spec.examples:
        inputs = [describe_input(name, value) for name, value in case.items()]
        found.append(Example(inputs, describe_input("returns", spec.expected(case))))
    return found


def prompt_of(question: CodeQuestion, lang: str) -> str:
    """The prompt in ``lang`` (English when there is no Chinese one)."""
    return localise(question, lang).prompt


def hints_of(question: CodeQuestion, lang: str) -> list[str]:
    """The hints in ``lang``, a nudge first and the key idea last."""
    return list(localise(question, lang).hints)


def explanation_of(question: CodeQuestion, lang: str) -> str:
    """The explanation in ``lang``."""
    return localise(question, lang).explanation


def reference_solution(question: CodeQuestion) -> str:
    """The model solution, a whole file that passes the checks."""
    from quizzer.grading.exercises import load_spec

    return load_spec(question.checks).solution


def examples_markdown(examples: list[Example]) -> str:
    """The public examples as Markdown, one code block each."""
    parts = []
    for number, example in enumerate(examples, 1):
        body = "\n".join([*example.inputs, example.expected])
        parts.append(f"**Example {number}**\n\n```text\n{body}\n```")
    return "\n\n".join(parts)


def task_markdown(question: CodeQuestion, lang: str, examples: list[Example]) -> str:
    """The task as Markdown: the prompt, then the public examples with expected outputs."""
    parts = [prompt_of(question, lang).rstrip()]
    if examples:
        parts += ["### Public examples", examples_markdown(examples)]
    parts.append(
        f"*Write `{question.entry}`. The checks run it on these examples, edge cases and fresh "
        f"random inputs, {question.time_limit_s:g} s at most per run.*"
    )
    return "\n\n".join(parts)


def task_text(question: CodeQuestion, lang: str, examples: list[Example]) -> str:
    """The task as plain text for the line-mode commands."""
    lines = [prompt_of(question, lang).rstrip()]
    for number, example in enumerate(examples, 1):
        lines.append(f"\nPublic example {number}:")
        lines += [f"  {line}" for line in [*example.inputs, example.expected]]
    return "\n".join(lines)
