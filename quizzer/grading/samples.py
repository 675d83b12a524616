"""Sample values for numeric questions, so listings and previews show a readable prompt.

A numeric prompt is a template (`{gpu.max_threads_per_sm} threads`); `list`, `show` and the
app's browser fill it with one fixed draw (seed ``SAMPLE_SEED``), the same every time, so a
listing does not change between runs. A study session still draws fresh values per attempt.
"""

from __future__ import annotations

import contextlib

from quizzer.content.language import localise
from quizzer.content.models import AnyQuestion, NumericQuestion
from quizzer.grading.calc import Attempt, CalcError, prepare

SAMPLE_SEED = 0
"""The seed of the sample draw (`quizzer solve ID --seed 0` shows the same values)."""

_cache: dict[str, tuple[NumericQuestion, Attempt | None]] = {}


def sample_attempt(q: NumericQuestion) -> Attempt | None:
    """The sample draw of ``q`` with its answer, or None when the solution cannot compute it
    (the bank's validation reports that; a listing just shows the template)."""
    cached = _cache.get(q.id)
    if cached is not None and cached[0] is q:
        return cached[1]
    try:
        attempt: Attempt | None = prepare(q, SAMPLE_SEED)
    except CalcError:
        attempt = None
    _cache[q.id] = (q, attempt)
    return attempt


def sample_prompt(q: AnyQuestion, lang: str = "en") -> str:
    """The prompt in ``lang`` (English when there is no Chinese), a numeric one filled with the
    sample values."""
    text = localise(q, lang).prompt
    if not isinstance(q, NumericQuestion):
        return text
    attempt = sample_attempt(q)
    if attempt is None:
        return text
    try:
        return attempt.prompt(text)
    except CalcError:  # a Chinese template naming a field the English one does not
        return text


def sample_worked(q: AnyQuestion, lang: str = "en") -> str | None:
    """A numeric question's worked solution in ``lang`` filled with the sample values: English
    where it has no Chinese one, or where its Chinese one does not render; None for other kinds
    and when the sample draw cannot be computed."""
    if not isinstance(q, NumericQuestion):
        return None
    attempt = sample_attempt(q)
    if attempt is None:
        return None
    for template in (localise(q, lang).worked, q.worked):
        if template is not None:
            with contextlib.suppress(CalcError):
                return attempt.worked(template)
    return None
