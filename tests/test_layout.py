"""Question files follow questions/<module folder>/<topic>.yaml: `quizzer new` writes there, and
`quizzer validate` warns about a file or a question anywhere else, saying where it belongs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from quizzer.content.bank import load_bank
from quizzer.content.layout import misplaced
from tests.conftest import SHIPPED_BANK, make_bank
from tests.test_bank import GOOD

HEADER = "# yaml-language-server: $schema=../../question.schema.json\n"


def question(qid: str, topic: str) -> str:
    """One valid recall question whose first topic is ``topic``."""
    return (
        f"- id: {qid}\n  kind: recall\n  prompt: Why?\n  answer: Because.\n  key_points: [one]\n"
        f"  explanation: Why so.\n  topics: [{topic}]\n  articles: [m4-c1-1.1]\n"
        "  difficulty: 2\n"
    )


def bank_with(tmp_path: Path, files: dict[str, str]) -> Path:
    """A bank holding exactly these question files (path under questions/ -> text)."""
    bank = make_bank(tmp_path / "b", GOOD)
    shutil.rmtree(bank / "questions" / "test")
    for name, text in files.items():
        path = bank / "questions" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(HEADER + text, "utf-8")
    return bank


@pytest.mark.usefixtures("warm_cache")
def test_the_shipped_bank_follows_the_layout() -> None:
    bank = load_bank(SHIPPED_BANK)
    assert misplaced(bank) == []
    names = {Path(name).stem for name in bank.files}
    assert names <= set(bank.topics)  # no calc-*, gaps-*, basics, nano-vllm... files


def test_validate_warns_about_misplaced_files_and_questions_and_says_where_they_go(
    tmp_path: Path, cli
) -> None:  # type: ignore[no-untyped-def]
    bank = bank_with(
        tmp_path,
        {
            "inference/kv-cache.yaml": question("in-place", "kv-cache")
            + question("other-topic", "paged-attention"),
            "inference/basics.yaml": question("in-basics", "prefill-decode"),
            "cuda/roofline.yaml": question("wrong-module", "roofline"),
            "misc/kv-cache.yaml": question("no-module", "kv-cache"),
        },
    )
    result = cli("--bank", str(bank), "validate", "--no-solutions")
    assert result.exit_code == 0, result.output  # still loaded and served: warnings, not errors
    lines = result.output.splitlines()
    layout = "questions/<module>/<topic>.yaml (module: prerequisites, cuda, distributed, inference)"
    expected = [
        "questions/cuda/roofline.yaml: warning: topic 'roofline' is in module 1: this file "
        "belongs at questions/prerequisites/roofline.yaml",
        "questions/cuda/roofline.yaml:2:3: warning: question 'wrong-module' belongs in "
        "questions/prerequisites/roofline.yaml, the file of its first topic",
        f"questions/inference/basics.yaml: warning: 'basics' is not a topic of module 4: question "
        f"files live at {layout}; each question goes in the file of its first topic",
        "questions/inference/basics.yaml:2:3: warning: question 'in-basics' belongs in "
        "questions/inference/prefill-decode.yaml, the file of its first topic",
        "questions/inference/kv-cache.yaml:11:3: warning: question 'other-topic' belongs in "
        "questions/inference/paged-attention.yaml, the file of its first topic",
        f"questions/misc/kv-cache.yaml: warning: 'misc' is not a module folder: question files "
        f"live at {layout}; each question goes in the file of its first topic",
        "questions/misc/kv-cache.yaml:2:3: warning: question 'no-module' belongs in "
        "questions/inference/kv-cache.yaml, the file of its first topic",
    ]
    warned = [line.split("/b/", 1)[-1] for line in lines if "warning:" in line]
    assert warned == expected
    assert lines[-1].startswith("ok: 5 questions") and lines[-1].endswith(
        "; 7 layout warning(s) above"
    )


def test_new_writes_the_stub_into_its_topics_file_which_validate_accepts(
    tmp_path: Path, cli
) -> None:  # type: ignore[no-untyped-def]
    bank = bank_with(tmp_path, {"prerequisites/roofline.yaml": question("first", "roofline")})
    # roofline is a module 1 topic; the article is in module 4: the topic decides the file
    made = cli(
        "--bank", str(bank), "new", "--kind", "recall", "--topic", "roofline",
        "--article", "m4-c1-1.1",
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    path = bank / "questions" / "prerequisites" / "roofline.yaml"
    assert f"added roofline-new-1 at {path}:11" in made.output
    path.write_text(path.read_text("utf-8").replace("TODO", "Real"), "utf-8")
    result = cli("--bank", str(bank), "validate", "--no-solutions")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok: 2 questions"), result.output


def test_new_creates_a_missing_topic_file_with_the_schema_header(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    bank = bank_with(tmp_path, {})
    made = cli(
        "--bank", str(bank), "new", "--kind", "choice", "--topic", "zero",
        "--article", "m3-c5",
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    path = bank / "questions" / "distributed" / "zero.yaml"
    assert path.read_text("utf-8").startswith(HEADER + "- id: zero-new-1\n")
    assert sorted(p.relative_to(bank).as_posix() for p in (bank / "questions").rglob("*")) == [
        "questions/distributed",
        "questions/distributed/zero.yaml",
    ]
