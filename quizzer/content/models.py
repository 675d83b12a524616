"""Pydantic content models: the schema of a question file.

This module is the schema reference. Every field carries a docstring, and
question_bank/README.md and question_bank/question.schema.json are generated from it
(``quizzer schema``), with a test that keeps them in step.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    TypeAdapter,
    WithJsonSchema,
    field_validator,
    model_validator,
)

# The catalog models and the key patterns live in catalogs.py and strict.py; callers may still
# import them from here.
from quizzer.content.catalogs import (  # noqa: F401
    Article,
    Chapter,
    Company,
    InterviewPage,
    Module,
    Reading,
    Topic,
    Track,
    Weight,
)
from quizzer.content.strict import CHAPTER_PATTERN, ID_PATTERN, KEY_PATTERN, Strict  # noqa: F401

OPTION_LETTERS = "ABCDEFGHI"
"""Choice options are labelled A, B, C … in order; at most nine, so keys 1–9 can pick them."""


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
    """Wall-clock seconds one check of the user's code may take, counted from when its file starts
    loading (Python and numpy start-up do not count); the run is stopped after it."""

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
