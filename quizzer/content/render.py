"""The one renderer: a question in a language, as Markdown (the app: the study screen's reveal,
the browser's preview) or plain text (the line-mode drill and mock, `quizzer show`). Front ends
add their own widgets (chips, option grids, buttons, clickable links) around this text.

What is worked out above this package is passed in already rendered: a numeric question's
numbers (quizzer.grading draws them: ``attempt.worked(...)``, ``sample_prompt(...)``) and a code
exercise's reference solution.
"""

from __future__ import annotations

from typing import Any

from quizzer.base import clock
from quizzer.content.bank import Bank
from quizzer.content.language import localise, shown_points
from quizzer.content.models import (
    OPTION_LETTERS,
    AnyQuestion,
    ChoiceQuestion,
    CodeQuestion,
    NumericQuestion,
    RecallQuestion,
)

EDITED_NOTE = "> *Edited since your last review.*"
"""Above a prompt whose question changed since it was last reviewed (the app)."""

# Markdown (the app) ----------------------------------------------------------------------


def prompt_markdown(prompt: str, *, edited: bool = False) -> str:
    """The prompt as the study screen shows it (``prompt``: in its language, numbers drawn),
    under a note when the question was edited since its last review."""
    return f"{EDITED_NOTE}\n\n{prompt}" if edited else prompt


def answer_markdown(q: AnyQuestion, lang: str, *, worked: str = "") -> str:
    """The answer as the study screen reveals it: the right options, the worked solution
    (``worked``, a numeric question's) or the model answer (its key points are a checklist of
    their own); "" for a code exercise, which reveals on its own screen."""
    texts = localise(q, lang)
    if isinstance(q, ChoiceQuestion):
        return "\n".join(f"- **{c}.** {texts.options[OPTION_LETTERS.index(c)]}" for c in q.correct)
    if isinstance(q, NumericQuestion):
        return worked
    if isinstance(q, RecallQuestion):
        return f"**Model answer**\n\n{texts.answer}"
    return ""


def your_answer_markdown(typed: str | None) -> str:
    """What the user typed for a recall question, shown beside the model answer."""
    return f"**Your answer**\n\n{typed or '*(blank)*'}"


def explanation_markdown(q: AnyQuestion, lang: str) -> str:
    """The explanation under its heading."""
    return "**Why**\n\n" + localise(q, lang).explanation


def preview_markdown(bank: Bank, q: AnyQuestion, lang: str, prompt: str | None = None) -> str:
    """A question as Markdown, with its answer, explanation, tags and links (the browser).
    ``prompt``: the prompt to show (a numeric one filled with sample values); by default the
    prompt in ``lang``."""
    texts = localise(q, lang)
    parts = [
        f"### {q.id}",
        f"*{q.kind} · difficulty {q.difficulty}*",
        "",
        texts.prompt if prompt is None else prompt,
    ]
    if isinstance(q, ChoiceQuestion):
        parts += [""] + [
            f"- {'**' if letter in q.correct else ''}{letter}. {text}"
            f"{'** ✓' if letter in q.correct else ''}"
            for letter, text in zip(OPTION_LETTERS, texts.options, strict=False)
        ]
    elif isinstance(q, RecallQuestion):
        parts += ["", "**Answer**", "", texts.answer, "", "**Key points**", ""]
        parts += [f"- {p}" for p in texts.key_points]
    elif isinstance(q, NumericQuestion):
        parts += [
            "",
            f"*Sample values; each attempt draws new ones. Answer in {q.unit} "
            f"(`quizzer solve {q.id}` shows a draw with its answer).*",
        ]
    elif isinstance(q, CodeQuestion):
        parts += [
            "",
            f"*Write `{q.entry}` in Python: Enter opens the editor, ctrl+r runs the checks "
            f"(or `quizzer exercise {q.id}`). {len(q.hints)} hints; the reference solution "
            "comes after the attempt.*",
        ]
    parts += ["", "**Why**", "", texts.explanation, "", "**Read more**", ""]
    for title, url in bank.links(q, texts.lang):
        parts.append(f"- [{title}]({url})")
    if q.readings:
        parts += ["", "**Further reading**", ""]
        parts += [f"- {line}" for line in bank.further_reading(q, texts.lang)]
    if q.companies:
        names = ", ".join(bank.companies[key].name_en for key in q.company_keys)
        parts += ["", "**Asked at:** " + names]
    return "\n".join(parts)


# Plain text (the line-mode commands) -----------------------------------------------------


def links_text(bank: Bank, q: AnyQuestion, lang: str = "en") -> str:
    """The question's links (articles, then interview pages and references), one per line,
    then its further reading (deep-dive posts)."""
    lines = [f"  → {title}: {url}" for title, url in bank.links(q, lang)]
    if q.readings:
        lines.append("Further reading:")
        lines += [f"  → {line}" for line in bank.further_reading(q, lang)]
    return "\n".join(lines)


def options_text(q: ChoiceQuestion, lang: str) -> str:
    """A. …, B. … lines."""
    options = localise(q, lang).options
    return "\n".join(
        f"  {letter}. {text}" for letter, text in zip(OPTION_LETTERS, options, strict=False)
    )


def model_answer_lines(q: RecallQuestion, lang: str, *, numbered: bool = False) -> list[str]:
    """A recall question's model answer and key points as lines: numbered as the key-point
    checklist counts them (the drill), or as a list (a mock's self-rating)."""
    texts = localise(q, lang)
    if numbered:
        points = [f"  {n}. {p}" for n, p in enumerate(shown_points(q, lang), 1)]
    else:
        points = [f"  - {p}" for p in texts.key_points]
    return ["Model answer:\n" + texts.answer.rstrip(), "Key points:", *points]


def answer_text(bank: Bank, q: AnyQuestion, lang: str, *, worked: str = "") -> str:
    """The answer, the explanation and the links, as the line-mode drill reveals them.
    ``worked``: a numeric question's worked solution, or a code exercise's reference solution
    and key idea, as the caller rendered them."""
    texts = localise(q, lang)
    lines = []
    if isinstance(q, ChoiceQuestion):
        for letter in q.correct:
            lines.append(f"Answer: {letter}. {texts.options[OPTION_LETTERS.index(letter)]}")
    elif isinstance(q, RecallQuestion):
        lines += model_answer_lines(q, lang, numbered=True)
    else:
        lines.append(worked)
    lines.append("Why: " + texts.explanation.rstrip())
    # The links stay in English, as the drill has always shown them.
    lines.append("Read more:\n" + links_text(bank, q))
    return "\n".join(lines)


def question_text(
    bank: Bank,
    q: AnyQuestion,
    card: dict[str, Any] | None = None,
    sample: tuple[str, str, str] | None = None,
    solution: str | None = None,
    lang: str = "en",
) -> str:
    """A question with its answer, explanation, tags and links in ``lang``, for `quizzer show`.
    ``sample``: a numeric question's (prompt, answer, worked solution) for one draw of its
    parameters, shown instead of the raw template; ``solution``: a code exercise's reference
    solution."""
    texts = localise(q, lang)
    prompt = sample[0] if sample else texts.prompt
    lines = [f"{q.id}  [{q.kind}, difficulty {q.difficulty}]", "", prompt.rstrip(), ""]
    if sample:
        lines += [
            f"Answer for these sample values: {sample[1]}",
            sample[2].rstrip(),
            f"(Each attempt draws new values; `quizzer solve {q.id}` shows another draw.)",
            "",
        ]
    if isinstance(q, ChoiceQuestion):
        for letter, option in zip(OPTION_LETTERS, texts.options, strict=False):
            mark = "*" if letter in q.correct else " "
            lines.append(f" {mark}{letter}. {option}")
        lines.append("")
    if isinstance(q, RecallQuestion):
        lines += ["Answer:", texts.answer.rstrip(), "", "Key points:"]
        lines += [f"  - {point}" for point in shown_points(q, lang)]
        lines.append("")
    if isinstance(q, CodeQuestion):
        lines += code_text(q, solution, lang)
    lines += ["Why:", texts.explanation.rstrip(), ""]
    lines.append("Topics: " + ", ".join(q.topics))
    if q.companies:
        lines.append("Asked at: " + ", ".join(f"{t.key} ({t.source})" for t in q.companies))
    lines.append("Read more:")
    lines.append(links_text(bank, q, lang))
    if card:
        lines.append(card_text(card))
    return "\n".join(lines)


def code_text(q: CodeQuestion, solution: str | None = None, lang: str = "en") -> list[str]:
    """A code exercise's function, starter, hints (in ``lang``) and (when given) reference
    solution."""
    lines = [f"Write `{q.entry}` ({q.time_limit_s:g} s per check). Starter:", ""]
    lines += [f"    {row}".rstrip() for row in q.starter.rstrip().splitlines()]
    lines += ["", "Hints:"]
    lines += [f"  {number}. {hint}" for number, hint in enumerate(localise(q, lang).hints, 1)]
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
