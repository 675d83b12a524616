"""The one place that chooses a language: a question's texts in English or Chinese (Chinese
where the question has it, English for whatever its translation leaves out), and the titles
and names of the catalogs.

Light on purpose: the app's start path imports it (the language setting) before the bank and
its pydantic models are loaded, so the models are imported only where a question is at hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from quizzer.content.models import AnyQuestion, Company, Reading, RecallQuestion

LANGUAGES = ("en", "zh")
"""The languages a user can choose (the `language` setting, --lang)."""

LANGUAGE_NAMES = {"en": "English", "zh": "中文"}
"""Each language by its own name, as the settings screen offers it."""


def text_in(lang: str, en: str, zh: str) -> str:
    """``zh`` in Chinese, ``en`` otherwise (for rows that carry both, such as plan topics)."""
    return zh if lang == "zh" else en


class Titled(Protocol):
    """A catalog entry with an English and a Chinese title (module, chapter, topic, article,
    track)."""

    @property
    def title_en(self) -> str: ...

    @property
    def title_zh(self) -> str: ...


def title_in(item: Titled, lang: str) -> str:
    """The title of a catalog entry in ``lang``."""
    return text_in(lang, item.title_en, item.title_zh)


def company_name(company: Company, lang: str) -> str:
    """A company's short name in ``lang``: "General (question sets compiled from …)" is
    "General"."""
    return text_in(lang, company.name_en.split(" (")[0], company.name_zh)


def reading_title(reading: Reading, lang: str) -> str:
    """A deep-dive post's title: its own (Chinese) title, with the English one first when the
    user reads English."""
    return text_in(lang, f"{reading.title_en} ({reading.title_zh})", reading.title_zh)


@dataclass(frozen=True)
class QuestionTexts:
    """A question's texts in one language."""

    lang: str
    """"zh" when the question has a Chinese version and it was asked for, else "en"."""
    prompt: str
    """The prompt (a numeric one still a template: its numbers are drawn per attempt)."""
    options: list[str]
    """A choice question's options (empty for other kinds)."""
    answer: str
    """A recall question's model answer ("" for other kinds)."""
    key_points: list[str]
    """A recall question's key points (empty for other kinds); the Chinese ones may not match
    the English one for one (see shown_points)."""
    explanation: str
    """Why the answer is right."""
    worked: str | None
    """A numeric question's worked-solution template in Chinese; None for the English one."""
    hints: list[str]
    """A code exercise's hints, a nudge first and the key idea last (empty for other kinds)."""


def localise(q: AnyQuestion, lang: str) -> QuestionTexts:
    """The texts of ``q`` in ``lang``, falling back to English field by field."""
    from quizzer.content.models import ChoiceQuestion, CodeQuestion, RecallQuestion

    options = q.options if isinstance(q, ChoiceQuestion) else []
    answer = q.answer if isinstance(q, RecallQuestion) else ""
    points = q.key_points if isinstance(q, RecallQuestion) else []
    hints = q.hints if isinstance(q, CodeQuestion) else []
    zh = q.zh if lang == "zh" else None
    if zh is None:
        return QuestionTexts("en", q.prompt, options, answer, points, q.explanation, None, hints)
    return QuestionTexts(
        "zh",
        zh.prompt,
        zh.options or options,
        zh.answer or answer,
        zh.key_points or points,
        zh.explanation or q.explanation,
        zh.worked or None,
        zh.hints or hints,
    )


def shown_points(q: RecallQuestion, lang: str = "en") -> list[str]:
    """The key points as shown in ``lang``: the Chinese ones when the question has them, one
    for each English point (otherwise a number could name a different point in each language)."""
    points = localise(q, lang).key_points
    return list(points) if len(points) == len(q.key_points) else list(q.key_points)
