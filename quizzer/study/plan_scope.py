"""What a study plan covers and in what order new questions arrive. No store, no clock: only the
goal (quizzer.progress.goal), the bank and the interview coverage map.

In scope: every question whose topic (its first, most specific one) is in the track, asked on
the chosen companies' interview pages or picked by hand, plus every question tagged with a
chosen company or mapped to one of its interview lines; minus the dropped topics.

Each topic gets a weight: how often it is asked, times how much the track leans on it::

    weight = (asked + 1) x track weight

``asked`` counts the interview lines (question_bank/interview_map/<company>.yaml) whose mapped
questions are on the topic, over the chosen companies' pages (over every page when no company
is chosen). The track weight is 1-3 from tracks.yaml (2 for a topic picked by hand, 1 for a
topic the track does not list).

New questions come in bands of weight, most asked first: band 0 holds the topics within a
factor of two of the heaviest, band 1 the next factor of two, and so on. Within a band topics
follow the guide (module, chapter, topic order of topics.yaml), so prerequisites come before
what builds on them; within a topic, easiest first (and of equal difficulty, the questions the
chosen companies' pages call for first).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from quizzer.content.tracks import track_topic_weights

if TYPE_CHECKING:
    from quizzer.content.bank import Bank
    from quizzer.content.interview_map import InterviewMap
    from quizzer.content.models import AnyQuestion
    from quizzer.progress.goal import StudyGoal

HAND_PICKED_WEIGHT = 2
"""The track weight of a topic picked by hand (`--topic`), unless the track gives it more."""


@dataclass
class TopicScope:
    """One in-scope topic."""

    key: str
    weight: float
    """(asked + 1) x track weight; what the order and the proposed cuts go by."""
    asked: int
    """Interview lines asking about it (chosen companies' pages, or every page)."""
    track_weight: int
    band: int
    """0 for the most-asked topics, then one more per halving of the weight."""
    question_ids: list[str] = field(default_factory=list)
    """Its in-scope questions, in the order they are introduced."""


@dataclass
class Scope:
    """The questions a plan covers, in the order new ones arrive."""

    topics: dict[str, TopicScope]
    """In-scope topics, in introduction order."""
    order: list[AnyQuestion]
    """Every in-scope question, in introduction order."""
    company_ids: dict[str, set[str]]
    """Chosen company -> the in-scope questions its interview pages call for."""

    @property
    def ids(self) -> set[str]:
        """The in-scope question ids."""
        return {q.id for q in self.order}

    def topic_of(self, question: AnyQuestion) -> str:
        """The topic a question counts under: its first."""
        return question.topics[0]


def asked_counts(bank: Bank, mapped: InterviewMap, companies: tuple[str, ...]) -> Counter[str]:
    """Topic -> interview lines asking about it: each line of the companies' pages (of every
    page when none is given) counts once for each topic of the questions mapped to it."""
    counts: Counter[str] = Counter()
    chosen = set(companies)
    for line in mapped.lines:
        if chosen and bank.interviews[line.page].company not in chosen:
            continue
        topics = {bank.by_id[qid].topics[0] for qid in line.ids if qid in bank.by_id}
        counts.update(topics)
    return counts


def _company_topics(bank: Bank, mapped: InterviewMap, company: str) -> tuple[set[str], set[str]]:
    """The topics a company's pages ask about, and the questions mapped to or tagged with it."""
    ids = {
        qid
        for line in mapped.lines
        if bank.interviews[line.page].company == company
        for qid in line.ids
        if qid in bank.by_id
    }
    ids |= {q.id for q in bank.questions if company in q.company_keys}
    topics = {
        bank.by_id[qid].topics[0]
        for line in mapped.lines
        if bank.interviews[line.page].company == company
        for qid in line.ids
        if qid in bank.by_id
    }
    return topics, ids


def guide_order(bank: Bank) -> dict[str, int]:
    """Topic key -> its position in topics.yaml (module, chapter, topic)."""
    order: dict[str, int] = {}
    for module in bank.modules:
        for chapter in module.chapters:
            for topic in chapter.topics:
                order.setdefault(topic.key, len(order))
    return order


def build_scope(bank: Bank, goal: StudyGoal, mapped: InterviewMap) -> Scope:
    """The in-scope questions of ``goal``, their topics' weights, and the introduction order.
    Keys the bank does not know are skipped (quizzer.study.plan.goal_problems reports them)."""
    track = bank.tracks.get(goal.track) if goal.track else None
    track_weights = track_topic_weights(track, bank.modules) if track else {}
    companies = tuple(c for c in goal.companies if c in bank.companies)
    asked = asked_counts(bank, mapped, companies)
    company_topics: dict[str, set[str]] = {}
    company_ids: dict[str, set[str]] = {}
    for company in companies:
        company_topics[company], company_ids[company] = _company_topics(bank, mapped, company)
    hand = {t for t in goal.topics if t in bank.topics}
    dropped = set(goal.dropped)
    topic_keys = set(track_weights) | hand
    for topics in company_topics.values():
        topic_keys |= topics
    called_for = {qid for ids in company_ids.values() for qid in ids}
    members = [
        q
        for q in bank.questions
        if (q.topics[0] in topic_keys or q.id in called_for) and q.topics[0] not in dropped
    ]
    scopes: dict[str, TopicScope] = {}
    for q in members:
        key = q.topics[0]
        if key not in scopes:
            weight = track_weights.get(key, 1)
            if key in hand:
                weight = max(weight, HAND_PICKED_WEIGHT)
            scopes[key] = TopicScope(key, float((asked[key] + 1) * weight), asked[key], weight, 0)
    heaviest = max((t.weight for t in scopes.values()), default=1.0)
    for topic in scopes.values():
        topic.band = math.floor(math.log2(heaviest / topic.weight))
    place = guide_order(bank)
    ordered = sorted(scopes.values(), key=lambda t: (t.band, place.get(t.key, len(place))))
    by_topic: dict[str, list[AnyQuestion]] = {t.key: [] for t in ordered}
    # Easiest first; of equal difficulty, the questions the chosen companies' pages call for
    # (mapped to their lines or tagged with them) before the others.
    for q in sorted(bank.easiest_first(), key=lambda q: (q.difficulty, q.id not in called_for)):
        if q.topics[0] in by_topic and (q.topics[0] in topic_keys or q.id in called_for):
            by_topic[q.topics[0]].append(q)
    order: list[AnyQuestion] = []
    for topic in ordered:
        topic.question_ids = [q.id for q in by_topic[topic.key]]
        order += by_topic[topic.key]
    in_scope = {q.id for q in order}
    relevant = {
        company: {q.id for q in order if q.id in ids or q.topics[0] in company_topics[company]}
        & in_scope
        for company, ids in company_ids.items()
    }
    return Scope({t.key: t for t in ordered}, order, relevant)


_cached: list[tuple[Bank, StudyGoal, Scope]] = []


def scope_for(bank: Bank, goal: StudyGoal) -> Scope:
    """``build_scope`` with the bank's interview map, remembered for the last bank and goal
    (the queue asks for it on every session start)."""
    if _cached and _cached[0][0] is bank and _cached[0][1] == goal:
        return _cached[0][2]
    from quizzer.content.interview_map import load_map

    scope = build_scope(bank, goal, load_map(bank))
    _cached[:] = [(bank, goal, scope)]
    return scope
