"""The typed shapes the store hands out, and the rules about them that more than one query
needs (what a lapse is, when a card is a leech). No SQL here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, TypedDict

if TYPE_CHECKING:
    from fsrs import Card

LEECH_LAPSES = 8
"""A question forgotten this many times is a leech, as in Anki."""


def is_lapse(rating: int, state_before: str) -> bool:
    """The one lapse rule: Again (rating 1) on a card that was in the review state."""
    return rating == 1 and state_before == "review"


@dataclass
class CardRow:
    """One question's scheduling state and counters.

    The FSRS card is parsed from JSON only when asked for: queues and stats read the plain
    columns, which keeps them fast with thousands of cards."""

    question_id: str
    card_json: str | None
    """The full FSRS card as JSON; None in bulk listings (use Store.card for one card)."""
    state: str
    stability: float | None
    due: str
    """ISO time in UTC (clock.iso), so string comparison is time comparison."""
    last_review: str | None
    reps: int
    lapses: int
    correct: int
    graded: int
    suspended: bool
    buried_until: str | None
    content_hash: str | None

    @property
    def card(self) -> Card:
        """The fsrs Card (parsed on first use)."""
        cached = self.__dict__.get("_card")
        if cached is None:
            if self.card_json is None:
                raise ValueError("bulk card rows carry no FSRS card; use Store.card(id)")
            from quizzer.progress.scheduling import card_from_json

            cached = card_from_json(self.card_json)
            self.__dict__["_card"] = cached
        return cached

    @property
    def reviewed(self) -> bool:
        """Whether the question was ever rated."""
        return self.last_review is not None

    @property
    def leech(self) -> bool:
        """Lapsed often enough to be flagged."""
        return self.lapses >= LEECH_LAPSES


class CardCounts(NamedTuple):
    """The counters kept on a card: added to it by one review, or recomputed from history."""

    reps: int
    lapses: int
    correct: int
    graded: int

    @classmethod
    def of_review(cls, rating: int, state_before: str, correct: bool | int | None) -> CardCounts:
        """What one review adds: a rep, a lapse by the lapse rule, and a correct and a graded
        answer when it was checked (``correct`` None: not checked)."""
        return cls(
            reps=1,
            lapses=int(is_lapse(rating, state_before)),
            correct=int(bool(correct)),
            graded=int(correct is not None),
        )


class ReviewRow(TypedDict):
    """One row of the reviews table."""

    id: int
    question_id: str
    reviewed_at: str
    """ISO time in UTC (clock.iso)."""
    rating: int
    answer: str | None
    correct: int | None
    """1 right, 0 wrong, None when not auto-graded."""
    duration_ms: int | None
    seed: int | None
    session_id: int | None
    state_before: str | None
    card_before: str | None
    retrievability: float | None
    mode: str | None
    uid: str | None
    missed_points: str | None
    """JSON list of the key points a self-graded recall answer missed; None without checklist."""


class DueRow(NamedTuple):
    """A card that is due now: what its recall probability is computed from."""

    question_id: str
    stability: float | None
    last_review: str


class PassCount(NamedTuple):
    """How many reviews there were, and how many of them were not Again."""

    total: int
    passed: int


class RecentCounts(NamedTuple):
    """One question's reviews in a recent window, and how many were Again."""

    reviews: int
    fails: int


class HistoryRow(NamedTuple):
    """One review of a question, as needed to replay its card."""

    review_id: int
    reviewed_at: str
    rating: int
    correct: int | None


class RatedReview(NamedTuple):
    """One rating in the history, as the FSRS optimizer reads it."""

    question_id: str
    reviewed_at: str
    """ISO time in UTC (clock.iso)."""
    rating: int


class CardJson(NamedTuple):
    """A studied card's full FSRS state, as a simulation starts from it."""

    question_id: str
    card_json: str


class PointCheck(NamedTuple):
    """One review rated with the key-point checklist."""

    question_id: str
    reviewed_at: str
    """ISO time in UTC (clock.iso)."""
    missed: list[str]
    """The English text of each key point missed (empty: every one was got)."""


class SessionStart(NamedTuple):
    """A recorded study session: its id and when it began."""

    session_id: int
    started_at: str


class ImportedReview(TypedDict):
    """A review read from an export, checked and ready to insert."""

    uid: str
    question_id: str
    reviewed_at: str
    """ISO time in UTC (clock.iso)."""
    rating: int
    answer: str | None
    correct: int | None
    duration_ms: int | None
    seed: int | None
    mode: str
    missed_points: list[str] | None
    """The key points the answer missed (None: rated without the checklist)."""
