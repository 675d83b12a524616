"""Home: today's counts, weakest topics, a 12-week heatmap, retention, and ways to start."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from quizzer.base import clock
from quizzer.content.language import title_in
from quizzer.tui.widgets.charts import bar, heatmap
from quizzer.tui.widgets.footer import QuizzerFooter
from quizzer.tui.widgets.titlebar import TitleBar

if TYPE_CHECKING:
    from quizzer.tui.base import QuizzerAppBase


MENU = (
    (
        ("study", "Study (s)"),
        ("weak", "Weak (w)"),
        ("mock", "Mock (m)"),
        ("browse", "Browse (b)"),
        ("stats", "Stats (v)"),
    ),
    (
        ("pick('topic')", "Topic (t)"),
        ("pick('company')", "Company (c)"),
        ("pick('article')", "Article (a)"),
        ("settings", "Settings (,)"),
        ("quit", "Quit (q)"),
    ),
)
"""The dashboard's start buttons: (screen action, label), two rows."""


def menu_markup() -> str:
    """The menu as clickable, button-styled markup."""
    rows = []
    for row in MENU:
        rows.append(
            "  ".join(f"[@click=screen.{action}]{label.center(14)}[/]" for action, label in row)
        )
    return "\n\n".join(rows)


def titled(title: str, body: Text | None = None) -> Content:
    """A dashboard panel: a blank line, its title in bold accent, then the body (if loaded)."""
    content = Content("\n") + Content.styled(title, "b $accent") + Content("\n")
    return content if body is None else content + Content.from_rich_text(body)


class DashboardScreen(Screen[None]):
    """The home screen."""

    BINDINGS = [
        Binding("s", "study", "Study due"),
        Binding("t", "pick('topic')", "By topic", show=False),
        Binding("c", "pick('company')", "By company", show=False),
        Binding("a", "pick('article')", "By article", show=False),
        Binding("w", "weak", "Weak topics"),
        Binding("m", "mock", "Mock"),
        Binding("b", "browse", "Browse"),
        Binding("v", "stats", "Stats"),
        Binding("p", "plan", "Plan"),
        Binding("comma", "settings", "Settings", key_display=",", show=False),
        Binding("q", "quit", "Quit"),
    ]

    @property
    def qapp(self) -> QuizzerAppBase:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        # Five widgets placed by the screen's grid (see quizzer.tcss), no nested containers:
        # start-up cost grows with the widget tree, and this screen is the first frame.
        yield TitleBar()
        yield Static(id="counts")
        yield Static(titled("Weakest topics"), id="dash-left")
        yield Static(titled("Reviews, last 12 weeks"), id="dash-right")
        # One clickable Static rather than ten Button widgets: the same labels, mouse and
        # keys, at a fraction of the start-up cost (see tests/perf/README.md).
        yield Static(menu_markup(), id="menu")
        yield QuizzerFooter()

    def on_mount(self) -> None:
        # Draw the frame first, then fill in the numbers from a worker thread: the screen
        # appears at once and stays responsive with a large bank and years of history.
        self.query_one("#counts", Static).update(Text(" loading…", style="dim"))
        self.loaded = False
        self.wanted = False
        # Start loading once the first frame is painted, so the thread does not compete with it.
        self.call_after_refresh(self.first_load)

    def first_load(self) -> None:
        """Load now if this screen can be seen (on top, or under see-through dialogs); under a
        session the app opened at start (`quizzer drill --id …`, a mock), load when that
        session ends and this screen shows."""
        stack = self.app.screen_stack
        above = stack[stack.index(self) + 1 :] if self in stack else []
        if all(screen.styles.background.a < 1 for screen in above):
            self.refresh_data()
        else:
            self.wanted = True

    def on_screen_resume(self) -> None:
        if getattr(self, "loaded", False) or getattr(self, "wanted", False):
            self.wanted = False
            self.refresh_data()

    @work(thread=True, exclusive=True, group="dashboard")
    def refresh_data(self) -> None:
        """Recompute every number on the screen (in a thread, with its own connection).

        A second SQLite connection in this process is safe: SQLite shares one set of file
        locks between all its connections to a file. What is never safe is opening the DB
        file any other way (see quizzer.progress.dbopen)."""
        from quizzer.content.bank import BankError
        from quizzer.progress.store import Store
        from quizzer.study.stats import dashboard_data

        app = self.qapp
        store = Store(app.store.path)
        try:
            bank = app.bank
            store.adopt_renames(bank.previous)
            data = dashboard_data(bank, store, clock.now())
        except BankError as exc:
            app.call_from_thread(app.show_bank_error, exc.diagnostics)
            return
        finally:
            store.close()
        app.call_from_thread(self.show_data, data)

    def show_data(self, data: dict[str, Any]) -> None:
        """Render the numbers computed by refresh_data."""
        app = self.qapp
        self.loaded = True
        counts = Text()
        for label, value in (
            ("Due now", data["due_now"]),
            ("New", data["new_available"]),
            ("Reviewed today", data["reviews_today"]),
            ("Streak", f"{data['streak_days']}d"),
            ("Questions", data["questions"]),
        ):
            counts.append(f" {label} ", style="dim")
            counts.append(f"{value} ", style="bold")
            counts.append(" │")
        if data.get("plan"):
            counts.append(f"\n {data['plan']}", style="bold")
        self.query_one("#counts", Static).update(counts)
        lines = Text()
        if not data["weakest"]:
            lines.append("Nothing yet: study a few questions first.", style="dim")
        for w in data["weakest"]:
            topic = app.bank.topics[w.key]
            title = title_in(topic, app.language)
            if cell_len(title) > 24:  # cells, not characters: CJK titles are twice as wide
                title = set_cell_size(title, 23) + "…"
            lines.append(set_cell_size(title, 24) + " ", style="bold")
            lines.append(bar(1 - w.score, 10))
            lines.append(" —\n" if w.accuracy is None else f" {w.accuracy:.0%}\n", style="dim")
        lines.rstrip()
        retention = data["retention_30d"]
        summary_text = Text()
        summary_text.append("Retention (30 days) ", style="dim")
        summary_text.append("—" if retention is None else f"{retention:.0%}", style="bold")
        summary_text.append(" │ Leeches ", style="dim")
        summary_text.append(str(len(data["leeches"])), style="bold")
        summary_text.append("\nDue next 7 days ", style="dim")
        summary_text.append(" ".join(str(n) for n in data["forecast_7d"]), style="bold")
        self.query_one("#dash-left", Static).update(
            titled("Weakest topics", Text.assemble(lines, "\n\n", summary_text))
        )
        self.query_one("#dash-right", Static).update(
            titled("Reviews, last 12 weeks", heatmap(data["heatmap"], data["today"]))
        )

    def action_study(self) -> None:
        """Start a session: due reviews, then new questions."""
        from quizzer.study.queue import due_queue

        app = self.qapp
        questions = due_queue(app.bank, app.store, clock.now())
        app.start_study(questions, title="Study: all due")

    def action_pick(self, by: str) -> None:
        """Choose a topic, company or article, then study it."""
        from quizzer.tui.dialogs.picker import PickerModal

        def chosen(key: str | None) -> None:
            if key:
                self.study_group(by, key)

        self.app.push_screen(PickerModal(by), chosen)

    def study_group(self, by: str, key: str) -> None:
        """A session limited to one topic, company or article (due first, then new)."""
        from quizzer.study.queue import group_queue

        app = self.qapp
        questions = group_queue(app.bank, app.store, clock.now(), by, key)
        app.start_study(questions, title=f"Study: {key}")

    def action_weak(self) -> None:
        """Review the weakest topics, due or not."""
        from quizzer.study.weakness import weak_queue

        app = self.qapp
        app.start_study(
            weak_queue(app.bank, app.store, clock.now()), mode="weak", title="Review weak topics"
        )

    def action_mock(self) -> None:
        """Pick a company and sit a timed mock interview."""
        from quizzer.tui.dialogs.picker import PickerModal

        def chosen(key: str | None) -> None:
            if key:
                from quizzer.study.mock import assemble_mock

                app = self.qapp
                plan = assemble_mock(app.bank, app.store, key, minutes=45)
                if not plan.questions:
                    self.notify(plan.message, severity="warning")
                    return
                app.start_study(
                    plan.questions,
                    mode="mock",
                    title=f"Mock: {key}",
                    timed_minutes=45,
                    company=key,
                    notice=plan.message,
                )

        self.app.push_screen(PickerModal("company"), chosen)

    def action_browse(self) -> None:
        """Open the question browser."""
        from quizzer.tui.screens.browse import BrowseScreen

        self.app.push_screen(BrowseScreen())

    def action_stats(self) -> None:
        """Open the stats screen."""
        from quizzer.tui.screens.stats import StatsScreen

        self.app.push_screen(StatsScreen())

    def action_plan(self) -> None:
        """Open the study plan."""
        from quizzer.tui.screens.plan import PlanScreen

        self.app.push_screen(PlanScreen())

    def action_settings(self) -> None:
        """Open settings."""
        from quizzer.tui.screens.settings import SettingsScreen

        self.app.push_screen(SettingsScreen())

    async def action_quit(self) -> None:
        """Leave quizzer."""
        self.app.exit()
