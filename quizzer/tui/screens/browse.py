"""Browse the bank as a tree (module → chapter → topic → question) with filters and search."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Input, Markdown, Select, Tree

from quizzer.content.models import (
    OPTION_LETTERS,
    QUESTION_KINDS,
    ChoiceQuestion,
    CodeQuestion,
    NumericQuestion,
    RecallQuestion,
)
from quizzer.study.session import Filters

if TYPE_CHECKING:
    from quizzer.content.models import AnyQuestion
    from quizzer.tui.app import QuizzerApp


KIND_TAGS = {"recall": "[r]", "choice": "[c]", "numeric": "[n]", "code": "[</>]"}
"""The tag in front of each question in the tree."""


def preview_markdown(app: QuizzerApp, q: AnyQuestion) -> str:
    """A question as Markdown, with its answer, explanation, tags and links."""
    zh = q.zh if app.language == "zh" else None
    parts = [
        f"### {q.id}",
        f"*{q.kind} · difficulty {q.difficulty}*",
        "",
        zh.prompt if zh else q.prompt,
    ]
    if isinstance(q, ChoiceQuestion):
        options = zh.options if zh and zh.options else q.options
        parts += [""] + [
            f"- {'**' if letter in q.correct else ''}{letter}. {text}"
            f"{'** ✓' if letter in q.correct else ''}"
            for letter, text in zip(OPTION_LETTERS, options, strict=False)
        ]
    elif isinstance(q, RecallQuestion):
        answer = zh.answer if zh and zh.answer else q.answer
        points = zh.key_points if zh and zh.key_points else q.key_points
        parts += ["", "**Answer**", "", answer, "", "**Key points**", ""]
        parts += [f"- {p}" for p in points]
    elif isinstance(q, NumericQuestion):
        parts += [
            "",
            f"*Answer in {q.unit}; parameters are drawn per attempt (`quizzer solve {q.id}`).*",
        ]
    elif isinstance(q, CodeQuestion):
        parts += [
            "",
            f"*Write `{q.entry}` in Python: Enter opens the editor, ctrl+r runs the checks "
            f"(or `quizzer exercise {q.id}`). {len(q.hints)} hints; the reference solution "
            "comes after the attempt.*",
        ]
    explanation = zh.explanation if zh and zh.explanation else q.explanation
    parts += ["", "**Why**", "", explanation, "", "**Read more**", ""]
    for title, url in app.bank.links(q, "zh" if zh else "en"):
        parts.append(f"- [{title}]({url})")
    if q.readings:
        parts += ["", "**Further reading**", ""]
        parts += [f"- {line}" for line in app.bank.further_reading(q, "zh" if zh else "en")]
    if q.companies:
        parts += [
            "",
            "**Asked at:** " + ", ".join(app.bank.companies[key].name_en for key in q.company_keys),
        ]
    return "\n".join(parts)


class BrowseScreen(Screen[None]):
    """The question browser."""

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("slash", "search", "Search", key_display="/"),
        Binding("s", "study_selection", "Study these"),
    ]

    @property
    def qapp(self) -> QuizzerApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        app = self.qapp
        companies = sorted({t.key for q in app.bank.questions for t in q.companies})
        with Horizontal(id="browse-filters"):
            yield Input(placeholder="/ search", id="search", compact=True)
            yield Select(
                [(app.bank.companies[k].name_en, k) for k in companies],
                prompt="company",
                id="company",
                compact=True,
            )
            yield Select(
                [(k, k) for k in QUESTION_KINDS],
                prompt="kind",
                id="kind",
                compact=True,
            )
            yield Select(
                [(f"difficulty {d}", d) for d in range(1, 6)],
                prompt="difficulty",
                id="difficulty",
                compact=True,
            )
        with Horizontal(id="browse-main"):
            yield Tree("Question bank", id="tree")
            with Vertical(id="browse-preview"), VerticalScroll():
                yield Markdown("Select a question to preview it.", id="preview")
        yield Footer()

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

    def rebuild(self) -> None:
        """Rebuild the tree for the current filters."""
        app = self.qapp
        zh = app.language == "zh"
        questions = self.matching()
        by_topic: dict[str, list[AnyQuestion]] = {}
        for q in questions:
            by_topic.setdefault(q.topics[0], []).append(q)
        tree = self.query_one("#tree", Tree)
        tree.clear()
        tree.root.set_label(f"Question bank ({len(questions)})")
        tree.root.expand()
        for module in app.bank.modules:
            total = sum(len(by_topic.get(t.key, [])) for c in module.chapters for t in c.topics)
            if not total:
                continue
            module_node = tree.root.add(
                f"{module.module}. {module.title_zh if zh else module.title_en} ({total})",
                expand=len(questions) < 60,
            )
            for chapter in module.chapters:
                count = sum(len(by_topic.get(t.key, [])) for t in chapter.topics)
                if not count:
                    continue
                chapter_node = module_node.add(
                    f"{chapter.title_zh if zh else chapter.title_en} ({count})"
                )
                for topic in chapter.topics:
                    items = by_topic.get(topic.key, [])
                    if not items:
                        continue
                    topic_node = chapter_node.add(
                        f"{topic.title_zh if zh else topic.title_en} ({len(items)})"
                    )
                    for q in items:
                        prompt = (q.zh.prompt if zh and q.zh else q.prompt).split("\n")[0]
                        # Text, not a str: "[c]" would be read as markup and vanish.
                        label = Text.assemble((KIND_TAGS[q.kind], "dim"), " ", prompt[:60])
                        topic_node.add_leaf(label, data=q.id)

    @on(Input.Changed, "#search")
    @on(Select.Changed)
    def refilter(self) -> None:
        self.rebuild()

    @on(Tree.NodeHighlighted, "#tree")
    def preview(self, event: Tree.NodeHighlighted) -> None:
        question_id = event.node.data
        if question_id:
            q = self.qapp.bank.by_id[question_id]
            self.query_one("#preview", Markdown).update(preview_markdown(self.qapp, q))

    @on(Tree.NodeSelected, "#tree")
    def study_one(self, event: Tree.NodeSelected) -> None:
        question_id = event.node.data
        if question_id:
            self.qapp.start_study([self.qapp.bank.by_id[question_id]], title="Study: one")

    def action_search(self) -> None:
        self.query_one("#search", Input).focus()

    def action_study_selection(self) -> None:
        """Study every question matching the filters (first 20)."""
        self.qapp.start_study(self.matching()[:20], title="Study: browser selection")

    def action_back(self) -> None:
        self.app.pop_screen()
