"""What a loaded question bank is: the Bank (questions, catalogs, where each question is
defined) that load_bank (quizzer.content.bank) returns."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from quizzer.content.catalogs import Article, Company, InterviewPage, Module, Reading, Topic, Track
from quizzer.content.language import reading_title, title_in
from quizzer.content.models import AnyQuestion, CodeQuestion


@dataclass(frozen=True)
class SourceLoc:
    """Where a question is defined."""

    path: str
    line: int


@dataclass
class Bank:
    """The loaded, cross-checked question bank."""

    root: Path
    questions: list[AnyQuestion]
    articles: dict[str, Article]
    companies: dict[str, Company]
    modules: list[Module]
    topics: dict[str, Topic]
    topic_chapter: dict[str, str]
    """Topic key -> chapter key (m<module>-c<chapter>)."""
    locations: dict[str, SourceLoc]
    """Question id -> where it is defined."""
    files: list[str] = field(default_factory=list)
    """Question files, relative to the bank root."""
    previous: dict[str, str] = field(default_factory=dict)
    """Old id -> current id, from `previous_ids`."""
    interviews: dict[str, InterviewPage] = field(default_factory=dict)
    """Interview page file -> the page (question_bank/interviews.yaml)."""
    readings: dict[str, Reading] = field(default_factory=dict)
    """Reading key -> the deep-dive post (question_bank/readings.yaml)."""
    tracks: dict[str, Track] = field(default_factory=dict)
    """Track key -> the study track (question_bank/tracks.yaml)."""

    def __post_init__(self) -> None:
        self.by_id: dict[str, AnyQuestion] = {q.id: q for q in self.questions}

    @property
    def exercises(self) -> list[CodeQuestion]:
        """The code exercises (`kind: code`) among the questions, in bank order."""
        return [q for q in self.questions if isinstance(q, CodeQuestion)]

    def easiest_first(self) -> list[AnyQuestion]:
        """Questions by difficulty, bank order within a difficulty (computed once)."""
        cached: list[AnyQuestion] | None = self.__dict__.get("_easiest_first")
        if cached is None:
            cached = sorted(self.questions, key=lambda q: q.difficulty)
            self.__dict__["_easiest_first"] = cached
        return cached

    def get(self, question_id: str) -> AnyQuestion | None:
        """The question with this id (or an old id of it), if any."""
        found = self.by_id.get(question_id)
        if found is None and question_id in self.previous:
            found = self.by_id.get(self.previous[question_id])
        return found

    def module_of(self, question: AnyQuestion) -> int:
        """The module of the question's main article, or of its first topic's chapter when
        the question is beyond the guide (no article)."""
        if question.articles:
            return self.articles[question.articles[0]].module
        chapter = self.topic_chapter[question.topics[0]]
        return int(chapter[1 : chapter.index("-")])

    def links(self, question: AnyQuestion, lang: str = "en") -> list[tuple[str, str]]:
        """(title, url) of everything the question links back to: its articles first, then the
        interview pages that asked it, then its references. The first is the main link."""
        found = [
            (
                title_in(self.articles[key], lang),
                self.articles[key].url,
            )
            for key in question.articles
        ]
        for tag in question.companies:
            page = self.interviews.get(tag.source)
            if page is not None:
                found.append((page.title, page.url))
        found += [(ref.title, ref.url) for ref in question.references]
        return list(dict.fromkeys(found))

    def further_reading(self, question: AnyQuestion, lang: str = "en") -> list[str]:
        """One line per deep-dive post the question cites: its title, and its address when
        known, else where the site lists it (no address is ever guessed)."""
        lines = []
        for key in question.readings:
            reading = self.readings[key]
            title = reading_title(reading, lang)
            place = reading.url or f"find it by its title in {reading.section}"
            lines.append(f"{title}: {place}")
        return lines

    def main_link(self, question: AnyQuestion) -> tuple[str, str]:
        """(title, url) of the question's main link (see ``links``)."""
        return self.links(question)[0]

    def content_hash(self, question: AnyQuestion) -> str:
        """A short hash of the question's content, to notice edits after a review."""
        blob = question.model_dump_json(exclude={"previous_ids", "companies"})
        return hashlib.sha256(blob.encode()).hexdigest()[:16]
