"""Export the bank as an Anki deck (.apkg) with genanki: one note per question.

Tags are company::KEY, topic::KEY and article::KEY; every note carries its article link.
Numeric questions are exported with one drawn parameter set (seed 1) and its worked solution;
a code exercise as its task and starter on the front, the reference solution, the key idea and
the hints on the back (to write it out, `quizzer exercise ID` checks the file).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from quizzer.content.bank import Bank
from quizzer.content.models import (
    OPTION_LETTERS,
    AnyQuestion,
    ChoiceQuestion,
    CodeQuestion,
    NumericQuestion,
)

MODEL_NAME = "quizzer question"
DECK_NAME = "quizzer · AI infrastructure interviews"
EXPORT_SEED = 1


def _stable_id(text: str) -> int:
    """A stable 31-bit id (Anki wants ints; genanki suggests random, we want repeatable)."""
    return int(hashlib.sha256(text.encode()).hexdigest()[:7], 16) + (1 << 30)


def _html(markdown: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)


def note_fields(bank: Bank, q: AnyQuestion) -> tuple[str, str, str]:
    """(front, back, link) HTML for one question."""
    from quizzer.grading.calc import prepare

    prompt = q.prompt
    back_parts: list[str] = []
    if isinstance(q, NumericQuestion):
        attempt = prepare(q, EXPORT_SEED, bank_root=bank.root)
        prompt = attempt.prompt()
        back_parts.append(attempt.worked())
    elif isinstance(q, ChoiceQuestion):
        prompt += "\n\n" + "\n".join(
            f"- **{letter}.** {text}"
            for letter, text in zip(OPTION_LETTERS, q.options, strict=False)
        )
        back_parts.append("**Answer:** " + ", ".join(q.correct))
    elif isinstance(q, CodeQuestion):
        prompt, back = _code_sides(q)
        back_parts.append(back)
    else:
        back_parts.append(q.answer)
        back_parts.append("**Key points**\n\n" + "\n".join(f"- {p}" for p in q.key_points))
    back_parts.append("**Why**\n\n" + q.explanation)
    title, url = bank.main_link(q)
    link = f'<a href="{url}">{title}</a>'
    return _html(prompt), _html("\n\n".join(back_parts)), link


def _code_sides(q: CodeQuestion) -> tuple[str, str]:
    """(front, back) Markdown of a code exercise."""
    from quizzer.grading.exercise_task import reference_solution

    front = (
        f"{q.prompt.rstrip()}\n\n**Starter** (check yours with `quizzer exercise {q.id}`)\n\n"
        f"```python\n{q.starter.rstrip()}\n```"
    )
    back = (
        f"**Reference solution**\n\n```python\n{reference_solution(q).rstrip()}\n```\n\n"
        f"**Key idea:** {q.hints[-1]}\n\n**Hints**\n\n" + "\n".join(f"1. {h}" for h in q.hints)
    )
    return front, back


def note_tags(q: AnyQuestion) -> list[str]:
    """company::X, topic::Y and article::Z tags (Anki tags cannot hold spaces)."""
    tags = [f"topic::{t}" for t in q.topics]
    tags += [f"company::{t.key}" for t in q.companies]
    tags += [f"article::{a}" for a in q.articles]
    tags.append(f"kind::{q.kind}")
    return sorted(set(tags))


def export_apkg(bank: Bank, questions: list[AnyQuestion], out: Path) -> int:
    """Write the deck; returns the number of notes."""
    import genanki

    model = genanki.Model(
        _stable_id(MODEL_NAME),
        MODEL_NAME,
        fields=[{"name": "Front"}, {"name": "Back"}, {"name": "Link"}, {"name": "Id"}],
        templates=[
            {
                "name": "Card 1",
                "qfmt": "{{Front}}",
                "afmt": "{{FrontSide}}<hr id=answer>{{Back}}<p>{{Link}}</p>"
                "<p style='color:#888;font-size:small'>{{Id}}</p>",
            }
        ],
        css=".card { font-family: sans-serif; font-size: 18px; text-align: left; }",
    )
    deck = genanki.Deck(_stable_id(DECK_NAME), DECK_NAME)
    for q in questions:
        front, back, link = note_fields(bank, q)
        deck.add_note(
            genanki.Note(
                model=model,
                fields=[front, back, link, q.id],
                tags=note_tags(q),
                guid=genanki.guid_for("quizzer", q.id),
            )
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    genanki.Package(deck).write_to_file(str(out))
    return len(questions)
