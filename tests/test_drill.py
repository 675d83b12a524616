"""The plain drill as a user or script drives it: stdin lines in, reviews saved at once."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from tests.conftest import run_quizzer, spawn_quizzer


def stats() -> dict:  # type: ignore[type-arg]
    result = run_quizzer("stats", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_three_answers_and_ratings_make_three_reviews(mini_bank: Path) -> None:
    fed = "answer one\n\n3\n\n\n1\nanswer three\n\ngood\n"  # empty: no checklist
    result = run_quizzer("drill", "--plain", "--kind", "recall", "--limit", "3", input=fed)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("saved:") == 3
    assert stats()["reviews_total"] == 3


def test_end_of_input_ends_cleanly_keeping_ratings(mini_bank: Path) -> None:
    result = run_quizzer("drill", "--plain", "--kind", "recall", input="a\n\n3\nb\n")
    assert result.returncode == 0 and "Session over: 1 rated" in result.stdout
    assert stats()["reviews_total"] == 1


def test_garbage_at_prompts_is_explained_and_asked_again(mini_bank: Path) -> None:
    fed = "??\nZ\n1\nbanana\n1\n" + "16 GBs\n__import__('os')\n16 GB\n3\n"
    result = run_quizzer(
        "drill", "--plain", "--id", "t-choice-one", "--id", "t-numeric-weights", input=fed
    )
    assert result.returncode == 0, result.stderr
    assert "? pick an option" in result.stdout
    assert "? type 1-4" in result.stdout
    assert "did you mean GB?" in result.stdout  # a bytes question: GB, not GB/s
    assert "Traceback" not in result.stdout + result.stderr


def test_wrong_numeric_is_rated_again(mini_bank: Path) -> None:
    result = run_quizzer("drill", "--plain", "--id", "t-numeric-weights", input="1\n4\n1\n")
    assert "✗ not quite" in result.stdout and "saved: again" in result.stdout
    assert "? a wrong answer is rated again: type 1 (again)" in result.stdout  # 4 is refused


def test_sigkill_mid_drill_loses_no_rated_review(mini_bank: Path, tmp_path: Path) -> None:
    proc = spawn_quizzer("drill", "--plain", "--kind", "recall")
    assert proc.stdin and proc.stdout
    proc.stdin.write("first\n\n3\nsecond\n\n1\n")
    proc.stdin.flush()
    seen = ""
    deadline = time.monotonic() + 60
    while seen.count("saved:") < 2 or "[3/" not in seen:
        assert time.monotonic() < deadline, seen
        seen += proc.stdout.readline()
    # While it waits for the third answer, a second process reads stats.
    assert stats()["reviews_total"] == 2
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert stats()["reviews_total"] == 2


@pytest.mark.processes  # four real drills at once: `pytest -m processes`
def test_two_processes_rating_at_once_both_land(mini_bank: Path) -> None:
    procs = [
        spawn_quizzer("drill", "--plain", "--id", qid)
        for qid in ("t-recall-one", "t-recall-two", "t-recall-three", "t-recall-four")
    ]
    for proc in procs:
        assert proc.stdin
        proc.stdin.write("x\n\n3\n")
        proc.stdin.flush()
    for proc in procs:
        _out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    assert stats()["reviews_total"] == 4


def test_stats_json_has_the_documented_fields(mini_bank: Path) -> None:
    run_quizzer("drill", "--plain", "--id", "t-recall-one", input="x\n\n3\n")
    data = stats()
    for key in (
        "reviews_total",
        "reviews_today",
        "due_now",
        "new_available",
        "streak_days",
        "retention_30d",
        "leeches",
        "topics",
        "companies",
    ):
        assert key in data
    topic = next(row for row in data["topics"] if row["key"] == "prefill-decode")
    assert set(topic) >= {"key", "questions", "reviewed", "accuracy", "mean_retrievability"}
    assert topic["reviewed"] == 1 and data["streak_days"] == 1


def test_settings_show_and_set(mini_bank: Path) -> None:
    shown = run_quizzer("settings")
    assert "desired_retention" in shown.stdout and "0.9" in shown.stdout
    assert run_quizzer("settings", "learning_steps_min", "1,5,30").returncode == 0
    assert run_quizzer("settings", "desired_retention", "1.5").returncode == 2
    result = run_quizzer("drill", "--plain", "--id", "t-recall-one", input="x\n\n3\n")
    assert "good (5m)" in result.stdout  # the second learning step is now 5 minutes


def test_a_company_tagged_from_two_pages_is_named_once(mini_bank: Path) -> None:
    questions = mini_bank / "questions" / "test" / "mini.yaml"
    text = questions.read_text("utf-8")
    questions.write_text(
        text.replace(
            "    - {key: bytedance, source: 字节跳动-AI-Infra-1.md}\n",
            "    - {key: bytedance, source: 字节跳动-AI-Infra-1.md}\n"
            "    - {key: bytedance, source: 字节跳动-AI-Infra-2.md}\n",
            1,
        ),
        "utf-8",
    )
    result = run_quizzer("drill", "--plain", "--id", "t-recall-one", input="x\n\n3\n")
    assert result.returncode == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if "asked at:" in line)
    assert header.count("ByteDance") == 1, header
