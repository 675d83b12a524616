"""Browse the bank as a tree (module → chapter → topic → question) with filters and search.

Searching or filtering opens the tree down to the matching questions; the root names every
filter in force, and Esc clears them before it leaves. Down from the search box or a filter
goes to the results (Enter or Space opens a filter's list), so moving through the bar never
changes a filter by accident.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, Markdown, Select, Tree

from quizzer.content.language import title_in
from quizzer.content.models import QUESTION_KINDS
from quizzer.content.render import preview_markdown
from quizzer.grading.samples import sample_prompt
from quizzer.study.session import Filters
from quizzer.tui.links import open_link
from quizzer.tui.widgets.footer import QuizzerFooter
from quizzer.tui.widgets.status import StatusLine, StatusLineScreen

if TYPE_CHECKING:
    from quizzer.content.models import AnyQuestion
    from quizzer.tui.base import QuizzerAppBase


KIND_TAGS = {"recall": "[r]", "choice": "[c]", "numeric": "[n]", "code": "[</>]"}
"""The tag in front of each question in the tree."""


EXPAND_ALL_UP_TO = 150
"""A search or filter with at most this many matches opens every branch down to the questions;
with more, modules and chapters open and topics stay closed."""


class FilterSelect(Select[object]):
    """A filter of the bar: Enter or Space opens its list; Down goes on to the results
    instead, so Tab then Down never picks a value unseen."""

    BINDINGS = [
        Binding("enter,space,up", "show_overlay", "Show menu", show=False),
        Binding("down", "screen.results", "Results", show=False),
    ]


class BrowseScreen(StatusLineScreen):
    """The question browser."""

    BINDINGS = [
        Binding("escape", "back", "Back / clear"),
        Binding("slash", "search", "Search", key_display="/"),
        Binding("s", "study_selection", "Study these"),
        Binding("o", "open_article", "Open article"),
        Binding("down", "results", "Results", show=False),
    ]

    @property
    def qapp(self) -> QuizzerAppBase:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        app = self.qapp
        companies = sorted({t.key for q in app.bank.questions for t in q.companies})
        with Horizontal(id="browse-filters"):
            yield Input(placeholder="/ search", id="search", compact=True)
            yield FilterSelect(
                [(app.bank.companies[k].name_en, k) for k in companies],
                prompt="company",
                id="company",
                compact=True,
            )
            yield FilterSelect(
                [(k, k) for k in QUESTION_KINDS],
                prompt="kind",
                id="kind",
                compact=True,
            )
            yield FilterSelect(
                [(f"difficulty {d}", d) for d in range(1, 6)],
                prompt="difficulty",
                id="difficulty",
                compact=True,
            )
        with Horizontal(id="browse-main"):
            yield Tree("Question bank", id="tree")
            with Vertical(id="browse-preview"), VerticalScroll():
                yield Markdown("Select a question to preview it.", id="preview")
        yield StatusLine(id="status")
        yield QuizzerFooter()

    def on_mount(self) -> None:
        self.rebuild()
        self.query_one("#tree", Tree).focus()

    def filters(self) -> Filters:
        """The filters currently set in the bar."""

        def value(widget_id: str) -> object:
            select: Select[object] = self.query_one(widget_id, Select)
            return None if select.is_blank() else select.value

        company, kind, difficulty = value("#company"), value("#kind"), value("#difficulty")
        search = self.query_one("#search", Input).value.strip() or None
        return Filters(
            companies=(str(company),) if company else (),
            kinds=(str(kind),) if kind else (),
            difficulties=(int(str(difficulty)),) if difficulty else (),
            search=search,
        )

    def matching(self) -> list[AnyQuestion]:
        """Questions passing the filters."""
        filters = self.filters()
        return [q for q in self.qapp.bank.questions if filters.accepts(self.qapp.bank, q)]

    def active_filters(self) -> list[str]:
        """The filters in force, as the root of the tree names them."""
        filters = self.filters()
        shown = []
        if filters.search:
            shown.append(f"search “{filters.search}”")
        if filters.companies:
            shown.append(self.qapp.bank.companies[filters.companies[0]].name_en.split(" (")[0])
        shown += list(filters.kinds)
        shown += [f"difficulty {d}" for d in filters.difficulties]
        return shown

    def rebuild(self) -> None:
        """Rebuild the tree for the current filters, opened down to the matches when
        searching or filtering."""
        app = self.qapp
        lang = app.language
        questions = self.matching()
        active = self.active_filters()
        by_topic: dict[str, list[AnyQuestion]] = {}
        for q in questions:
            by_topic.setdefault(q.topics[0], []).append(q)
        tree = self.query_one("#tree", Tree)
        tree.clear()
        label = f"Question bank ({len(questions)})"
        tree.root.set_label(Text(label + (" · " + " · ".join(active) if active else "")))
        tree.root.expand()
        open_modules = bool(active) or len(questions) < 60
        open_topics = bool(active) and len(questions) <= EXPAND_ALL_UP_TO
        if not questions:
            self.query_one("#preview", Markdown).update(
                "No question matches " + ", ".join(active) + ".\n\nEsc clears the filters."
                if active
                else "The bank has no questions."
            )
        for module in app.bank.modules:
            total = sum(len(by_topic.get(t.key, [])) for c in module.chapters for t in c.topics)
            if not total:
                continue
            module_node = tree.root.add(
                f"{module.module}. {title_in(module, lang)} ({total})",
                expand=open_modules,
            )
            for chapter in module.chapters:
                count = sum(len(by_topic.get(t.key, [])) for t in chapter.topics)
                if not count:
                    continue
                chapter_node = module_node.add(
                    f"{title_in(chapter, lang)} ({count})",
                    expand=bool(active),
                )
                for topic in chapter.topics:
                    items = by_topic.get(topic.key, [])
                    if not items:
                        continue
                    topic_node = chapter_node.add(
                        f"{title_in(topic, lang)} ({len(items)})",
                        expand=open_topics,
                    )
                    for q in items:
                        prompt = " ".join(sample_prompt(q, lang).split())
                        # Text, not a str: "[c]" would be read as markup and vanish.
                        leaf = Text.assemble((KIND_TAGS[q.kind], "dim"), " ", prompt[:60])
                        topic_node.add_leaf(leaf, data=q.id)

    @on(Input.Changed, "#search")
    @on(Select.Changed)
    def refilter(self) -> None:
        self.rebuild()

    @on(Tree.NodeHighlighted, "#tree")
    def preview(self, event: Tree.NodeHighlighted) -> None:
        question_id = event.node.data
        if question_id:
            q = self.qapp.bank.by_id[question_id]
            lang = self.qapp.language
            markdown = preview_markdown(self.qapp.bank, q, lang, sample_prompt(q, lang))
            self.query_one("#preview", Markdown).update(markdown)

    @on(Tree.NodeSelected, "#tree")
    def study_one(self, event: Tree.NodeSelected) -> None:
        question_id = event.node.data
        if question_id:
            self.qapp.start_study([self.qapp.bank.by_id[question_id]], title="Study: one")

    @on(Input.Submitted, "#search")
    def action_results(self) -> None:
        """Go to the results (Down or Enter from the search box, Down from a filter)."""
        self.query_one("#tree", Tree).focus()

    def action_search(self) -> None:
        self.query_one("#search", Input).focus()

    def action_open_article(self) -> None:
        """Open the highlighted question's main link in a browser."""
        node = self.query_one("#tree", Tree).cursor_node
        question_id = node.data if node is not None else None
        if not question_id:
            self.notify("Highlight a question first.")
            return
        title, url = self.qapp.bank.main_link(self.qapp.bank.by_id[question_id])
        open_link(self, title, url)

    def action_study_selection(self) -> None:
        """Study the questions matching the filters (the first GROUP_SESSION_SIZE)."""
        from quizzer.study.queue import selection_queue

        self.qapp.start_study(selection_queue(self.matching()), title="Study: browser selection")

    def action_back(self) -> None:
        """Clear the search and filters if any are set; otherwise leave."""
        if self.active_filters():
            with self.prevent(Input.Changed, Select.Changed):
                self.query_one("#search", Input).value = ""
                for select in self.query(FilterSelect):
                    select.clear()
            self.rebuild()
            self.query_one("#tree", Tree).focus()
            return
        self.app.pop_screen()
