"""Tag chips, article links and numbered choice options for a question."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from quizzer.content.bank import Bank
from quizzer.content.models import OPTION_LETTERS, AnyQuestion


def chips(bank: Bank, q: AnyQuestion, lang: str = "en") -> Text:
    """`[kind · difficulty] [topic…] [company…]` chips."""
    text = Text()
    text.append(f" {q.kind} · d{q.difficulty} ", style="reverse")
    for topic in q.topics:
        title = bank.topics[topic].title_zh if lang == "zh" else bank.topics[topic].title_en
        text.append(" ")
        text.append(f" {title} ", style="bold on dark_blue")
    for key in q.company_keys:
        company = bank.companies[key]
        text.append(" ")
        # Chips stay short: "General (question sets compiled from …)" shows as "General".
        name = company.name_zh if lang == "zh" else company.name_en.split(" (")[0]
        text.append(f" {name} ", style="bold on dark_green")
    return text


def article_links(bank: Bank, q: AnyQuestion, lang: str = "en") -> Text:
    """One clickable line per link: articles, then interview pages and references (OSC 8
    hyperlinks where the terminal has them)."""
    text = Text()
    for index, (title, url) in enumerate(bank.links(q, lang)):
        if index:
            text.append("\n")
        text.append("→ ", style="dim")
        text.append(title, style=f"underline link {url}")
        text.append(f"  {url}", style=f"dim link {url}")
    if q.readings:
        text.append("\nFurther reading", style="bold")
        for line in bank.further_reading(q, lang):
            text.append(f"\n→ {line}", style="dim")
    return text


def inline_code(text: str) -> Text:
    """Option text with Markdown `code` spans shown as code (backticks dropped)."""
    out = Text()
    for index, part in enumerate(text.split("`")):
        out.append(part, style="bold" if index % 2 else "")
    return out


def option_grid(texts: list[str]) -> Table:
    """Numbered choice options; long ones wrap under their own text, not under the number."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1)
    for index, (letter, text) in enumerate(zip(OPTION_LETTERS, texts, strict=False)):
        grid.add_row(Text(f" {index + 1} ", style="reverse"), inline_code(f"{letter}. {text}"))
    return grid
