"""The plain drill's key-point checklist: after a recall answer is revealed, one line names the
key points the user got (``1,3``, ``2-4``, ``all``, ``none``); an empty line skips it.

Which points were got is saved with the rating, and sets the suggested rating
(quizzer.study.selfgrade), which Enter at the rating prompt then takes.
"""

from __future__ import annotations

from typing import TextIO

from quizzer.cli.plain_io import read_line
from quizzer.content.models import RecallQuestion
from quizzer.study.selfgrade import PointsError, parse_points, tally
from quizzer.study.session import StudySession

POINTS_PROMPT = "Key points you got (like 1,3; all; none; Enter skips)> "


def ask_key_points(inp: TextIO, out: TextIO, session: StudySession) -> bool:
    """Read the line of key points got for the revealed recall answer until it is understood,
    and record it. An empty line records nothing (the rating is then asked as before). False
    at end of input or on :quit."""
    current = session.current
    assert current is not None and isinstance(current.question, RecallQuestion)
    total = len(current.question.key_points)
    while True:
        line = read_line(inp, POINTS_PROMPT, out)
        if line is None or line.strip().lower() == ":quit":
            return False
        try:
            got = parse_points(line, total)
        except PointsError as exc:
            out.write(f"? {exc}\n")
            continue
        if got is None:
            return True
        session.check_points(got)
        missed = [str(n + 1) for n in range(total) if n not in got]
        out.write(
            tally(len(got), total) + (f" (missed: {', '.join(missed)})" if missed else "") + "\n"
        )
        return True
