"""The one-line title bar at the top of the full-size screens."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class TitleBar(Static):
    """`quizzer — AI-infra interview drills`, centred on a panel-coloured line.

    It looks like Textual's ``Header`` without its icon and clock; being one widget instead of
    four (with timers and title watchers) takes about a quarter of the dashboard's first-frame
    cost away (see tests/perf/README.md)."""

    DEFAULT_CSS = """
    TitleBar {
        dock: top;
        width: 100%;
        height: 1;
        background: $panel;
        color: $foreground;
        content-align: center middle;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def on_mount(self) -> None:
        title = Text(self.app.title)
        if self.app.sub_title:
            title.append(" — ")
            title.append(self.app.sub_title, style="dim")
        self.update(title)
