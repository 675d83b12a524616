"""Plain-text rendering of questions for the line-mode commands."""

from __future__ import annotations

from typing import Any

from quizzer.bank import Bank
from quizzer.models import OPTION_LETTERS, AnyQuestion, ChoiceQuestion, RecallQuestion


def links_text(bank: Bank, q: AnyQuestion) -> str:
    """The question's links (articles, then interview pages and references), one per line."""
    return "\n".join(f"  → {title}: {url}" for title, url in bank.links(q))


def question_text(bank: Bank, q: AnyQuestion, card: dict[str, Any] | None = None) -> str:
    """A question with its answer, explanation, tags and links, for `quizzer show`."""
    lines = [f"{q.id}  [{q.kind}, difficulty {q.difficulty}]", "", q.prompt.rstrip(), ""]
    if isinstance(q, ChoiceQuestion):
        for letter, option in zip(OPTION_LETTERS, q.options, strict=False):
            mark = "*" if letter in q.correct else " "
            lines.append(f" {mark}{letter}. {option}")
        lines.append("")
    if isinstance(q, RecallQuestion):
        lines += ["Answer:", q.answer.rstrip(), "", "Key points:"]
        lines += [f"  - {point}" for point in q.key_points]
        lines.append("")
    lines += ["Why:", q.explanation.rstrip(), ""]
    lines.append("Topics: " + ", ".join(q.topics))
    if q.companies:
        lines.append("Asked at: " + ", ".join(f"{t.key} ({t.source})" for t in q.companies))
    lines.append("Read more:")
    lines.append(links_text(bank, q))
    if card:
        lines.append(
            f"Card: {card['state']}, due {card['due']}, stability {card['stability']:.2f}, "
            f"reps {card['reps']}, lapses {card['lapses']}"
        )
    return "\n".join(lines)
