"""Mastery per topic (weakest first), due forecast, retention trend and leeches.

Below 100 columns the forecast, retention and leeches go under the mastery table instead of
beside it, so topic names stay readable at 80×24.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from quizzer.base import clock
from quizzer.content.language import localise, title_in
from quizzer.tui.widgets.charts import bar, forecast_columns
from quizzer.tui.widgets.footer import QuizzerFooter
from quizzer.tui.widgets.titlebar import TitleBar

if TYPE_CHECKING:
    from quizzer.tui.base import QuizzerAppBase


MISSED_SHOWN = 5
"""Key points listed on the screen (`quizzer weak --key-points` lists more)."""


def missed_table(app: QuizzerAppBase, now: datetime) -> Table | Text:
    """The most often missed key points, each with its question id, or how to get some."""
    from quizzer.study.missed import missed_points, prompt_line

    points = missed_points(app.bank, app.store, now)[:MISSED_SHOWN]
    if not points:
        return Text(
            "none yet: after revealing a recall answer, tick the key points you got",
            style="dim",
        )
    table = Table(box=None, show_header=False, padding=(0, 1), expand=True)
    table.add_column("missed", no_wrap=True, justify="right")
    table.add_column("point and question", ratio=1)
    for point in points:
        q = app.bank.by_id[point.question_id]
        cell = Text(point.text(app.bank, app.language))
        prompt = localise(q, app.language).prompt
        cell.append(f"\n{q.id} #{point.number}: {prompt_line(prompt, 60)}", style="dim")
        table.add_row(f"{point.missed}/{point.checked}", cell)
    return table


class StatsScreen(Screen[None]):
    """Progress at a glance."""

    BINDINGS = [Binding("escape", "back", "Back")]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Container(id="stats-main"):
            with VerticalScroll(id="stats-left"):
                yield Static("Mastery by topic, weakest first", classes="section-title")
                yield Static(id="mastery")
                yield Static("Key points you miss most often", classes="section-title")
                yield Static(id="missed-points")
            with Container(id="stats-right"):
                with Vertical(id="stats-forecast"):
                    yield Static("Due in the next 14 days", classes="section-title")
                    yield Static(id="forecast")
                with Vertical(id="stats-more"):
                    yield Static("Retention %, last 8 weeks", classes="section-title")
                    yield Static(id="trend")
                    yield Static("Leeches", classes="section-title")
                    yield Static(id="leeches")
        yield QuizzerFooter()

    def on_mount(self) -> None:
        from quizzer.study.accuracy import recent_since
        from quizzer.study.stats import forecast, group_rows, recall_map, retention_trend

        app: QuizzerAppBase = self.app  # type: ignore[assignment]
        now = clock.now()
        cards = app.store.cards()
        recent = app.store.recent_counts(recent_since(now))
        table = Table(box=None, show_header=True, padding=(0, 1), expand=True)
        table.add_column("topic", ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column("mastery", width=10, no_wrap=True)
        table.add_column("acc", justify="right", no_wrap=True)
        table.add_column("seen", justify="right", no_wrap=True)
        rows = group_rows(app.bank, cards, recall_map(app.store, cards, now), "topic", recent)
        for row in rows:
            topic = app.bank.topics[row["key"]]
            name = title_in(topic, app.language)
            r, acc = row["mean_retrievability"], row["accuracy"]
            table.add_row(
                name,
                bar(r if row["reviewed"] else None, 10),
                "—" if acc is None else f"{acc:.0%}",
                f"{row['reviewed']}/{row['questions']}",
            )
        self.query_one("#mastery", Static).update(table)
        self.query_one("#missed-points", Static).update(missed_table(app, now))
        self.query_one("#forecast", Static).update(forecast_columns(forecast(cards, now)))
        trend = Text()
        for value in retention_trend(app.store, now):  # four cells a week: fits 80 columns
            trend.append(f"{'—' if value is None else round(value * 100):>3} ", style="bold")
        trend.rstrip()
        trend.append("\noldest → this week", style="dim")
        self.query_one("#trend", Static).update(trend)
        leeches = [qid for qid, row in cards.items() if row.leech]
        self.query_one("#leeches", Static).update(
            "\n".join(leeches) if leeches else Text("none", style="dim")
        )

    def action_back(self) -> None:
        self.app.pop_screen()
