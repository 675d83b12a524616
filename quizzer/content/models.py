"""Pydantic content models: the schema of a question file.

This module is the schema reference. Every field carries a docstring, and
question_bank/README.md and question_bank/question.schema.json are generated from it
(``quizzer schema``), with a test that keeps them in step.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    WithJsonSchema,
    field_validator,
    model_validator,
)

ID_PATTERN = r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$"
"""Ids are stable kebab-case: lower-case letters, digits and single hyphens (dots allowed)."""

KEY_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
"""Topic and company keys: kebab-case, lower-case letters and digits joined by single hyphens.
A topic key names a file (questions/<module>/<topic>.yaml), so nothing else may appear in it."""
CHAPTER_PATTERN = r"^m[0-9]+-(?:c[0-9]+|beyond)$"
"""Chapter keys: ``m<module>-c<chapter>``, or ``m<module>-beyond`` for topics beyond the guide."""

OPTION_LETTERS = "ABCDEFGHI"
"""Choice options are labelled A, B, C … in order; at most nine, so keys 1–9 can pick them."""


def _check_key(value: str, pattern: str, what: str) -> str:
    if re.fullmatch(pattern, value) is None:
        raise ValueError(f"{value!r} is not a valid {what}")
    return value


_KEBAB = "key: lower-case letters and digits joined by single hyphens"


class Strict(BaseModel):
    """Base for every content model: unknown fields are an error, docstrings become descriptions."""

    # defer_build: schemas are built on first validation, so loading a cached bank (which
    # never validates) does not pay for them at start-up. The attribute docstrings are read
    # from this file's source by quizzer.content.schema_doc when the schema is generated,
    # rather than by pydantic at import (use_attribute_docstrings costs ~50 ms per start).
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class CompanyTag(Strict):
    """A company that asked about this subject, traced to the interview page that shows it."""

    key: str
    """A key from question_bank/companies.yaml, e.g. `bytedance`."""
    source: str
    """The interview page's `file` (from interviews.json) that asked about this subject,
    e.g. `字节跳动-AI-Infra-一面.md`. It must be one of that company's `pages`."""


class Reference(Strict):
    """A canonical public reference outside the guide."""

    title: str = Field(min_length=1)
    """What the link is, e.g. `Proximal Policy Optimization Algorithms (arXiv)`."""
    url: str = Field(pattern=r"^https://[^\s]+$")
    """Its address (https only)."""


class ZhBlock(Strict):
    """The Chinese version of a question. Fields left out fall back to English."""

    prompt: str = Field(min_length=1)
    """The prompt in natural technical Chinese (Markdown); keep English terms engineers keep."""
    answer: str | None = None
    """Recall only: the model answer in Chinese."""
    key_points: list[str] | None = None
    """Recall only: the key points in Chinese, in the same order as the English ones."""
    options: list[str] | None = None
    """Choice only: the options in Chinese, in the same order as the English ones."""
    explanation: str | None = None
    """The explanation in Chinese."""
    worked: str | None = None
    """Numeric only: the worked-solution template in Chinese."""
    hints: list[str] | None = None
    """Code only: the hints in Chinese, in the same order as the English ones."""


class QuestionBase(Strict):
    """Fields shared by every kind of question."""

    id: str = Field(pattern=ID_PATTERN)
    """Stable kebab-case id, unique across the bank. Progress is keyed on it: to rename a
    question, change `id` and put the old one in `previous_ids`."""
    prompt: str
    """The question, in Markdown, asked the way an interviewer would ask it. In numeric
    questions it is a template: `{param}` and `{preset.field}` are filled per attempt."""
    explanation: str = Field(min_length=1)
    """Markdown that teaches the why: the reason, the intuition, the common trap."""
    topics: list[str] = Field(min_length=1)
    """Topic keys from question_bank/topics.yaml, most specific first."""
    articles: list[str] = Field(default_factory=list)
    """Article keys from question_bank/articles.yaml; the first is the main link. A question on a
    subject the guide does not cover leaves this empty and links to the interview pages that
    asked it (its `companies`); every question has at least one article or one company tag."""
    companies: list[CompanyTag] = Field(default_factory=list)
    """Companies whose interview pages asked about this subject, each with its source page."""
    difficulty: int = Field(ge=1, le=5)
    """1 definition · 2 mechanism · 3 trade-off or derivation · 4 design under constraints ·
    5 the follow-up that separates senior candidates."""
    references: list[Reference] = Field(default_factory=list)
    """Canonical public references beyond the guide (an arXiv abstract page, a library's official
    documentation), only where the address is certain. Never an invented link."""
    readings: list[str] = Field(default_factory=list)
    """Keys of deep-dive posts (question_bank/readings.yaml) worth reading after this question:
    shown as "Further reading" beside the article links."""
    previous_ids: list[str] = Field(default_factory=list)
    """Ids this question had before; their review history carries over to this one."""
    zh: ZhBlock | None = None
    """Optional Chinese version of the prompt, answer and explanation."""

    @property
    def company_keys(self) -> list[str]:
        """The tagged companies, each once, in tag order (a company can be tagged from several
        of its interview pages)."""
        return list(dict.fromkeys(tag.key for tag in self.companies))

    @model_validator(mode="after")
    def _links_back(self) -> QuestionBase:
        if not self.articles and not self.companies:
            raise ValueError(
                "a question needs at least one article or one company tag (its interview page), "
                "so it links back to where it comes from"
            )
        return self

    @field_validator("prompt")
    @classmethod
    def _prompt_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the prompt is empty")
        return value


class RecallQuestion(QuestionBase):
    """An open question the user answers aloud or in writing, then grades against key points."""

    kind: Literal["recall"]
    """`recall`: self-graded, with a model answer and key points."""
    answer: str = Field(min_length=1)
    """What a strong candidate would say in 30–60 seconds (Markdown)."""
    key_points: list[str] = Field(min_length=1)
    """The 3–5 things an interviewer listens for; the user ticks them off to grade honestly."""


class ChoiceQuestion(QuestionBase):
    """A multiple-choice question, graded automatically."""

    kind: Literal["choice"]
    """`choice`: one or several correct options among 2–9."""
    options: list[str] = Field(min_length=2, max_length=9)
    """The options, labelled A, B, C … in this order. Distractors are real candidates' mistakes."""
    correct: Annotated[
        list[str],
        WithJsonSchema(
            {
                "anyOf": [
                    {"type": "string", "pattern": "^[A-I]$"},
                    {
                        "type": "array",
                        "items": {"type": "string", "pattern": "^[A-I]$"},
                        "minItems": 1,
                    },
                ]
            }
        ),
    ] = Field(min_length=1)
    """The letter(s) of the correct option(s), e.g. `B` or `[A, C]`."""

    @field_validator("correct", mode="before")
    @classmethod
    def _one_letter_is_a_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [value]
        return value

    @model_validator(mode="after")
    def _correct_among_options(self) -> ChoiceQuestion:
        allowed = OPTION_LETTERS[: len(self.options)]
        for letter in self.correct:
            if letter not in allowed:
                raise ValueError(
                    f"correct answer {letter!r} is not among the options "
                    f"({allowed[0]}–{allowed[-1]})"
                )
        return self

    def correct_indexes(self) -> list[int]:
        """0-based indexes of the correct options."""
        return [OPTION_LETTERS.index(letter) for letter in self.correct]


class ParamSpec(Strict):
    """How one parameter of a numeric question is drawn. Give exactly one of `range`,
    `choose` or `value`, or `choose` with `range` (attempts draw from `choose`; `--set` also
    takes any value in `range`, such as a figure from a paper); add `preset` to draw named
    real-world configs."""

    range: tuple[int | float, int | float] | None = None
    """Inclusive [low, high]. Integers if both ends and `step` are integers. Next to `choose`,
    nothing is drawn from it: it is what `--set` accepts besides the listed values."""
    step: int | float | None = None
    """Grid step for `range` (values low, low+step, …). Without it a float range is continuous."""
    log: bool = False
    """Draw a `range` uniformly in log space (for quantities spanning orders of magnitude)."""
    choose: list[Any] | None = None
    """Pick one of these values. With `preset`, these are preset names (all presets if omitted)."""
    value: Any = None
    """A fixed value."""
    preset: Literal["models", "gpus", "dtypes"] | None = None
    """Draw from question_bank/data/<preset>.yaml; the solution receives the whole record and
    the prompt can use its fields as `{name.field}`."""

    @model_validator(mode="after")
    def _exactly_one_source(self) -> ParamSpec:
        given = [name for name in ("range", "choose", "value") if getattr(self, name) is not None]
        if self.preset is not None and not given:
            return self
        settable_choice = given == ["range", "choose"] and self.preset is None
        if len(given) != 1 and not settable_choice:
            raise ValueError(
                "give exactly one of range, choose or value, or choose with range (or a preset)"
            )
        if self.range is not None and self.range[0] > self.range[1]:
            raise ValueError("range low is above range high")
        if self.preset is not None and self.range is not None:
            raise ValueError("a preset draws from a list of names, not a range")
        return self


class NumericQuestion(QuestionBase):
    """A calculation problem with fresh parameters each attempt, checked by a Python solution."""

    kind: Literal["numeric"]
    """`numeric`: auto-graded against a reference solution in solutions/."""
    params: dict[str, ParamSpec] = Field(default_factory=dict)
    """Parameter name -> how it is drawn. Names match the solution function's arguments."""
    solution: str = Field(pattern=r"^solutions(\.[a-z_][a-z0-9_]*)+$")
    """Dotted path of the reference solution, e.g. `solutions.memory.weight_bytes`. It takes the
    parameters as keyword arguments and returns the answer in base units (bytes, seconds, FLOP,
    tokens and their ratios; a fraction for %), or a dict with `answer` plus intermediate values
    for the worked solution."""
    unit: str
    """The answer's unit (e.g. `GB`, `GiB`, `ms`, `GB/s`, `TFLOPS`, `%`, `tokens/s`, or `1`
    for a pure number). Answers typed without a unit are read in it."""
    tolerance: float = Field(default=0.02, gt=0)
    """Accepted error: relative by default (0.02 = ±2%), absolute if `tolerance_mode` says so."""
    tolerance_mode: Literal["relative", "absolute"] = "relative"
    """Whether `tolerance` is a fraction of the answer or an absolute amount in `unit`."""
    worked: str = Field(min_length=1)
    """Markdown worked solution: formula, then numbers, then unit, then a sanity check. Uses
    `{param}`, `{preset.field}`, `{answer}` and any intermediate the solution returns;
    `{x:GB}` shows a base-unit value in GB, `{x:count}` a count as 70.6B. Write literal braces
    as `{{` and `}}`."""
    allow_negative: bool = False
    """Set when a negative answer is physically possible; otherwise validation flags one."""


class CodeQuestion(QuestionBase):
    """A hand-written operator (手撕): the user implements a function in a file, and quizzer
    runs it in a separate process against a numpy reference on inputs the user did not see."""

    kind: Literal["code"]
    """`code`: the user writes `entry` in a Python file; the checks of `checks` grade it."""
    entry: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    """The name of the function the user implements, e.g. `softmax`. The checks call it with
    each case's inputs as keyword arguments; the prompt gives its signature, shapes and dtypes,
    the constraints and one small worked example."""
    starter: str = Field(min_length=1)
    """The file the user starts from: imports, the signature of `entry` and a docstring. It must
    fail the checks as shipped (validation runs it)."""
    checks: str = Field(pattern=r"^solutions(\.[a-z_][a-z0-9_]*)+\.[A-Za-z_][A-Za-z0-9_]*$")
    """Dotted path of the exercise's `ExerciseSpec` in solutions/exercises/, e.g.
    `solutions.exercises.softmax.SAFE_SOFTMAX`: the numpy reference, the input generator, edge
    cases, public examples, tolerances, the model solution and the mutants its checks reject."""
    hints: list[str] = Field(min_length=1)
    """Hints in the order they are shown: a nudge first, the key idea last."""
    time_limit_s: float = Field(default=10, gt=0, le=120)
    """Wall-clock seconds one check of the user's file may take; the run is stopped after it."""

    @model_validator(mode="after")
    def _zh_hints_match(self) -> CodeQuestion:
        if (
            self.zh is not None
            and self.zh.hints is not None
            and len(self.zh.hints) != len(self.hints)
        ):
            raise ValueError(
                f"zh.hints has {len(self.zh.hints)} hints but hints has {len(self.hints)}"
            )
        return self


Question = Annotated[
    RecallQuestion | ChoiceQuestion | NumericQuestion | CodeQuestion, Field(discriminator="kind")
]
"""One question, of any kind."""

QUESTION_KINDS = ("recall", "choice", "numeric", "code")
"""The kinds of question, every one served by the study front ends."""

ALL_KINDS = QUESTION_KINDS
"""Every kind a question file may hold (the same as QUESTION_KINDS since code exercises are
served)."""

AnyQuestion = RecallQuestion | ChoiceQuestion | NumericQuestion | CodeQuestion
"""A question of any kind, as the study front ends serve it."""

ParsedQuestion = AnyQuestion
"""Any question a file may hold (the same as AnyQuestion)."""

QUESTION_MODELS: dict[str, type[AnyQuestion]] = {
    "recall": RecallQuestion,
    "choice": ChoiceQuestion,
    "numeric": NumericQuestion,
    "code": CodeQuestion,
}
"""The model of each kind of question, by its `kind`."""


@cache
def question_adapter() -> TypeAdapter[ParsedQuestion]:
    """Validates one question of any kind (built on first use)."""
    return TypeAdapter(Question)


@cache
def question_file_adapter() -> TypeAdapter[list[ParsedQuestion]]:
    """Validates a whole question file (built on first use)."""
    return TypeAdapter(list[Question])


class Article(Strict):
    """A guide article or chapter page of AIInfraGuide (question_bank/articles.yaml)."""

    key: str
    """Stable key, e.g. `m4-c1-1.1`; chapter pages are `m<module>-c<chapter>`."""

    @field_validator("key")
    @classmethod
    def _key_pattern(cls, value: str) -> str:
        return _check_key(
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
        return _check_key(value, KEY_PATTERN, f"company {_KEBAB}, e.g. bytedance")

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
        return _check_key(value, KEY_PATTERN, f"company {_KEBAB}, e.g. bytedance")

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
        return _check_key(value, KEY_PATTERN, f"topic {_KEBAB}, e.g. kv-cache")

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
        return _check_key(
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
        return _check_key(value, KEY_PATTERN, f"track {_KEBAB}, e.g. inference")

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
