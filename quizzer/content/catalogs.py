"""Pydantic models of the catalogs a question refers to: articles.yaml, companies.yaml,
interviews.yaml, readings.yaml, topics.yaml (modules, chapters, topics) and tracks.yaml.

Like models.py, every field carries a docstring; quizzer.content.schema_doc reads them from
this file's source too (the track table of question_bank/README.md comes from here)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from quizzer.content.strict import (
    CHAPTER_PATTERN,
    ID_PATTERN,
    KEBAB_RULE,
    KEY_PATTERN,
    Strict,
    check_key,
)


class Article(Strict):
    """A guide article or chapter page of AIInfraGuide (question_bank/articles.yaml)."""

    key: str
    """Stable key, e.g. `m4-c1-1.1`; chapter pages are `m<module>-c<chapter>`."""

    @field_validator("key")
    @classmethod
    def _key_pattern(cls, value: str) -> str:
        return check_key(
            value, ID_PATTERN, "article key: lower-case letters and digits, single - or . between"
        )

    kind: Literal["article", "chapter"]
    """`chapter` for a chapter landing page, `article` otherwise."""
    module: int
    """Module number: 1 prerequisites, 2 CUDA, 3 distributed training, 4 inference."""
    chapter: int | None
    """Chapter number within the module."""
    number: str | None
    """The article's number within its chapter, e.g. `2.1`."""
    title_en: str
    """English title."""
    title_zh: str
    """Chinese title, as on the site."""
    url: str
    """The page on https://caomaolufei.github.io/AIInfraGuide/."""


class Company(Strict):
    """A company with interview pages (question_bank/companies.yaml)."""

    key: str
    """Stable kebab-case key, e.g. `bytedance`."""

    @field_validator("key")
    @classmethod
    def _key_pattern(cls, value: str) -> str:
        return check_key(value, KEY_PATTERN, f"company {KEBAB_RULE}, e.g. bytedance")

    name_en: str
    """English name."""
    name_zh: str
    """Chinese name, as on the site."""
    tier: str
    """The site's tier grouping: T0–T5, or 综合 for mixed question sets."""
    pages: list[str]
    """The interview page files of this company."""


class InterviewPage(Strict):
    """An interview write-up page of AIInfraGuide (question_bank/interviews.yaml)."""

    file: str
    """The page's file name, e.g. `字节跳动-AI-Infra-一面.md`; a company tag's `source`."""
    company: str
    """The company key it belongs to."""

    @field_validator("company")
    @classmethod
    def _company_pattern(cls, value: str) -> str:
        return check_key(value, KEY_PATTERN, f"company {KEBAB_RULE}, e.g. bytedance")

    title: str
    """The page title, as on the site."""
    url: str
    """The page on https://caomaolufei.github.io/AIInfraGuide/."""
    lines: int
    """How many question lines the page has."""


class Reading(Strict):
    """A deep-dive (解读) post from the guide author's blog index (question_bank/readings.yaml)."""

    key: str = Field(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
    """Stable kebab-case key, e.g. `flashattention-2`."""
    title_zh: str = Field(min_length=1)
    """The post's title, as on the site (so it can be found there)."""
    title_en: str = Field(min_length=1)
    """An English title of our own."""
    description: str = Field(min_length=1)
    """The post's one-line description, as listed in the site's index."""
    section: str = Field(min_length=1)
    """Where the post is listed (the author's deep-dive index, 解读板块目录), so it can be found."""
    tags: list[str] = Field(default_factory=list)
    """Topic keys (question_bank/topics.yaml) the post explains."""
    url: str | None = Field(default=None, pattern=r"^https://caomaolufei\.github\.io/")
    """The post's address, only when established from the site's own source; else absent."""


class Topic(Strict):
    """A topic in the taxonomy (question_bank/topics.yaml)."""

    key: str
    """Stable kebab-case key; `quizzer new` writes its questions to
    questions/<module>/<key>.yaml."""

    @field_validator("key")
    @classmethod
    def _key_pattern(cls, value: str) -> str:
        return check_key(value, KEY_PATTERN, f"topic {KEBAB_RULE}, e.g. kv-cache")

    title_en: str
    """English title."""
    title_zh: str
    """Chinese title."""


class Chapter(Strict):
    """A chapter of the taxonomy, holding topics."""

    key: str
    """The chapter key, e.g. `m4-c2`, or `m4-beyond` for topics the guide does not cover."""

    @field_validator("key")
    @classmethod
    def _key_pattern(cls, value: str) -> str:
        return check_key(
            value, CHAPTER_PATTERN, "chapter key: m<module>-c<chapter> or m<module>-beyond"
        )

    title_en: str
    """English title."""
    title_zh: str
    """Chinese title."""
    topics: list[Topic]
    """The chapter's topics."""


class Module(Strict):
    """A module of the taxonomy, holding chapters."""

    module: int
    """Module number."""
    title_en: str
    """English title."""
    title_zh: str
    """Chinese title."""
    chapters: list[Chapter]
    """The module's chapters."""


Weight = Annotated[int, Field(ge=1, le=3, strict=True)]
"""A track's weight for a module or topic: 1, 2 or 3."""


class Track(Strict):
    """A study track (question_bank/tracks.yaml): the topics a kind of role leans on, weighted.
    A study plan (`quizzer plan --track KEY`) puts every question of these topics in scope and
    introduces the heavier topics first."""

    key: str
    """Stable kebab-case key, e.g. `inference`; what `quizzer plan --track` takes."""

    @field_validator("key")
    @classmethod
    def _key_pattern(cls, value: str) -> str:
        return check_key(value, KEY_PATTERN, f"track {KEBAB_RULE}, e.g. inference")

    title_en: str = Field(min_length=1)
    """English title, e.g. `Inference and serving`."""
    title_zh: str = Field(min_length=1)
    """Chinese title."""
    description: str = Field(min_length=1)
    """One sentence: the roles this track prepares for and what it covers."""
    modules: dict[int, Weight] = Field(default_factory=dict)
    """Module number (from topics.yaml) -> weight 1-3: every topic of the module is in the track
    with this weight, unless `topics` gives the topic its own."""
    topics: dict[str, Weight] = Field(default_factory=dict)
    """Topic key (question_bank/topics.yaml) -> weight 1-3: 3 the core of the role, 2 asked
    often alongside it, 1 background worth knowing. A topic listed here overrides its module's
    weight."""

    @model_validator(mode="after")
    def _not_empty(self) -> Track:
        if not self.modules and not self.topics:
            raise ValueError("a track needs at least one module or topic")
        return self
