"""Tag chips, article links and numbered choice options for a question."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.table import Table
from rich.text import Text
from textual.geometry import Size
from textual.widget import Widget

from quizzer.content.bank import Bank
from quizzer.content.language import company_name, title_in
from quizzer.content.models import OPTION_LETTERS, AnyQuestion


def chip_list(bank: Bank, q: AnyQuestion, lang: str = "en") -> list[tuple[str, str]]:
    """`kind · difficulty`, topic and company chips as (label, style)."""
    found = [(f" {q.kind} · d{q.difficulty} ", "reverse")]
    for topic in q.topics:
        title = title_in(bank.topics[topic], lang)
        found.append((f" {title} ", "bold on dark_blue"))
    for key in q.company_keys:
        company = bank.companies[key]
        # Chips stay short: "General (question sets compiled from …)" shows as "General".
        name = company_name(company, lang)
        found.append((f" {name} ", "bold on dark_green"))
    return found


def pack_chips(items: list[tuple[str, str]], width: int, max_lines: int = 2) -> list[Text]:
    """Chips laid out in lines of ``width`` cells, wrapping only between chips (a chip is never
    cut across lines); a chip wider than a line is shortened with …; chips past ``max_lines``
    are counted in a closing `+N`."""
    width = max(width, 8)

    def used(line: list[tuple[str, str]]) -> int:
        return sum(cell_len(label) for label, _ in line) + max(0, len(line) - 1)

    lines: list[list[tuple[str, str]]] = [[]]
    left = 0
    for index, (label, style) in enumerate(items):
        if cell_len(label) > width:
            label = set_cell_size(label, width - 1) + "…"
        line = lines[-1]
        if line and used(line) + 1 + cell_len(label) > width:
            if len(lines) == max_lines:
                left = len(items) - index
                break
            lines.append([])
        lines[-1].append((label, style))
    if left:
        last = lines[-1]
        while len(last) > 1 and used(last) + cell_len(f" +{left}") > width:
            last.pop()
            left += 1
        room = width - cell_len(f" +{left}") - used(last[:-1]) - (1 if len(last) > 1 else 0)
        label, style = last[-1]
        if cell_len(label) > room:  # a lone long chip gives way to the count
            last[-1] = (set_cell_size(label, max(1, room - 1)) + "…", style)
    texts = []
    for number, line in enumerate(lines, 1):
        text = Text(" ").join(Text(label, style=style) for label, style in line)
        if left and number == len(lines):
            text.append(f" +{left}", style="dim")
        texts.append(text)
    return texts


class ChipBar(Widget):
    """A question's chips, wrapped between chips to the widget's width (at most two lines)."""

    DEFAULT_CSS = "ChipBar { height: auto; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[tuple[str, str]] = []
        """(label, style) of each chip, in order."""

    def show(self, bank: Bank, q: AnyQuestion, lang: str = "en") -> None:
        """Show the chips of ``q``."""
        self.items = chip_list(bank, q, lang)
        self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(pack_chips(self.items, width)) if self.items else 1

    def render(self) -> Text:
        return Text("\n").join(pack_chips(self.items, self.content_size.width))


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
