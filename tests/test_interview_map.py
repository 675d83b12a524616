"""The interview coverage map (issue 16): complete, every id real, problems located."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from quizzer.content.bank import load_bank
from quizzer.content.interview_map import load_map
from tests.conftest import ROOT, make_bank, shipped_bank

REFERENCE = ROOT.parent / "shared" / "reference" / "aiinfraguide" / "interviews.json"


def test_every_line_of_every_interview_page_is_mapped_once_to_real_questions() -> None:
    bank = shipped_bank()
    mapped = load_map(bank)
    assert mapped.problems == []
    assert len(mapped.lines) == sum(page.lines for page in bank.interviews.values())
    assert len({(line.page, line.number) for line in mapped.lines}) == len(mapped.lines)
    if REFERENCE.exists():  # the catalog's line counts are the reference's
        pages = json.loads(REFERENCE.read_text("utf-8"))
        assert {p["file"]: len(p["questions"]) for p in pages} == {
            file: page.lines for file, page in bank.interviews.items()
        }


def test_map_problems_name_the_place(tmp_path: Path) -> None:
    root = make_bank(tmp_path / "bank")
    (root / "interview_map").mkdir()
    (root / "interview_map" / "bytedance.yaml").write_text(
        "company: bytedance\n"
        "pages:\n"
        "  - file: 字节跳动-AI-Infra-1.md\n"
        "    lines:\n"
        "      1: [t-recall-one, no-such-question]\n"
        "      2: {out: boring}\n"
        "  - file: 字节跳动-AI-Infra-1.md\n"
        "    lines: {}\n",
        "utf-8",
    )
    bank = load_bank(root, use_cache=False)
    found = [str(p) for p in load_map(bank).problems]
    text = "\n".join(found)
    assert "bytedance.yaml:5:" in text and "unknown question 'no-such-question'" in text
    assert "bytedance.yaml:6:" in text and "REASON one of behavioural" in text
    assert "missing [3" in text  # the page has 5 lines; only 1-2 were mapped
    assert "mapped twice" in text
    assert "is not mapped" in text  # every other company's pages


@pytest.mark.usefixtures("warm_cache")
def test_coverage_json_reports_interview_lines(cli: Callable[..., Result]) -> None:
    report = json.loads(cli("coverage", "--json").output)["interviews"]
    overall = report["overall"]
    assert overall["lines"] == 1769
    assert overall["covered"] + overall["out_of_scope"] + overall["uncovered"] == 1769
    assert report["companies"]["bytedance"]["lines"] > 0
    assert report["themes"]["OS internals"] >= 8
