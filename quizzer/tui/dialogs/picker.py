"""Pick a topic, company or article from a filterable list."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from quizzer.content.language import title_in
from quizzer.content.search import text_matches
from quizzer.content.views import coverage

if TYPE_CHECKING:
    from quizzer.tui.base import QuizzerAppBase


class PickerModal(ModalScreen[str | None]):
    """Returns the chosen key, or None on escape."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, by: str) -> None:
        super().__init__()
        self.by = by

    def entries(self) -> list[tuple[str, str, int]]:
        """(key, label, question count) for every choice with at least one question."""
        app: QuizzerAppBase = self.app  # type: ignore[assignment]
        bank, lang = app.bank, app.language
        group = {"topic": "topics", "company": "companies", "article": "articles"}[self.by]
        counts = {row["key"]: row["count"] for row in coverage(bank)[group] if row["count"]}
        rows = []
        for key, count in counts.items():
            if self.by == "topic":
                topic = bank.topics[key]
                label = title_in(topic, lang)
            elif self.by == "company":
                company = bank.companies[key]
                label = f"{company.name_en} · {company.name_zh}"
                if company.tier != company.name_zh:  # "general" has tier 综合, its own name
                    label += f" ({company.tier})"
            else:
                article = bank.articles[key]
                label = title_in(article, lang)
            rows.append((key, label, count))
        return sorted(rows, key=lambda row: (-row[2], row[1]) if self.by == "company" else row[0])

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Static(
                f"Choose {'an' if self.by[0] in 'aeiou' else 'a'} {self.by} "
                "(type to filter, Enter to start)",
                classes="section-title",
            )
            yield Input(placeholder="filter…", id="picker-filter", compact=True)
            yield OptionList(id="picker-list")

    def on_mount(self) -> None:
        self.fill("")
        self.query_one("#picker-filter", Input).focus()

    def fill(self, needle: str) -> None:
        """Show the entries matching ``needle``."""
        options = self.query_one("#picker-list", OptionList)
        options.clear_options()
        for key, label, count in self.entries():
            if text_matches(needle, key, label):
                options.add_option(Option(f"{label}  [dim]{key} · {count}[/dim]", id=key))
        if options.option_count:
            options.highlighted = 0

    @on(Input.Changed, "#picker-filter")
    def refilter(self, event: Input.Changed) -> None:
        self.fill(event.value)

    @on(Input.Submitted, "#picker-filter")
    def take_highlighted(self) -> None:
        options = self.query_one("#picker-list", OptionList)
        if options.highlighted is not None:
            self.dismiss(options.get_option_at_index(options.highlighted).id)

    @on(OptionList.OptionSelected, "#picker-list")
    def take_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def on_key(self, event: object) -> None:
        key = getattr(event, "key", "")
        if key in ("down", "up") and self.focused is self.query_one("#picker-filter"):
            self.query_one("#picker-list", OptionList).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)
