"""The one clock. Everything asks ``now()``; ``QUIZZER_NOW`` fixes it for tests and replays."""

from __future__ import annotations

import os
from datetime import UTC, datetime


class ClockError(ValueError):
    """QUIZZER_NOW is set but is not an ISO 8601 time."""


def fixed() -> bool:
    """True when QUIZZER_NOW pins the clock (fuzzing is then off too)."""
    return bool(os.environ.get("QUIZZER_NOW"))


def parse_utc(text: str) -> datetime:
    """Parse ISO 8601; a naive time is taken as UTC, an aware one converted to UTC."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise ClockError(f"not an ISO 8601 time: {text!r}") from exc
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def now() -> datetime:
    """The current time in UTC, or QUIZZER_NOW when set."""
    override = os.environ.get("QUIZZER_NOW")
    if override:
        try:
            return parse_utc(override)
        except ClockError as exc:
            raise ClockError(f"QUIZZER_NOW: {exc}") from None
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """The one way times are written to the DB: UTC, microseconds always present, so
    string order is time order."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")
