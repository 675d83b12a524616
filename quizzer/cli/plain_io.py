"""Reading the line-mode front ends' input: one line at a prompt, and a rating asked until
one that applies is typed. Shared by the plain drill, its key-point checklist, the plain mock
and `quizzer exercise`."""

from __future__ import annotations

from typing import TextIO

from quizzer.progress.scheduling import Grade


def read_line(stream: TextIO, prompt: str, out: TextIO) -> str | None:
    """Show ``prompt`` and read one line, without its line end; None at end of input."""
    out.write(prompt)
    out.flush()
    line = stream.readline()
    if not line:
        out.write("\n")
        return None
    return line.rstrip("\r\n")


def ask_grade(
    inp: TextIO,
    out: TextIO,
    prompt: str,
    default: Grade,
    allowed: tuple[Grade, ...] = tuple(Grade),
    why: str = "",
) -> Grade | None:
    """Ask for a rating until one of ``allowed`` is typed; Enter takes ``default``. None at end
    of input or on :quit. A rating that does not apply is refused, saying which do and ``why``."""
    while True:
        line = read_line(inp, prompt, out)
        if line is None or line.strip().lower() == ":quit":
            return None
        if not line.strip():
            return default
        grade = Grade.parse(line)
        if grade is None:
            out.write("? type 1-4 or again/hard/good/easy (Enter takes the suggestion)\n")
        elif grade not in allowed:
            offered = " or ".join(f"{g.value} ({g.label})" for g in allowed)
            enter = " or press Enter" if default in allowed else ""
            out.write(f"? {why or 'that rating does not apply here'}: type {offered}{enter}\n")
        else:
            return grade
