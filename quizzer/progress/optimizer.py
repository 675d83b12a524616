"""Fitting the 21 FSRS-6 parameters to the user's own review history (`quizzer optimize`).

The fitting and scoring are fsrs-rs's, through ``fsrs_rs_python`` (imported only here, and only
when a fit is asked for: it is a compiled extension nobody else needs at start-up). quizzer
decides what to feed it, whether the result is better than what is in use, and saves it in
the settings, where every scheduler built afterwards picks it up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from quizzer.progress.records import RatedReview

if TYPE_CHECKING:
    from quizzer.progress.scheduling import SchedulerSettings
    from quizzer.progress.store import Store

MIN_REVIEWS = 400
"""Fewer ratings than this are too few to fit 21 parameters without chasing noise."""
MIN_LATER_REVIEWS = 100
"""Ratings made a day or more after the question's previous one: the only ones FSRS learns
forgetting from. fsrs-rs fits all 21 parameters only from 64 of them; the held-out check fits
on 80%, so 100 keeps that check a real fit too."""
HELD_OUT = 0.2
"""The most recent share of the history scored, not fitted, in the chronological check."""
DECIMALS = 4
"""Saved parameters are rounded as Anki shows them."""

Progress = Callable[[float, str], None]
"""Told (fraction done, what is happening now) as a fit goes along."""


class NotEnoughHistory(Exception):
    """Too little history to fit; the message says how much there is and how much is needed."""


@dataclass(frozen=True)
class Score:
    """How well a parameter set predicts recall on some ratings (lower is better for both)."""

    log_loss: float
    """Mean cross-entropy between predicted recall and what happened (recent ones weigh more,
    as fsrs-rs and Anki score it)."""
    rmse: float
    """RMSE (bins): predicted against actual recall rate, over bins of similar reviews."""

    def as_dict(self) -> dict[str, float]:
        """The JSON shape."""
        return {"log_loss": round(self.log_loss, 6), "rmse_bins": round(self.rmse, 6)}


@dataclass(frozen=True)
class FitReport:
    """What `quizzer optimize` found and did."""

    reviews: int
    """Ratings read from the history."""
    questions: int
    later_reviews: int
    """Ratings a day or more after the question's previous one (what FSRS learns from)."""
    current: tuple[float, ...]
    """The parameters in use before the fit."""
    current_is_default: bool
    fitted: tuple[float, ...]
    """The parameters fitted to the whole history (rounded, as they would be saved)."""
    before: Score
    """The current parameters, scored on the whole history."""
    after: Score
    """The fitted parameters, scored on the same whole history."""
    held_out_reviews: int
    """Later-day ratings in the most recent 20%, which the held-out fit never saw."""
    held_out_before: Score
    """The current parameters on the held-out ratings."""
    held_out_after: Score
    """Parameters fitted on the older 80% only, on the held-out ratings."""
    saved: bool = False
    cards_updated: int = 0
    """Cards whose memory state was recomputed with the saved parameters."""
    verdict: str = field(default="")
    """One sentence: why the fitted parameters were saved or kept out."""

    @property
    def better(self) -> bool:
        """Whether the fit beats what is in use: lower log loss on the whole history, and no
        higher on the held-out ratings (so it is not just memorising the past)."""
        return (
            self.after.log_loss < self.before.log_loss
            and self.held_out_after.log_loss <= self.held_out_before.log_loss
        )

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of `quizzer optimize --json`."""
        return {
            "reviews": self.reviews,
            "questions": self.questions,
            "later_reviews": self.later_reviews,
            "saved": self.saved,
            "verdict": self.verdict,
            "cards_updated": self.cards_updated,
            "current": {
                "source": "default" if self.current_is_default else "yours",
                "parameters": list(self.current),
                "whole_history": self.before.as_dict(),
                "held_out": self.held_out_before.as_dict(),
            },
            "fitted": {
                "parameters": list(self.fitted),
                "whole_history": self.after.as_dict(),
                "held_out": self.held_out_after.as_dict(),
            },
            "held_out_reviews": self.held_out_reviews,
            "held_out_share": HELD_OUT,
        }


@dataclass
class _Items:
    """The history as fsrs-rs training items, oldest last rating first."""

    items: list[Any]
    reviews: int
    questions: int


def _items(history: Sequence[RatedReview]) -> _Items:
    """fsrs-rs items from ratings grouped by question, oldest first: one item for each rating
    made a day or more after the previous one, carrying the question's ratings up to it.

    Days are whole days elapsed (``timedelta.days``), as the ``fsrs`` scheduler counts them,
    so the fitted curve is the one the scheduler applies."""
    from fsrs_rs_python import FSRSItem, FSRSReview

    dated: list[tuple[datetime, Any]] = []
    questions = 0
    reviews = 0
    previous_id: str | None = None
    ratings: list[Any] = []
    last = datetime.min
    for question_id, reviewed_at, rating in history:
        if not 1 <= rating <= 4:
            continue
        moment = datetime.fromisoformat(reviewed_at)
        if question_id != previous_id:
            previous_id, ratings, last = question_id, [], moment
            questions += 1
        reviews += 1
        elapsed = max(0, (moment - last).days)
        ratings.append(FSRSReview(rating, elapsed))
        last = moment
        if elapsed > 0:
            item = FSRSItem(list(ratings))
            if item.long_term_review_cnt() > 0:
                dated.append((moment, item))
    dated.sort(key=lambda pair: pair[0])
    return _Items([item for _, item in dated], reviews, questions)


def _fit(items: list[Any], relearning_steps: int) -> tuple[float, ...]:
    """Parameters fitted by fsrs-rs, rounded and kept inside the bounds the ``fsrs`` scheduler
    accepts (fsrs-rs works in float32, so a bound can come back a hair outside)."""
    from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS
    from fsrs_rs_python import FSRS

    raw = FSRS([]).compute_parameters(
        items, enable_short_term=True, num_relearning_steps=relearning_steps
    )
    return tuple(
        min(high, max(low, round(float(value), DECIMALS)))
        for value, low, high in zip(
            raw, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS, strict=True
        )
    )


def _score(parameters: Sequence[float], items: list[Any]) -> Score:
    from fsrs_rs_python import FSRS

    result = FSRS(list(parameters)).evaluate(items)
    return Score(float(result.log_loss), float(result.rmse_bins))


def fit_history(
    history: Sequence[RatedReview],
    current: Sequence[float] | None,
    *,
    relearning_steps: int = 1,
    progress: Progress | None = None,
) -> FitReport:
    """Fit FSRS-6 to ``history`` (ratings grouped by question, oldest first) and score the
    fit against ``current`` (None = the defaults): on the whole history, and on its most
    recent 20% after fitting on the older 80% only. Saves nothing. ``relearning_steps``: how
    many relearning steps the user has, which fsrs-rs takes into account for same-day reviews.

    Raises NotEnoughHistory when the history is too short to fit."""
    from quizzer.progress.scheduling import DEFAULT_PARAMETERS

    def step(done: float, what: str) -> None:
        if progress is not None:
            progress(done, what)

    step(0.05, "reading your history")
    data = _items(history)
    later = len(data.items)
    if data.reviews < MIN_REVIEWS or later < MIN_LATER_REVIEWS:
        raise NotEnoughHistory(
            f"too little history to fit FSRS to you: {data.reviews} review(s), {later} of them "
            "made a day or more after the question's previous review. Fitting needs at least "
            f"{MIN_REVIEWS} reviews with {MIN_LATER_REVIEWS} or more such later-day ones "
            f"(about {max(MIN_REVIEWS - data.reviews, MIN_LATER_REVIEWS - later, 0)} more); "
            "until then the default parameters, fitted to millions of reviews, serve you well."
        )
    current_weights = tuple(DEFAULT_PARAMETERS if current is None else current)
    step(0.15, f"fitting 21 parameters to {data.reviews} reviews")
    fitted = _fit(data.items, relearning_steps)
    step(0.55, "fitting on the older 80% for the held-out check")
    cut = int(later * (1 - HELD_OUT))
    train, test = data.items[:cut], data.items[cut:]
    fitted_on_train = _fit(train, relearning_steps)
    step(0.9, "scoring both parameter sets")
    report = FitReport(
        reviews=data.reviews,
        questions=data.questions,
        later_reviews=later,
        current=current_weights,
        current_is_default=current is None,
        fitted=fitted,
        before=_score(current_weights, data.items),
        after=_score(fitted, data.items),
        held_out_reviews=len(test),
        held_out_before=_score(current_weights, test),
        held_out_after=_score(fitted_on_train, test),
    )
    step(1.0, "done")
    return report


def memory_states(
    history: Sequence[RatedReview], settings: SchedulerSettings
) -> dict[str, tuple[float, float]]:
    """Each question's stability and difficulty after replaying its ratings with ``settings``
    (fuzz plays no part: it moves due dates, not memory)."""
    from quizzer.progress.scheduling import Grade, make_scheduler, new_card, review

    scheduler = make_scheduler(settings)
    states: dict[str, tuple[float, float]] = {}
    question_id: str | None = None
    card = None
    for qid, reviewed_at, rating in history:
        if not 1 <= rating <= 4:
            continue
        moment = datetime.fromisoformat(reviewed_at)
        if qid != question_id or card is None:
            question_id, card = qid, new_card(moment)
        card = review(scheduler, card, Grade(rating), moment)
        if card.stability is not None and card.difficulty is not None:
            states[qid] = (card.stability, card.difficulty)
    return states


def use_parameters(store: Store, parameters: tuple[float, ...] | None) -> int:
    """Save ``parameters`` (None = the defaults) and recompute every studied card's memory
    state with them; due dates stay. Returns the cards updated."""
    from dataclasses import replace

    from quizzer.progress.settings import scheduler_settings

    settings = replace(scheduler_settings(store), parameters=parameters, fuzz=False)
    states = memory_states(store.rated_history(), settings)
    with store.write():  # one transaction: the parameters and the states they give, or neither
        store.set_setting("fsrs_parameters", None if parameters is None else list(parameters))
        return store.set_memory_states(states)


def optimize(store: Store, progress: Progress | None = None) -> FitReport:
    """Fit FSRS-6 to the history in ``store``; save the parameters only if they fit better
    than the ones in use, and then bring the cards' memory states in line with them."""
    from dataclasses import replace

    from quizzer.progress.settings import stored_parameters, stored_setting

    current = stored_parameters(store)
    relearning = len(stored_setting(store, "relearning_steps_min"))
    report = fit_history(
        store.rated_history(), current, relearning_steps=relearning, progress=progress
    )
    which = "default" if current is None else "current"
    if not report.better:
        if report.after.log_loss >= report.before.log_loss:
            why = "the fitted ones predict your history no better"
        else:
            why = (
                "the fitted ones predict your held-out recent reviews worse, a sign that "
                "they fit noise in the older ones"
            )
        return replace(report, verdict=f"Kept the {which} parameters: {why}.")
    updated = use_parameters(store, report.fitted)
    return replace(
        report,
        saved=True,
        cards_updated=updated,
        verdict=(
            "Saved: every review from now on is scheduled with the fitted parameters "
            f"(lower log loss than the {which} ones on your whole history, and no higher on "
            "the held-out reviews)."
        ),
    )


def reset(store: Store) -> int:
    """Go back to the default parameters; returns the cards whose memory state changed."""
    return use_parameters(store, None)


def report_lines(report: FitReport) -> list[str]:
    """The report as text lines, for the command line and the app alike."""
    which = "default parameters" if report.current_is_default else "your current ones"

    def row(label: str, whole: Score, held: Score) -> str:
        return (
            f"  {label:<20} {whole.log_loss:>8.4f} {whole.rmse:>7.2%}"
            f"   {held.log_loss:>8.4f} {held.rmse:>7.2%}"
        )

    lines = [
        f"Fitted FSRS-6 to {report.reviews:,} reviews of {report.questions:,} questions "
        f"({report.later_reviews:,} made a day or more after the question's previous review: "
        "what FSRS learns forgetting from).",
        "",
        f"  {'':<20} {'whole history':>16}   {'newest 20%, held out':>20}",
        f"  {'':<20} {'log loss':>8} {'RMSE':>7}   {'log loss':>8} {'RMSE':>7}",
        row(which, report.before, report.held_out_before),
        row("fitted to you", report.after, report.held_out_after),
        "",
        f"Lower is better. Held out: the {report.held_out_reviews:,} most recent later-day "
        "reviews, scored after fitting on the older 80% only.",
        report.verdict,
    ]
    if report.saved:
        lines.append(
            f"Memory states of {report.cards_updated:,} cards recomputed with them; "
            "due dates unchanged."
        )
    lines.append("Fitted parameters: " + ", ".join(f"{w:g}" for w in report.fitted))
    if report.saved:
        lines.append("Back to the defaults at any time: quizzer optimize --reset")
    return lines
