"""Plain-data views of bank content for the CLI's JSON output and text listings."""

from __future__ import annotations

from typing import Any

from quizzer.content.bank import Bank
from quizzer.content.filters import matches as matches  # where it was
from quizzer.content.models import AnyQuestion


def question_json(bank: Bank, q: AnyQuestion) -> dict[str, Any]:
    """A question as JSON: all fields, with articles and companies expanded."""
    data = q.model_dump(mode="json", exclude_none=True)
    data["articles"] = [
        {
            "key": key,
            "url": bank.articles[key].url,
            "title_en": bank.articles[key].title_en,
            "title_zh": bank.articles[key].title_zh,
            "module": bank.articles[key].module,
        }
        for key in q.articles
    ]
    data["links"] = [{"title": title, "url": url} for title, url in bank.links(q)]
    data["readings"] = [bank.readings[key].model_dump(exclude_none=True) for key in q.readings]
    data["companies"] = [
        {"key": tag.key, "source": tag.source, "name_en": bank.companies[tag.key].name_en}
        for tag in q.companies
    ]
    data["module"] = bank.module_of(q)
    loc = bank.locations.get(q.id)
    if loc is not None:
        data["source"] = f"{loc.path}:{loc.line}"
    return data


def coverage(bank: Bank) -> dict[str, list[dict[str, Any]]]:
    """Question counts per article, topic and company, empties first."""
    counts: dict[str, dict[str, int]] = {
        "articles": dict.fromkeys(bank.articles, 0),
        "topics": dict.fromkeys(bank.topics, 0),
        "companies": dict.fromkeys(bank.companies, 0),
    }
    for q in bank.questions:
        for key in set(q.articles):
            counts["articles"][key] += 1
        for key in set(q.topics):
            counts["topics"][key] += 1
        for key in {t.key for t in q.companies}:
            counts["companies"][key] += 1
    return {
        group: [
            {"key": key, "count": count}
            for key, count in sorted(table.items(), key=lambda kv: (kv[1], kv[0]))
        ]
        for group, table in counts.items()
    }
