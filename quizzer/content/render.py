"""Plain-text rendering of questions for the line-mode commands."""

from __future__ import annotations

from typing import Any

from quizzer.base import clock
from quizzer.content.bank import Bank
from quizzer.content.models import (
    OPTION_LETTERS,
    AnyQuestion,
    ChoiceQuestion,
    CodeQuestion,
    RecallQuestion,
)


def links_text(bank: Bank, q: AnyQuestion) -> str:
    """The question's links (articles, then interview pages and references), one per line,
    then its further reading (deep-dive posts)."""
    lines = [f"  → {title}: {url}" for title, url in bank.links(q)]
    if q.readings:
        lines.append("Further reading:")
        lines += [f"  → {line}" for line in bank.further_reading(q)]
    return "\n".join(lines)


def question_text(
    bank: Bank,
    q: AnyQuestion,
    card: dict[str, Any] | None = None,
    sample: tuple[str, str, str] | None = None,
    solution: str | None = None,
) -> str:
    """A question with its answer, explanation, tags and links, for `quizzer show`.
    ``sample``: a numeric question's (prompt, answer, worked solution) for one draw of its
    parameters, shown instead of the raw template; ``solution``: a code exercise's reference
    solution."""
    prompt = sample[0] if sample else q.prompt
    lines = [f"{q.id}  [{q.kind}, difficulty {q.difficulty}]", "", prompt.rstrip(), ""]
    if sample:
        lines += [
            f"Answer for these sample values: {sample[1]}",
            sample[2].rstrip(),
            f"(Each attempt draws new values; `quizzer solve {q.id}` shows another draw.)",
            "",
        ]
    if isinstance(q, ChoiceQuestion):
        for letter, option in zip(OPTION_LETTERS, q.options, strict=False):
            mark = "*" if letter in q.correct else " "
            lines.append(f" {mark}{letter}. {option}")
        lines.append("")
    if isinstance(q, RecallQuestion):
        lines += ["Answer:", q.answer.rstrip(), "", "Key points:"]
        lines += [f"  - {point}" for point in q.key_points]
        lines.append("")
    if isinstance(q, CodeQuestion):
        lines += code_text(q, solution)
    lines += ["Why:", q.explanation.rstrip(), ""]
    lines.append("Topics: " + ", ".join(q.topics))
    if q.companies:
        lines.append("Asked at: " + ", ".join(f"{t.key} ({t.source})" for t in q.companies))
    lines.append("Read more:")
    lines.append(links_text(bank, q))
    if card:
        lines.append(card_text(card))
    return "\n".join(lines)


def code_text(q: CodeQuestion, solution: str | None = None) -> list[str]:
    """A code exercise's function, starter, hints and (when given) reference solution."""
    lines = [f"Write `{q.entry}` ({q.time_limit_s:g} s per check). Starter:", ""]
    lines += [f"    {row}".rstrip() for row in q.starter.rstrip().splitlines()]
    lines += ["", "Hints:"]
    lines += [f"  {number}. {hint}" for number, hint in enumerate(q.hints, 1)]
    if solution is not None:
        lines += ["", "Reference solution:", ""]
        lines += [f"    {row}".rstrip() for row in solution.rstrip().splitlines()]
    lines += ["", f"Work on it: quizzer exercise {q.id} (in the app: browse, then Enter)", ""]
    return lines


def card_text(card: dict[str, Any]) -> str:
    """The card line of `quizzer show`: state, due date, stability and counts where they
    exist (a card that was suspended or buried before its first review has none), then
    suspended / buried / leech."""
    parts = [str(card.get("state") or "new")]
    if card.get("last_review") is None:
        parts.append("never reviewed")
    else:
        if card.get("due"):
            parts.append(f"due {card['due']}")
        if isinstance(card.get("stability"), (int, float)):
            parts.append(f"stability {card['stability']:.2f}")
        parts.append(f"reps {card.get('reps') or 0}, lapses {card.get('lapses') or 0}")
    if card.get("suspended"):
        parts.append("suspended (quizzer unsuspend brings it back)")
    buried = card.get("buried_until")
    if buried and buried > clock.iso(clock.now()):
        parts.append(f"buried until {buried}")
    if card.get("leech"):
        parts.append("leech")
    return "Card: " + ", ".join(parts)
