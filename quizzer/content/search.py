"""Text search over questions: the one search `quizzer list --search` and the app's browser use.

A query is one phrase, looked for in each text of a question (id, prompt, answer, key points,
options, explanation, and their Chinese versions). Case, spaces, hyphens and punctuation are
ignored on both sides and full-width forms are folded (NFKC), so `flash attention` finds
FlashAttention and flash-attention, `all reduce` finds AllReduce and `kv cache` finds KV-cache.
Words are not searched apart: `all reduce` does not find every text with "all" in it. Chinese
is searched as written: `张量并行` finds the questions whose Chinese text contains it.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from quizzer.content.models import AnyQuestion, ChoiceQuestion, RecallQuestion

_NOT_WORD = re.compile(r"[\W_]+")
"""Everything that is not a letter or a digit (in any script): dropped before comparing."""


def fold(text: str) -> str:
    """``text`` as search compares it: NFKC, case-folded, letters and digits only."""
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", text).casefold())


def question_texts(q: AnyQuestion) -> tuple[str, ...]:
    """Every text of a question that search looks in: id, prompt, answer, key points, options
    and explanation, in English and in Chinese."""
    texts = [q.id, q.prompt, q.explanation]
    if isinstance(q, RecallQuestion):
        texts += [q.answer, *q.key_points]
    elif isinstance(q, ChoiceQuestion):
        texts += q.options
    if q.zh is not None:
        zh = q.zh
        texts += [zh.prompt, zh.answer or "", zh.explanation or ""]
        texts += zh.key_points or []
        texts += zh.options or []
    return tuple(texts)


@lru_cache(maxsize=16384)
def _folded(texts: tuple[str, ...]) -> str:
    # Joined with a separator that folding can never produce, so no word is found across
    # two fields (the end of the prompt running into the start of the explanation).
    return "\x00".join(fold(text) for text in texts)


def matches_search(q: AnyQuestion, query: str | None) -> bool:
    """Whether the question's text contains ``query`` (see the module doc). An empty query, or
    one of punctuation only, matches everything."""
    needle = fold(query or "")
    return not needle or needle in _folded(question_texts(q))


def text_matches(query: str, *texts: str) -> bool:
    """The same comparison over a few plain strings (a key and its names, in a picker)."""
    needle = fold(query)
    return not needle or any(needle in fold(text) for text in texts)
