"""What a code check found, and how it is told: passed, failed (with the smallest failing input,
expected against got and the errors) or cannot run (with the line of the user's file)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

Status = Literal["passed", "failed", "cannot-run"]

EXIT_CODES: dict[Status, int] = {"passed": 0, "failed": 1, "cannot-run": 2}
"""How a command reports a verdict: 0 pass, 1 fail, 2 cannot run."""

SHOWN = 8
"""How many values of an array a report shows."""
PRINTED_LINES = 12
"""How many lines of what the user's code printed a report shows."""


@dataclass
class CaseReport:
    """One check that went wrong: its inputs and what was wrong with the output."""

    name: str
    """The check, e.g. `edge: large logits` or `random 4`."""
    inputs: list[str]
    """One line per argument: name, dtype, shape and a few values."""
    problem: str
    """What was wrong: `3 of 40 values differ`, or the exception the user's code raised."""
    expected: str = ""
    """A few expected values around the largest error, with where they are."""
    got: str = ""
    """The same values of the user's output."""
    max_abs: float | None = None
    """Largest absolute error over the output."""
    max_rel: float | None = None
    """Largest relative error over the output."""
    tolerance: str = ""
    """The tolerance the output was held to."""
    traceback: list[str] = field(default_factory=list)
    """For an exception: the traceback lines of the user's file only, innermost last."""


@dataclass
class Verdict:
    """The outcome of checking one file."""

    status: Status
    summary: str
    """One line: `passed all 23 checks`, `failed 2 of 23 checks`, `line 3: import torch ...`."""
    seed: int | None = None
    """The seed of the random cases (None when nothing ran); the same seed replays the run."""
    checks: int = 0
    """How many cases the run has."""
    failed: list[str] = field(default_factory=list)
    """Names of the cases whose output was rejected."""
    case: CaseReport | None = None
    """The smallest failing case, or the case that raised."""
    line: int | None = None
    """The line of the user's file to look at (syntax error, refused import, exception)."""
    printed: str = ""
    """The last lines the user's code printed."""
    seconds: float = 0.0
    """Wall-clock time of the check."""

    @property
    def exit_code(self) -> int:
        """0 passed, 1 failed, 2 cannot run."""
        return EXIT_CODES[self.status]

    @property
    def passed(self) -> bool:
        """Whether every check accepted the output."""
        return self.status == "passed"

    def report(self) -> str:
        """The verdict as text for a terminal."""
        mark = {"passed": "✓", "failed": "✗", "cannot-run": "!"}[self.status]
        head = f"{mark} {self.summary}"
        if self.seed is not None:
            head += f" (seed {self.seed})"
        lines = [head]
        case = self.case
        if case is not None:
            if case.name:
                label = "smallest failing input" if self.status == "failed" else "on input"
                lines.append(f"{label}: {case.name}")
            lines += [f"  {text}" for text in case.inputs]
            if case.traceback:
                lines.append("traceback (your file):" if case.name else "in your file:")
                lines += [f"  {text}" for text in case.traceback]
            if case.problem:
                lines.append(case.problem)
            if case.expected:
                lines.append(f"  expected {case.expected}")
                lines.append(f"  got      {case.got}")
            if case.max_abs is not None:
                lines.append(
                    f"  max abs error {case.max_abs:.3g}, max rel error {case.max_rel:.3g}"
                    + (f" (allowed: {case.tolerance})" if case.tolerance else "")
                )
        if self.printed:
            printed = self.printed.splitlines()
            hidden = len(printed) - PRINTED_LINES
            lines.append(
                "output of your code"
                + (f" (last {PRINTED_LINES} lines of {len(printed)}):" if hidden > 0 else ":")
            )
            lines += [f"  {text}" for text in printed[-PRINTED_LINES:]]
        return "\n".join(lines)


def values(array: np.ndarray) -> str:
    """A few values of a flattened array, `[0.1, 0.2, ..., 0.9]`."""
    flat = np.asarray(array).reshape(-1)
    return np.array2string(
        flat, precision=4, threshold=SHOWN, edgeitems=3, separator=", ", max_line_width=10_000
    )


def describe_input(name: str, value: Any) -> str:
    """One line for a case's argument: dtype, shape and a few values."""
    if isinstance(value, np.ndarray):
        return f"{name}: {value.dtype} {value.shape} {values(value)}"
    return f"{name} = {value!r}"


def window(array: np.ndarray, index: tuple[int, ...] | None) -> tuple[str, np.ndarray]:
    """Up to SHOWN values along the last axis around ``index``, and where they are, e.g.
    (`[1, 0:5]`, values)."""
    if array.ndim == 0:
        return "", array.reshape(1)
    index = index or (0,) * array.ndim
    length = array.shape[-1]
    start = max(0, min(index[-1] - SHOWN // 2 + 1, length - SHOWN))
    stop = min(length, start + SHOWN)
    where = [str(i) for i in index[:-1]] + [f"{start}:{stop}"]
    key: tuple[int | slice, ...] = (*index[:-1], slice(start, stop))
    return f"at [{', '.join(where)}]", array[key]


def cases_text(names: list[str], limit: int = 4) -> str:
    """`a, b, c and 3 more`."""
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")
