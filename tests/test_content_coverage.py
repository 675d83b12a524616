"""Content contract of the shipped bank (issues 6 and 7): coverage, mix, language, tags.

These guard the rules so a later edit cannot silently break them."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from quizzer.content.bank import Bank
from quizzer.content.models import AnyQuestion
from tests.conftest import shipped_bank

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "aiinfraguide"


@pytest.fixture(scope="module")
def bank() -> Bank:
    return shipped_bank()


def linked(bank: Bank, modules: set[int]) -> list[AnyQuestion]:
    return [
        q for q in bank.questions if any(bank.articles[a].module in modules for a in q.articles)
    ]


@pytest.mark.parametrize(("modules", "label"), [({4}, "inference"), ({1, 2, 3}, "modules 1-3")])
def test_each_part_has_200_questions_with_the_right_mix(
    bank: Bank, modules: set[int], label: str
) -> None:
    questions = linked(bank, modules)
    kinds = Counter(q.kind for q in questions)
    assert len(questions) >= 200, label
    assert kinds["choice"] / len(questions) >= 0.25, (label, kinds)
    assert kinds["numeric"] / len(questions) >= 0.15, (label, kinds)
    assert {q.difficulty for q in questions} == {1, 2, 3, 4, 5}, label


@pytest.mark.parametrize("module", [1, 2, 3, 4])
def test_every_article_has_three_questions(bank: Bank, module: int) -> None:
    counts = Counter(a for q in bank.questions for a in set(q.articles))
    thin = {
        key: counts[key]
        for key, article in bank.articles.items()
        if article.module == module and article.kind == "article" and counts[key] < 3
    }
    assert thin == {}


def test_every_question_has_a_chinese_version(bank: Bank) -> None:
    missing = [q.id for q in bank.questions if q.zh is None or not q.zh.prompt.strip()]
    assert missing == []
    for q in bank.questions:
        assert q.zh is not None and q.zh.explanation, q.id
        if q.kind == "recall":
            assert q.zh.answer and q.zh.key_points, q.id
        if q.kind == "choice":
            assert q.zh.options and len(q.zh.options) == len(q.options), q.id  # type: ignore[union-attr]


def test_company_tags_trace_to_real_interview_pages(bank: Bank) -> None:
    if not REFERENCE.exists():
        pytest.skip("../shared/reference not present")
    pages = {p["file"]: p for p in json.loads((REFERENCE / "interviews.json").read_text("utf-8"))}
    for q in bank.questions:
        for tag in q.companies:
            assert tag.source in pages, (q.id, tag.source)
            # The page belongs to the tagged company (Enflame is spelt 燧原 and 遂原 on the
            # site: both spellings' pages are listed under one company).
            assert tag.source in bank.companies[tag.key].pages, (q.id, tag)
            assert bank.interviews[tag.source].company == tag.key, (q.id, tag)
            assert pages[tag.source]["url"] == bank.interviews[tag.source].url, (q.id, tag)


def test_companies_with_two_pages_have_five_questions(bank: Bank) -> None:
    counts = Counter(
        t.key for q in bank.questions for t in {t.key: t for t in q.companies}.values()
    )
    short = {
        key: counts[key]
        for key, company in bank.companies.items()
        if len(company.pages) >= 2 and counts[key] < 5
    }
    assert short == {}


def test_no_two_questions_share_a_prompt(bank: Bank) -> None:
    prompts = Counter(" ".join(q.prompt.lower().split()) for q in bank.questions)
    assert [p for p, n in prompts.items() if n > 1] == []


def test_choice_answers_are_spread_over_positions(bank: Bank) -> None:
    firsts = Counter(q.correct[0] for q in bank.questions if q.kind == "choice")  # type: ignore[union-attr]
    assert max(firsts.values()) / sum(firsts.values()) < 0.4, firsts


def test_the_longest_option_does_not_give_the_answer_away(bank: Bank) -> None:
    """A test-wise candidate who always picks the longest option must not do well."""
    single = [q for q in bank.questions if q.kind == "choice" and len(q.correct) == 1]  # type: ignore[union-attr]
    giveaway = 0
    for q in single:
        lengths = [len(option) for option in q.options]  # type: ignore[union-attr]
        index = q.correct_indexes()[0]  # type: ignore[union-attr]
        if lengths[index] == max(lengths) and lengths.count(max(lengths)) == 1:
            giveaway += 1
    assert giveaway / len(single) <= 0.35, f"{giveaway}/{len(single)}"


def test_every_self_check_item_is_mapped_to_covering_questions() -> None:
    """question_bank/self_checks/<article>.yaml maps each self-check item of each guide article
    to questions that exist and link that article (see scripts/check_self_checks.py)."""
    if not REFERENCE.exists():
        pytest.skip("../shared/reference not present")
    import importlib.util

    script = Path(__file__).resolve().parents[1] / "scripts" / "check_self_checks.py"
    spec = importlib.util.spec_from_file_location("check_self_checks", script)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.problems() == []
