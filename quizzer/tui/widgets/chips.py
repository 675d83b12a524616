"""Tag chips and article links for a question."""

from __future__ import annotations

from rich.text import Text

from quizzer.bank import Bank
from quizzer.models import AnyQuestion


def chips(bank: Bank, q: AnyQuestion, lang: str = "en") -> Text:
    """`[topic] [company] [article]` chips; article chips are terminal hyperlinks."""
    text = Text()
    text.append(f" {q.kind} · d{q.difficulty} ", style="reverse")
    for topic in q.topics:
        title = bank.topics[topic].title_zh if lang == "zh" else bank.topics[topic].title_en
        text.append(" ")
        text.append(f" {title} ", style="bold on dark_blue")
    for tag in q.companies:
        company = bank.companies[tag.key]
        text.append(" ")
        text.append(
            f" {company.name_zh if lang == 'zh' else company.name_en} ", style="bold on dark_green"
        )
    return text


def article_links(bank: Bank, q: AnyQuestion, lang: str = "en") -> Text:
    """One clickable line per linked article (OSC 8 hyperlinks where the terminal has them)."""
    text = Text()
    for index, key in enumerate(q.articles):
        article = bank.articles[key]
        title = article.title_zh if lang == "zh" else article.title_en
        if index:
            text.append("\n")
        text.append("→ ", style="dim")
        text.append(title, style=f"underline link {article.url}")
        text.append(f"  {article.url}", style=f"dim link {article.url}")
    return text
