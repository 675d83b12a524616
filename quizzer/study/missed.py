"""The key points a user misses most often, from the recall answers self-graded with the
checklist (quizzer.study.selfgrade), for `quizzer weak` and the Stats screen.

Only the last RECENT_DAYS count, as for the weakness score: a point missed long ago and got
ever since is not weak any more. A point counts against the question's current key points, so
a point edited or removed from the bank drops out rather than lingering under its old text.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from quizzer.base.clock import iso
from quizzer.content.bank import Bank
from quizzer.content.models import RecallQuestion
from quizzer.progress.store import Store
from quizzer.study.accuracy import RECENT_DAYS
from quizzer.study.selfgrade import shown_points


@dataclass
class MissedPoint:
    """One key point of one question, and how often it was missed."""

    question_id: str
    number: int
    """Its position among the question's key points, from 1 (the key that ticks it)."""
    point: str
    """Its English text."""
    missed: int
    """Self-graded reviews of the question that missed it."""
    checked: int
    """Self-graded reviews of the question in the window (each got or missed it)."""
    last_missed: str
    """When it was last missed (ISO time, UTC)."""
    got_last_time: bool
    """Whether the latest self-graded review of the question got it."""

    @property
    def share(self) -> float:
        """How often it was missed when checked."""
        return self.missed / self.checked if self.checked else 0.0

    def text(self, bank: Bank, lang: str = "en") -> str:
        """The point as shown in ``lang`` (English when the question has no such version)."""
        q = bank.by_id.get(self.question_id)
        if isinstance(q, RecallQuestion) and self.number <= len(q.key_points):
            return shown_points(q, lang)[self.number - 1]
        return self.point

    def as_json(self, bank: Bank) -> dict[str, Any]:
        """Plain data for --json."""
        q = bank.by_id.get(self.question_id)
        return {
            "question_id": self.question_id,
            "prompt": prompt_line(q.prompt) if q is not None else None,
            "point_number": self.number,
            "point": self.point,
            "missed": self.missed,
            "checked": self.checked,
            "share": round(self.share, 4),
            "last_missed": self.last_missed,
            "got_last_time": self.got_last_time,
        }


def prompt_line(prompt: str, width: int = 100) -> str:
    """The first line of a prompt, cut to ``width`` characters."""
    line = prompt.strip().splitlines()[0] if prompt.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def missed_points(
    bank: Bank, store: Store, now: datetime, *, days: int = RECENT_DAYS
) -> list[MissedPoint]:
    """Every key point missed at least once in the last ``days`` days: the most often missed
    first, then the largest share of checks missed, then the most recently missed."""
    checks = store.point_checks(iso(now - timedelta(days=days)))
    per_question: dict[str, list[tuple[str, set[str]]]] = {}
    for check in checks:
        per_question.setdefault(check.question_id, []).append(
            (check.reviewed_at, set(check.missed))
        )
    found: list[MissedPoint] = []
    for question_id, history in per_question.items():
        q = bank.by_id.get(question_id)
        if not isinstance(q, RecallQuestion):
            continue  # removed from the bank, or no longer a recall question
        for index, point in enumerate(q.key_points):
            misses = [when for when, missed in history if point in missed]
            if not misses:
                continue
            found.append(
                MissedPoint(
                    question_id=question_id,
                    number=index + 1,
                    point=point,
                    missed=len(misses),
                    checked=len(history),
                    last_missed=max(misses),
                    got_last_time=point not in history[-1][1],
                )
            )
    found.sort(key=lambda m: (m.question_id, m.number))
    found.sort(key=lambda m: m.last_missed, reverse=True)
    found.sort(key=lambda m: (-m.missed, -m.share))
    return found
