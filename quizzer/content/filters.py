"""Which questions a listing or a session takes: the filters by topic, company, article, kind,
difficulty, module and text, applied in one function."""

from __future__ import annotations

from quizzer.content.bank import Bank
from quizzer.content.models import AnyQuestion
from quizzer.content.search import matches_search


def matches(
    bank: Bank,
    q: AnyQuestion,
    *,
    topics: tuple[str, ...] = (),
    companies: tuple[str, ...] = (),
    articles: tuple[str, ...] = (),
    kinds: tuple[str, ...] = (),
    difficulties: tuple[int, ...] = (),
    modules: tuple[int, ...] = (),
    search: str | None = None,
) -> bool:
    """Whether a question passes every given filter (an empty filter passes everything);
    ``search`` is quizzer.content.search's word search."""
    if topics and not set(topics) & set(q.topics):
        return False
    if companies and not set(companies) & {t.key for t in q.companies}:
        return False
    if articles and not set(articles) & set(q.articles):
        return False
    if kinds and q.kind not in kinds:
        return False
    if difficulties and q.difficulty not in difficulties:
        return False
    if modules and bank.module_of(q) not in modules:
        return False
    return matches_search(q, search)
