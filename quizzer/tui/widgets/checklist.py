"""The key-point checklist of a revealed recall answer: the user ticks the points they got.

Keys while it has focus: 1–9 tick point 1–9, space ticks the highlighted one (up/down move the
highlight), a click ticks one too, and Enter asks for the suggested rating. Each line reads
`[✓] 2. text` or `[ ] 2. text`, so the state shows without colour (NO_COLOR). The screen decides
what the ticks mean (quizzer.study.selfgrade); this widget only reports them.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList

from quizzer.study.selfgrade import tally


def checklist_title(total: int) -> Text:
    """The line above the checklist, with the keys that tick."""
    keys = f"1–{min(total, 9)}" if total > 1 else "1"
    title = Text("Key points: tick the ones you got", style="bold")
    title.append(f"  ({keys} or space; a click works too)", style="dim")
    return title


def self_grade_line(got: int, total: int) -> Text:
    """'2 of 4 key points → Hard' and the keys that confirm it or choose another."""
    line = Text(tally(got, total), style="bold")
    line.append("  ·  enter confirms · tab: the rating buttons", style="dim")
    return line


class KeyPointChecklist(OptionList):
    """One line per key point, numbered from 1; ticks are kept as 0-based indices."""

    BINDINGS = [
        Binding("enter", "confirm", "Confirm rating", show=False),
        Binding("space", "select", "Tick", show=False),
        *[Binding(str(n), f"tick({n})", f"Tick key point {n}", show=False) for n in range(1, 10)],
    ]

    class Changed(Message):
        """Something happened to the checklist (see the two kinds below)."""

        def __init__(self, checklist: KeyPointChecklist) -> None:
            super().__init__()
            self.checklist = checklist
            """The checklist it happened to."""

        @property
        def control(self) -> KeyPointChecklist:
            """The checklist (for ``@on`` selectors)."""
            return self.checklist

    class Toggled(Changed):
        """A key point was ticked or unticked."""

    class Confirmed(Changed):
        """Enter: take the rating the ticks suggest."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.points: list[str] = []
        """The key points shown, in order."""
        self.got: frozenset[int] = frozenset()
        """The indices ticked."""

    def show_points(self, points: list[str]) -> None:
        """Replace the list with ``points``, none ticked, the first highlighted."""
        self.points = list(points)
        self.got = frozenset()
        self.set_options([self._line(index) for index in range(len(points))])
        self.highlighted = 0 if points else None

    def _line(self, index: int) -> Table:
        """`[✓] 2. text`, the text wrapping under itself rather than under the box."""
        ticked = index in self.got
        mark = Text("[✓]" if ticked else "[ ]", style="bold green" if ticked else "")
        line = Table.grid(padding=(0, 1))
        line.add_column(no_wrap=True)
        line.add_column(ratio=1)
        line.add_row(mark + Text(f" {index + 1}."), Text(self.points[index]))
        return line

    def toggle(self, index: int) -> None:
        """Tick or untick point ``index`` (0-based) and say so."""
        self.got = self.got ^ {index}
        self.replace_option_prompt_at_index(index, self._line(index))
        self.post_message(self.Toggled(self))

    def action_tick(self, number: int) -> None:
        """Tick or untick point ``number`` (from 1) and highlight it; a number past the last
        point does nothing (it is not a rating key here)."""
        if 1 <= number <= len(self.points):
            self.highlighted = number - 1
            self.toggle(number - 1)

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Space or a click on a point ticks it."""
        event.stop()
        self.toggle(event.option_index)

    def action_confirm(self) -> None:
        """Ask the screen to rate with the suggestion."""
        self.post_message(self.Confirmed(self))
