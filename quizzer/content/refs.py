"""Cross-reference checks of one question, on its raw mapping (so they run even when the
schema failed): the topics, articles, company pages and readings it names exist in the
catalogs, its zh block has the parts its kind needs, and a choice's answers are among its
options."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quizzer.content.catalog_loader import Catalogs

from quizzer.content.diagnostics import Reporter, suggest
from quizzer.content.models import OPTION_LETTERS


def check_refs(raw: dict[str, Any], catalogs: Catalogs, report: Reporter) -> None:
    """Every cross-reference problem of one raw question, to ``report`` (which points into it)."""
    _check_tags(raw, catalogs, report)
    _check_readings(raw, catalogs, report)
    _check_zh(raw, report)
    if raw.get("kind") == "choice":
        _check_choice(raw, report)


def _items(raw: dict[str, Any], name: str) -> list[Any]:
    value = raw.get(name)
    return value if isinstance(value, list) else []


def _check_tags(raw: dict[str, Any], catalogs: Catalogs, report: Reporter) -> None:
    """Topics, articles and company pages that the catalogs do not have."""
    topics, articles, companies = catalogs.topics, catalogs.articles, catalogs.companies
    for i, topic in enumerate(_items(raw, "topics")):
        if isinstance(topic, str) and topic not in topics:
            report(("topics", i), f"unknown topic {topic!r}{suggest(topic, topics)}")
    for i, article in enumerate(_items(raw, "articles")):
        if isinstance(article, str) and article not in articles:
            report(("articles", i), f"unknown article {article!r}{suggest(article, articles)}")
    for i, tag in enumerate(_items(raw, "companies")):
        if not isinstance(tag, dict) or not isinstance(tag.get("key"), str):
            continue
        company = companies.get(tag["key"])
        source = tag.get("source")
        if company is None:
            report(
                ("companies", i, "key"),
                f"unknown company {tag['key']!r}{suggest(tag['key'], companies)}",
            )
        elif isinstance(source, str) and source not in company.pages:
            report(
                ("companies", i, "source"),
                f"{source!r} is not an interview page of {tag['key']!r}"
                f"{suggest(source, company.pages)}",
            )


def _check_readings(raw: dict[str, Any], catalogs: Catalogs, report: Reporter) -> None:
    """Readings that readings.yaml does not have."""
    readings = catalogs.readings
    for i, key in enumerate(raw.get("readings") or []):
        if isinstance(key, str) and key not in readings:
            report(("readings", i), f"unknown reading {key!r}{suggest(key, readings)}")


def _check_zh(raw: dict[str, Any], report: Reporter) -> None:
    """zh.worked belongs to numeric questions (whose zh block needs it), zh.hints to code."""
    zh_block = raw.get("zh")
    if not isinstance(zh_block, dict):
        return
    kind = raw.get("kind")
    if kind == "numeric" and "worked" not in zh_block:
        report(
            ("zh",),
            "zh.worked is missing (a numeric question's zh block needs the worked solution too)",
        )
    if kind != "numeric" and "worked" in zh_block:
        report(("zh", "worked"), "zh.worked is only for numeric questions")
    if kind != "code" and "hints" in zh_block:
        report(("zh", "hints"), "zh.hints is only for code questions")


def _check_choice(raw: dict[str, Any], report: Reporter) -> None:
    """The correct letters are among the options, and zh.options has as many."""
    options = _items(raw, "options")
    allowed = OPTION_LETTERS[: len(options)]
    correct = raw.get("correct")
    letters = [correct] if isinstance(correct, str) else correct
    for i, letter in enumerate(letters if isinstance(letters, list) else []):
        if isinstance(letter, str) and letter not in allowed:
            report(
                ("correct", i) if isinstance(correct, list) else ("correct",),
                f"correct answer {letter!r} is not among the options ({allowed[:1]}–{allowed[-1:]})"
                if allowed
                else "choice has no options",
            )
    zh = raw.get("zh")
    if (
        isinstance(zh, dict)
        and isinstance(zh.get("options"), list)
        and len(zh["options"]) != len(options)
    ):
        report(
            ("zh", "options"),
            f"zh.options has {len(zh['options'])} options but options has {len(options)}",
        )
