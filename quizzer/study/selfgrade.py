"""Grading a recall answer against its key points: which the user got, and the rating that
suggests.

The rule, the same in the app, the plain drill and the mock: none got → Again, some → Hard,
all → Good. Easy is never suggested; it stays the user's call. Key points are numbered from 1
on screen and kept as 0-based indices here; what is stored with a review is the English text
of each point missed (quizzer.study.session), so a point keeps its history when the Chinese
text changes or when the user studies in the other language.
"""

from __future__ import annotations

import re

from quizzer.content.language import shown_points as shown_points  # where it was
from quizzer.content.models import RecallQuestion
from quizzer.progress.scheduling import Grade

NONE_WORDS = ("none", "0", "-")
"""What the plain drill accepts for 'I got none of them'."""
ALL_WORDS = ("all", "*")
"""What the plain drill accepts for 'I got every one'."""


class PointsError(ValueError):
    """A line of key-point numbers that cannot be understood; the message says what to type."""


def suggest_rating(got: int, total: int) -> Grade:
    """The rating ``got`` of ``total`` key points suggests: none → Again, some → Hard,
    all → Good (never Easy). A question without key points suggests Good."""
    if got < 0 or got > total:
        raise ValueError(f"got {got} of {total} key points")
    if total == 0 or got == total:
        return Grade.GOOD
    return Grade.AGAIN if got == 0 else Grade.HARD


def missed_texts(q: RecallQuestion, got: frozenset[int]) -> list[str]:
    """The English text of every key point not in ``got``, in the question's order."""
    return [point for index, point in enumerate(q.key_points) if index not in got]


def tally(got: int, total: int) -> str:
    """'2 of 4 key points → Hard', the line shown before the rating is confirmed."""
    noun = "key point" if total == 1 else "key points"
    return f"{got} of {total} {noun} → {suggest_rating(got, total).label.title()}"


def parse_points(text: str, total: int) -> frozenset[int] | None:
    """The 0-based indices in a line such as ``1,3``, ``1 3``, ``2-4``, ``all`` or ``none``;
    None for an empty line (the checklist is skipped). Raises PointsError, saying what to type,
    for anything else."""
    text = text.strip().lower()
    if not text:
        return None
    if text in ALL_WORDS:
        return frozenset(range(total))
    if text in NONE_WORDS:
        return frozenset()
    how = f"type the numbers of the key points you got, 1–{total}, like 1,3 (or none, all)"
    picked: set[int] = set()
    for token in re.split(r"[\s,;]+", text):
        if not token:
            continue
        match = re.fullmatch(r"(\d{1,6})(?:-(\d{1,6}))?", token)
        if match is None:
            raise PointsError(f"{token!r} is not a key point number: {how}")
        low = int(match.group(1))
        high = int(match.group(2) or low)
        if low > high:
            raise PointsError(f"{token!r} runs backwards (write {high}-{low}): {how}")
        for number in (low, high):
            if not 1 <= number <= total:
                raise PointsError(
                    f"there are {total} key points, so {number} is not one of them: {how}"
                )
        picked.update(range(low - 1, high))
    return frozenset(picked)
