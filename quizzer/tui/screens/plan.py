"""The study plan: countdown, readiness per topic, today's quota and list, and the proposed cut
when the plan does not fit the minutes per day."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from quizzer.base import clock
from quizzer.content.language import text_in
from quizzer.tui.widgets.charts import bar
from quizzer.tui.widgets.footer import QuizzerFooter
from quizzer.tui.widgets.titlebar import TitleBar

if TYPE_CHECKING:
    from quizzer.progress.goal import StudyGoal
    from quizzer.tui.base import QuizzerAppBase

TODAY_SHOWN = 8
CUT_SHOWN = 8


class PlanScreen(Screen[None]):
    """Where the plan stands, and today's work."""

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("s", "study", "Study today"),
        Binding("e", "edit", "Edit plan"),
        Binding("c", "apply_cut", "Apply cut", show=False),
        Binding("x", "clear", "Clear plan"),
    ]

    clear_armed = False
    """True after one press of x: the second press clears the plan."""

    @property
    def qapp(self) -> QuizzerAppBase:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static(id="plan-head")
        with Horizontal(id="plan-main"):
            with VerticalScroll(id="plan-left"):
                yield Static("Ready on the day, by topic", classes="section-title")
                yield Static(id="plan-topics")
            with VerticalScroll(id="plan-right"):
                yield Static("Today", classes="section-title")
                yield Static(id="plan-today")
                yield Static("Time", classes="section-title")
                yield Static(id="plan-time")
        yield QuizzerFooter()

    def on_mount(self) -> None:
        self.query_one("#plan-head", Static).update(Text(" loading…", style="dim"))
        self.report: dict[str, Any] | None = None
        self.opened = False
        """Whether the form was opened for a missing plan already (only once, on entry)."""
        self.refresh_plan()

    @work(thread=True, exclusive=True, group="plan")
    def refresh_plan(self) -> None:
        """Compute the plan in a thread (it projects every review until the date), with its own
        connection, as the dashboard does."""
        from quizzer.progress.store import Store
        from quizzer.study.plan import goal_problems, plan_report

        app = self.qapp
        store = Store(app.store.path)
        try:
            goal = store.study_goal()
            report = None
            problems: list[str] = []
            if goal is not None:
                problems = goal_problems(app.bank, goal)
                if not problems:
                    report = plan_report(app.bank, store, goal, clock.now())
        finally:
            store.close()
        app.call_from_thread(self.show_plan, goal, report, problems)

    def show_plan(
        self, goal: StudyGoal | None, report: dict[str, Any] | None, problems: list[str]
    ) -> None:
        """Render what refresh_plan computed (or open the form when there is no plan)."""
        self.report = report
        head = self.query_one("#plan-head", Static)
        if goal is None or report is None:
            for name in ("#plan-topics", "#plan-today", "#plan-time"):
                self.query_one(name, Static).update("")
            if problems:
                head.update(Text("\n".join([" The saved plan needs fixing:", *problems]), "red"))
            else:
                head.update(Text(" No plan yet: press e to set an interview date.", "dim"))
                if not self.opened:
                    self.opened = True
                    self.action_edit()
            return
        head.update(self.headline(report))
        self.query_one("#plan-topics", Static).update(self.topic_table(report))
        self.query_one("#plan-today", Static).update(self.today_text(report))
        self.query_one("#plan-time", Static).update(self.time_text(report))

    def headline(self, report: dict[str, Any]) -> Text:
        """The countdown and what the plan aims at."""
        goal = report["goal"]
        bank = self.qapp.bank
        text = Text(" ")
        if not report["active"]:
            text.append(f"The interview date {goal['date']} has passed. ", style="bold")
            text.append("Press e for a new date, x to clear.", style="dim")
            return text
        text.append(f"{report['days_left']}", style="bold reverse")
        text.append(f" days left · interview {goal['date']}", style="bold")
        aims = [bank.companies[c].name_en for c in goal["companies"]]
        if report["track_title"]:
            aims.append(report["track_title"])
        aims += goal["topics"]
        text.append(f" · {' · '.join(aims)}\n ", style="")
        text.append("Ready overall ", style="dim")
        text.append(f"{report['readiness']['overall']:.0%}", style="bold")
        for key, value in report["readiness"]["companies"].items():
            text.append(f" · {bank.companies[key].name_en} ", style="dim")
            text.append(f"{value:.0%}", style="bold")
        text.append(
            f" · {report['in_scope']} questions, {report['unseen']} not seen yet", style="dim"
        )
        return text

    def topic_table(self, report: dict[str, Any]) -> Table:
        """One bar per in-scope topic: recall on the day if study stopped now."""
        lang = self.qapp.language
        table = Table(box=None, show_header=True, padding=(0, 1), expand=True)
        table.add_column("topic (in the order they come)", ratio=1, min_width=14, no_wrap=True)
        table.add_column("recall", width=13, no_wrap=True)
        table.add_column("asked", justify="right", no_wrap=True)
        table.add_column("new", justify="right", no_wrap=True)
        for row in report["topics"]:
            table.add_row(
                text_in(lang, row["title_en"], row["title_zh"]),
                f"{bar(row['readiness'], 8)} {row['readiness']:>4.0%}",
                str(row["asked"]),
                f"{row['unseen']}/{row['questions']}",
            )
        return table

    def today_text(self, report: dict[str, Any]) -> Text:
        """Today's quota, what is due and the first new questions."""
        text = Text()
        text.append(f"{len(report['today_due'])}", style="bold")
        text.append(" due · ", style="dim")
        text.append(f"{report['new_today']}", style="bold")
        text.append(" new today\n", style="dim")
        text.append(f"Quota {report['daily_new_quota']} new a day\n", style="dim")
        if report["review_only_from"]:
            text.append(f"Review only from {report['review_only_from']}\n", style="dim")
        for qid in report["today_new"][:TODAY_SHOWN]:
            text.append(f"  new {qid}\n")
        more = len(report["today_new"]) - TODAY_SHOWN
        if more > 0:
            text.append(f"  … {more} more\n", style="dim")
        text.append("Press s to start.", style="dim")
        return text

    def time_text(self, report: dict[str, Any]) -> Text:
        """The projected minutes a day, and the cut when the plan does not fit."""
        goal = report["goal"]
        text = Text()
        text.append(f"~{report['busiest_week_minutes']:.0f}", style="bold")
        text.append(f" of {goal['minutes_per_day']} min a day (busiest week), ", style="dim")
        text.append(f"{report['minutes_per_review']:g} min per review\n", style="dim")
        text.append(f"Retention {report['desired_retention_now']:.2f} today", style="dim")
        if goal["ramp_days"]:
            text.append(f", {goal['final_retention']:.2f} on the day", style="dim")
        cut = report["cut"]
        if not report["fits"] and cut is None:
            text.append("\n\nReview-only days: ", style="bold red")
            text.append(f"{report['unseen']} not seen yet will not come up.")
        if cut is not None:
            text.append("\n\nDoes not fit: ", style="bold red")
            text.append(
                f"all {report['unseen']} new need {report['needed_new_quota']} a day, "
                f"~{report['needed_busiest_week_minutes']:.0f} min. "
                f"{cut['shortfall']} would never come up.\n"
            )
            if cut["topics"]:
                keys = ", ".join(t["key"] for t in cut["topics"][:CUT_SHOWN])
                if len(cut["topics"]) > CUT_SHOWN:
                    keys += f" and {len(cut['topics']) - CUT_SHOWN} more (`quizzer plan` lists all)"
                text.append(
                    f"Cut the {len(cut['topics'])} least-asked topics "
                    f"({cut['questions_saved']} questions): {keys}.\n"
                )
                text.append("Press c to apply the cut, e to give more time.", style="dim")
        return text

    def action_study(self) -> None:
        """Today's session: what is due, then today's new questions in plan order."""
        from quizzer.study.queue import due_queue

        app = self.qapp
        app.start_study(due_queue(app.bank, app.store, clock.now()), title="Study: today's plan")

    def action_edit(self) -> None:
        """Set or change the plan in a form."""
        from quizzer.tui.dialogs.plan_form import PlanFormModal

        def saved(goal: StudyGoal | None) -> None:
            if goal is not None:
                self.notify("Plan saved.")
                self.refresh_plan()

        self.app.push_screen(PlanFormModal(self.qapp.store.study_goal()), saved)

    def action_apply_cut(self) -> None:
        """Drop the topics the plan proposes to cut."""
        goal = self.qapp.store.study_goal()
        cut = self.report["cut"] if self.report else None
        if goal is None or not cut or not cut["topics"]:
            self.notify("The plan fits: nothing to cut.")
            return
        keys = [t["key"] for t in cut["topics"]]
        dropped = tuple(dict.fromkeys([*goal.dropped, *keys]))
        self.qapp.store.set_study_goal(goal.model_copy(update={"dropped": dropped}))
        self.notify(f"Dropped {len(keys)} topics ({cut['questions_saved']} questions).")
        self.refresh_plan()

    def action_clear(self) -> None:
        """End the plan (press x twice)."""
        if self.qapp.store.study_goal() is None:
            self.notify("There is no plan to clear.")
            return
        if not self.clear_armed:
            self.clear_armed = True
            self.notify("Press x again to clear the plan.", severity="warning")
            return
        self.clear_armed = False
        self.qapp.store.set_study_goal(None)
        self.notify("Plan cleared.")
        self.refresh_plan()

    def on_screen_resume(self) -> None:
        if getattr(self, "report", None) is not None:
            self.refresh_plan()

    def action_back(self) -> None:
        self.app.pop_screen()
