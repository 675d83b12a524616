"""Weak-topic review, mock interviews, export, backup/restore, import, and `quizzer new`."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from quizzer.progress.store import Store
from tests.conftest import run_quizzer


def stats() -> dict:  # type: ignore[type-arg]
    return json.loads(run_quizzer("stats", "--json").stdout)  # type: ignore[no-any-return]


def test_weak_lists_the_failed_topic_first_and_drill_weak_asks_it(mini_bank: Path) -> None:
    for qid, answer, points, rating in (
        ("t-choice-one", "A", "", "1"),
        ("t-recall-one", "x", "\n", "3"),  # recall: an empty key-point line, then the rating
        ("t-recall-two", "x", "\n", "3"),
        ("t-recall-three", "x", "\n", "4"),
    ):
        assert (
            run_quizzer(
                "drill", "--plain", "--id", qid, input=f"{answer}\n{points}{rating}\n"
            ).returncode
            == 0
        )
    weak = json.loads(run_quizzer("weak", "--json").stdout)
    assert weak[0]["key"] == "kv-cache"
    assert set(weak[0]) >= {"accuracy", "lapses", "mean_retrievability", "questions"}
    assert weak[0]["questions"] == ["t-choice-one"]
    asked = run_quizzer("drill", "--weak", "--plain", "--limit", "1", input="B\n3\n")
    assert "t-choice-one" in asked.stdout
    assert stats()["reviews_total"] == 5


def test_mock_interview_plain_reports_topics_and_urls(mini_bank: Path) -> None:
    result = run_quizzer(
        "mock",
        "--company",
        "bytedance",
        "--plain",
        "--minutes",
        "1",
        input="decode streams weights\n\n3\n",
    )
    assert result.returncode == 0, result.stderr
    assert "Mock interview report: ByteDance" in result.stdout
    assert "Prefill and decode" in result.stdout  # topic of the tagged question
    assert stats()["reviews_total"] == 1
    again = run_quizzer(
        "mock", "--company", "bytedance", "--plain", "--minutes", "1", input="\n\n\n"
    )
    assert "Last mock (2026-11-30): 100% → now 0% (-100%)" in again.stdout
    assert "https://caomaolufei.github.io/AIInfraGuide/" in again.stdout


def test_mock_self_rating_asks_again_after_garbage(mini_bank: Path) -> None:
    fed = "my answer\n\nbanana\n1\n"
    result = run_quizzer("mock", "--company", "bytedance", "--plain", "--minutes", "1", input=fed)
    assert result.returncode == 0, result.stderr
    assert "? type 1-4 or again/hard/good/easy" in result.stdout
    store = Store(Path(os.environ["QUIZZER_DB"]))
    assert [r["rating"] for r in store.reviews()] == [1]  # the "1" typed after the garbage
    store.close()


def test_mock_for_a_company_with_no_questions_asks_its_tier_mates(mini_bank: Path) -> None:
    result = run_quizzer("mock", "--company", "alibaba", "--plain", "--minutes", "1", input="")
    assert result.returncode == 0, result.stderr
    assert "No question in the bank is tagged Alibaba" in result.stderr
    assert "tier-mates: bytedance" in result.stderr  # a T0 company that has questions
    assert "Mock interview: Alibaba" in result.stdout


def test_apkg_imports_into_a_real_anki_collection(mini_bank: Path, tmp_path: Path) -> None:
    anki_collection = pytest.importorskip("anki.collection")
    from anki.import_export_pb2 import ImportAnkiPackageOptions

    out = tmp_path / "deck.apkg"
    assert run_quizzer("export", "--format", "apkg", str(out)).returncode == 0
    col = anki_collection.Collection(str(tmp_path / "collection.anki2"))
    try:
        col.import_anki_package(
            anki_collection.ImportAnkiPackageRequest(
                package_path=str(out), options=ImportAnkiPackageOptions()
            )
        )
        assert col.note_count() == 7
        assert len(col.find_notes("tag:company::bytedance")) == 1
        assert len(col.find_notes("tag:topic::kv-cache")) == 1
        numeric = col.get_note(col.find_notes("tag:topic::weight-memory")[0])
        assert "GB" in numeric.fields[1]  # worked solution with a drawn parameter set
        assert "caomaolufei.github.io" in numeric.fields[2]
    finally:
        col.close()


def test_backup_wipe_restore_gives_identical_stats(mini_bank: Path, tmp_path: Path) -> None:
    for qid, fed in (("t-recall-one", "B\n\n3\n"), ("t-choice-one", "B\n3\n")):
        run_quizzer("drill", "--plain", "--id", qid, input=fed)
    before = stats()
    backup = tmp_path / "backup.db"
    assert run_quizzer("backup", str(backup)).returncode == 0
    from os import environ

    Path(environ["QUIZZER_DB"]).unlink()
    assert stats()["reviews_total"] == 0
    restored = run_quizzer("restore", str(backup), "--yes")
    assert restored.returncode == 0, restored.stderr
    assert stats() == before


def test_restore_refuses_a_bad_file_and_changes_nothing(mini_bank: Path, tmp_path: Path) -> None:
    run_quizzer("drill", "--plain", "--id", "t-recall-one", input="x\n\n3\n")
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not a database at all" * 100)
    result = run_quizzer("restore", str(bad), "--yes")
    assert result.returncode == 1 and "not restored" in result.stderr
    assert stats()["reviews_total"] == 1


def test_export_json_then_import_merges_without_duplicates(mini_bank: Path, tmp_path: Path) -> None:
    run_quizzer("drill", "--plain", "--id", "t-recall-one", input="x\n\n3\n")
    out = tmp_path / "reviews.json"
    assert run_quizzer("export", "--format", "json", str(out)).returncode == 0
    other_db = tmp_path / "other.db"
    env = {"QUIZZER_DB": str(other_db)}
    run_quizzer("drill", "--plain", "--id", "t-recall-two", input="x\n\n3\n", env=env)
    first = run_quizzer("import-reviews", str(out), env=env)
    assert "imported 1 review(s); 0 were already here" in first.stdout
    second = run_quizzer("import-reviews", str(out), env=env)
    assert "imported 0 review(s); 1 were already here" in second.stdout
    merged = json.loads(run_quizzer("stats", "--json", env=env).stdout)
    assert merged["reviews_total"] == 2
    card = json.loads(run_quizzer("show", "t-recall-one", "--json", env=env).stdout)["card"]
    assert card["reps"] == 1


def test_export_csv_has_a_row_per_review(mini_bank: Path, tmp_path: Path) -> None:
    run_quizzer("drill", "--plain", "--id", "t-recall-one", input="x\n\n3\n")
    out = tmp_path / "reviews.csv"
    run_quizzer("export", "--format", "csv", str(out))
    lines = out.read_text("utf-8").splitlines()
    assert lines[0].startswith("uid,question_id,reviewed_at,rating")
    assert len(lines) == 2 and ",t-recall-one," in lines[1]


def only_placeholders(stderr: str) -> bool:
    """Every problem `validate` printed is stub text left in (so the stub is otherwise valid)."""
    problems = [line for line in stderr.splitlines() if ".yaml:" in line]
    return bool(problems) and all("placeholder text 'TODO'" in line for line in problems)


@pytest.mark.parametrize("kind", ["recall", "choice", "numeric"])
def test_new_stub_is_valid_but_for_its_todo_text(mini_bank: Path, kind: str) -> None:
    made = run_quizzer("new", "--kind", kind, "--topic", "kv-cache", "--article", "m4-c1-1.1")
    assert made.returncode == 0, made.stderr
    assert "added kv-cache-new-1" in made.stdout
    target = mini_bank / "questions" / "inference" / "kv-cache.yaml"
    assert target.read_text("utf-8").startswith("# yaml-language-server:")
    checked = run_quizzer("validate")
    assert checked.returncode == 1 and only_placeholders(checked.stderr), checked.stderr


def test_new_code_stub_names_the_spec_module_to_write_and_is_valid_but_for_its_todo_text(
    mini_bank: Path, cli: Callable[..., Result]
) -> None:
    args = ("new", "--kind", "code", "--topic", "kv-cache", "--article", "m4-c1-1.1")
    made = cli(*args)
    assert made.exit_code == 0, made.output
    assert "added kv-cache-new-1" in made.output
    assert "Write its ExerciseSpec in solutions/exercises/kv_cache.py" in made.output
    text = (mini_bank / "questions" / "inference" / "kv-cache.yaml").read_text("utf-8")
    assert "  kind: code\n" in text and "  entry: solve\n" in text and "def solve(" in text
    assert "  checks: solutions.exercises.kv_cache.TODO\n" in text
    checked = cli("validate")
    assert checked.exit_code == 1 and only_placeholders(checked.output), checked.output
    assert "placeholder text 'TODO' in checks" in checked.output
    assert "added kv-cache-new-2" in cli(*args).output  # a stub waiting does not block the next


def test_new_has_a_stub_for_every_kind_a_question_file_may_hold() -> None:
    """`quizzer new --kind` offers every kind; a kind added without a stub would fail there."""
    import yaml

    from quizzer.content.models import QUESTION_KINDS
    from quizzer.content.scaffold import stub_text

    for kind in QUESTION_KINDS:
        (stub,) = yaml.safe_load(stub_text("kv-cache-new-1", kind, "kv-cache", "m4-c1-1.1"))
        assert stub["kind"] == kind and stub["topics"] == ["kv-cache"], kind


def test_new_asks_for_what_is_missing(mini_bank: Path) -> None:
    made = run_quizzer("new", input="choice\nkv-cach\nkv-cache\nm4-c1-1.1\n")
    assert made.returncode == 0, made.stderr
    assert "did you mean 'kv-cache'" in made.stderr
    assert only_placeholders(run_quizzer("validate").stderr)
