"""Text charts: a review heatmap, horizontal bars and a column forecast, as Rich Text."""

from __future__ import annotations

from datetime import date, timedelta

from rich.text import Text

SHADES = " ░▒▓█"
"""Heat levels; shapes not colours, so the chart reads with NO_COLOR too."""


def heatmap(counts: dict[str, int], today: date, weeks: int = 12) -> Text:
    """A GitHub-style grid: one column per week, one row per weekday, darker = more reviews."""
    start = today - timedelta(days=today.weekday() + 7 * (weeks - 1))
    top = max(counts.values(), default=0)
    text = Text()
    for weekday, label in enumerate(("Mon", "", "Wed", "", "Fri", "", "Sun")):
        text.append(f"{label:<4}", style="dim")
        for week in range(weeks):
            day = start + timedelta(days=7 * week + weekday)
            if day > today:
                text.append("  ")
                continue
            count = counts.get(day.isoformat(), 0)
            level = 0 if not count or not top else 1 + min(3, (count * 4 - 1) // top)
            style = ("dim", "green", "green", "bold green", "bold green")[level]
            text.append(SHADES[level] * 2 if level else "··", style=style)
        text.append("\n")
    text.append(f"    less {SHADES[1]}{SHADES[2]}{SHADES[3]}{SHADES[4]} more", style="dim")
    return text


def bar(fraction: float | None, width: int = 20) -> str:
    """A bar of ``width`` cells filled to ``fraction`` (eighths for smoothness)."""
    if fraction is None:
        return "·" * width
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    partial = " ▏▎▍▌▋▊▉"[part] if part else ""
    return ("█" * full + partial).ljust(width, "·")


def forecast_columns(counts: list[int], height: int = 5) -> Text:
    """Vertical columns for the next days' due counts (three cells a day), each day's count
    under its column (`++` past 99: the busiest day is named below), then the day axis,
    labelled every other day so no label runs into the next (`now   +2    +4 …`)."""
    top = max(counts, default=0) or 1
    text = Text()
    for level in range(height, 0, -1):
        for count in counts:
            filled = count * height / top
            text.append(
                "█▌ " if filled >= level else ("▄  " if filled >= level - 0.5 else "   "),
                style="cyan",
            )
        text.append("\n")
    text.append("".join(f"{c if c < 100 else '++':<3}" for c in counts) + "\n", style="bold")
    axis = "".join(f"{'+' + str(i) if i else 'now':<6}" for i in range(0, len(counts), 2))
    text.append(axis.rstrip() + "\n", style="dim")
    busiest = max(range(len(counts)), key=lambda i: counts[i], default=0)
    if counts and counts[busiest]:
        day = "today" if busiest == 0 else f"+{busiest}"
        text.append(f"{sum(counts)} due; busiest {day} with {counts[busiest]}", style="dim")
    else:
        text.append("nothing due", style="dim")
    return text
