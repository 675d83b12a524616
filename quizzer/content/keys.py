"""The keys a user types (topics, companies, articles, tracks): listing them with their names
and question counts (`quizzer keys`), and the closest ones when a typed key is unknown."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from quizzer.content.bank import Bank
from quizzer.content.search import fold

KEY_KINDS = ("topics", "companies", "articles", "tracks")
"""What `quizzer keys` lists."""
SINGULAR = {"topics": "topic", "companies": "company", "articles": "article", "tracks": "track"}
CLOSEST = 5
"""How many keys an unknown-key message offers."""


@dataclass(frozen=True)
class KeyRow:
    """One key with what a user recognises it by."""

    key: str
    name: str
    """The English name, then the Chinese one where it differs."""
    count: int | None
    """Questions tagged with it (None where the catalog does not say, as in a track file
    without question or topic lists)."""
    note: str = ""
    """A company's tier, an article's module."""


def _names(en: str, zh: str | None) -> str:
    return en if not zh or zh.casefold() == en.casefold() else f"{en} · {zh}"


def key_rows(bank: Bank, kind: str) -> list[KeyRow]:
    """Every key of ``kind`` in catalog order, with its name and question count (a track
    counts the questions of its topics and modules)."""
    if kind == "tracks":
        return [
            KeyRow(
                t.key,
                _names(t.title_en, t.title_zh),
                sum(
                    1
                    for q in bank.questions
                    if set(q.topics) & set(t.topics) or bank.module_of(q) in t.modules
                ),
            )
            for t in bank.tracks.values()
        ]
    counts: dict[str, int] = {}
    for q in bank.questions:
        keys = {
            "topics": q.topics,
            "companies": q.company_keys,
            "articles": q.articles,
        }[kind]
        for key in set(keys):
            counts[key] = counts.get(key, 0) + 1
    if kind == "topics":
        return [
            KeyRow(t.key, _names(t.title_en, t.title_zh), counts.get(t.key, 0))
            for t in bank.topics.values()
        ]
    if kind == "companies":
        return [
            KeyRow(c.key, _names(c.name_en, c.name_zh), counts.get(c.key, 0), c.tier)
            for c in bank.companies.values()
        ]
    if kind == "articles":
        return [
            KeyRow(
                a.key, _names(a.title_en, a.title_zh), counts.get(a.key, 0), f"module {a.module}"
            )
            for a in bank.articles.values()
        ]
    raise ValueError(f"no key kind {kind!r}")


def closest_keys(word: str, rows: list[KeyRow], n: int = CLOSEST) -> list[KeyRow]:
    """The ``n`` rows closest to ``word``, compared with each key and each name (folded as
    search folds them, so `byte dance` and `字节` both find bytedance); best first."""
    target = fold(word)

    def closeness(row: KeyRow) -> float:
        best = 0.0
        for text in (row.key, *row.name.split(" · ")):
            folded = fold(text)
            if not folded or not target:
                continue
            ratio = difflib.SequenceMatcher(None, target, folded).ratio()
            if target in folded or folded in target:
                ratio += 1.0  # a part of the name beats any spelling likeness
            best = max(best, ratio)
        return best

    scored = sorted(rows, key=lambda row: (-closeness(row), row.key))
    return scored[:n]


def unknown_key_message(bank: Bank, kind: str, word: str) -> str:
    """ "unknown company 'apple'; the closest:", one closest key and its name a line, then
    where to see them all."""
    rows = key_rows(bank, kind)
    if not rows:
        return f"unknown {SINGULAR[kind]} {word!r}: no {kind} are defined"
    closest = closest_keys(word, rows)
    width = max(len(row.key) for row in closest)
    from quizzer.content.bank import suggest

    hint = suggest(word, [r.key for r in rows])
    lines = [f"unknown {SINGULAR[kind]} {word!r}{hint}; the closest:"]
    for row in closest:
        name = row.name if len(row.name) <= 60 else row.name[:59] + "…"
        lines.append(f"  {row.key:<{width}}  {name}".rstrip())
    lines.append(f"`quizzer keys {kind}` lists all {len(rows)}.")
    return "\n".join(lines)
