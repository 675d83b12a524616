"""Code exercises in the front ends: `quizzer exercise` (its exit codes and its rustlings loop),
the plain drill's line protocol, the app's editor screen (type, ctrl+r, verdict, rate), the
attempt kept across leaving, the Anki note and a mock that ends with one exercise. Every review
goes through the same session and store as the other kinds."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path

import pytest
from click.testing import Result

from quizzer.content.bank import Bank, load_bank
from quizzer.progress.store import Store
from tests.conftest import FIXTURES, make_bank

STARTER = '''\
import numpy as np


def softmax(x):
    """Softmax over the last axis of x."""
    raise NotImplementedError("write softmax")
'''

GOOD = """\
import numpy as np


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
"""

NAIVE = GOOD.replace("np.exp(x - x.max(axis=-1, keepdims=True))", "np.exp(x)")

CODE_QUESTION = """\
- id: t-code-softmax
  kind: code
  prompt: |
    Write a numerically safe `softmax(x)` over the last axis.
  entry: softmax
  starter: |
{starter}
  checks: solutions.exercises.softmax.SAFE_SOFTMAX
  hints: [Try x = 1000 in float32., Subtract each row's own max.]
  explanation: Shifting a row by its max keeps every exponent at most 0.
  topics: [numerical-stability]
  articles: [m2-c5-5.1]
  companies:
    - {{key: bytedance, source: 字节跳动-AI-Infra-1.md}}
  difficulty: 2
  time_limit_s: 1
""".format(starter="\n".join(f"    {line}" for line in STARTER.splitlines()))


@pytest.fixture
def code_bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The mini bank plus one code exercise (tagged ByteDance), selected through QUIZZER_BANK."""
    mini = (FIXTURES / "mini-questions.yaml").read_text("utf-8")
    bank = make_bank(tmp_path / "bank", mini + CODE_QUESTION)
    monkeypatch.setenv("QUIZZER_BANK", str(bank))
    return bank


def work_file(tmp_path: Path) -> Path:
    """Where the attempt lives by default: exercises/ next to the progress DB."""
    return tmp_path / "exercises" / "t-code-softmax.py"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    return path


def reviews() -> list[tuple[str, int, int | None]]:
    store = Store(Path(os.environ["QUIZZER_DB"]))
    try:
        return [(r["question_id"], r["rating"], r["correct"]) for r in store.reviews()]
    finally:
        store.close()


# --- the bank serves code exercises ----------------------------------------------------------


def test_list_kind_code_json_lists_the_exercise(
    code_bank: Path, cli: Callable[..., Result]
) -> None:
    result = cli("list", "--kind", "code", "--json")
    assert result.exit_code == 0, result.output
    [found] = json.loads(result.output)
    assert found["id"] == "t-code-softmax" and found["kind"] == "code"
    assert found["entry"] == "softmax" and found["starter"] == STARTER
    assert found["links"][0]["url"].startswith("https://caomaolufei.github.io/")
    shown = cli("show", "t-code-softmax")
    assert "Reference solution:" in shown.output and "np.exp(x - m)" in shown.output
    assert "quizzer exercise t-code-softmax" in shown.output
    topics = {
        row["key"]: row["count"] for row in json.loads(cli("coverage", "--json").output)["topics"]
    }
    assert topics["numerical-stability"] == 1


# --- quizzer exercise ID --check FILE ------------------------------------------------------


def test_check_exits_0_for_a_correct_file(
    code_bank: Path, cli: Callable[..., Result], tmp_path: Path
) -> None:
    result = cli("exercise", "t-code-softmax", "--check", str(write(tmp_path, "s.py", GOOD)))
    assert result.exit_code == 0
    assert result.output.startswith("✓ passed all")


def test_check_exits_1_for_a_wrong_file_showing_the_failing_input(
    code_bank: Path, cli: Callable[..., Result], tmp_path: Path
) -> None:
    path = write(tmp_path, "s.py", NAIVE)
    result = cli("exercise", "t-code-softmax", "--check", str(path), "--seed", "7")
    assert result.exit_code == 1
    assert "smallest failing input: edge: large logits (around +1000)" in result.output
    assert "x: float32 (2, 7) [" in result.output and "got      at [0, 0:7]: [nan" in result.output


def test_check_exits_2_for_a_syntax_error_and_for_an_endless_loop(
    code_bank: Path, cli: Callable[..., Result], tmp_path: Path
) -> None:
    syntax = write(tmp_path, "syntax.py", "def softmax(x)\n    return x\n")
    result = cli("exercise", "t-code-softmax", "--check", str(syntax))
    assert result.exit_code == 2 and "line 1: SyntaxError" in result.output
    loop = write(tmp_path, "loop.py", "def softmax(x):\n    while True:\n        pass\n")
    started = time.monotonic()
    result = cli("exercise", "t-code-softmax", "--check", str(loop))
    assert time.monotonic() - started < 20  # the exercise's limit is 1 s
    assert result.exit_code == 2 and "timed out after 1 s" in result.output


def test_exercise_refuses_unknown_ids_and_other_kinds(
    code_bank: Path, cli: Callable[..., Result], tmp_path: Path
) -> None:
    unknown = cli("exercise", "t-code-softmx", "--check", "x.py")
    assert unknown.exit_code == 2 and "did you mean" in unknown.output
    recall = cli("exercise", "t-recall-one")
    assert recall.exit_code == 2 and "is a recall question, not a code exercise" in recall.output


# --- quizzer exercise ID: the rustlings loop, and the attempt kept -------------------------


def test_exercise_loop_keeps_the_attempt_then_rates_and_starts_fresh(
    code_bank: Path, cli: Callable[..., Result], tmp_path: Path
) -> None:
    path = work_file(tmp_path)
    first = cli("exercise", "t-code-softmax", input="\n:hint\n:quit\n")
    assert first.exit_code == 0, first.output
    assert f"Write `softmax` in: {path}" in first.output
    assert "Public example 1:" in first.output and "returns: float32 (3,)" in first.output
    assert "raised NotImplementedError" in first.output  # Enter checked the starter
    assert "hint 1/2: Try x = 1000 in float32." in first.output
    assert "Left unrated; your code stays in" in first.output
    assert path.read_text("utf-8") == STARTER and reviews() == []

    path.write_text(NAIVE, "utf-8")  # the user edits the file in their own editor
    second = cli("exercise", "t-code-softmax", input="\n:quit\n")
    assert "(your code from last time, kept)" in second.output
    assert "✗ failed" in second.output and path.read_text("utf-8") == NAIVE

    path.write_text(GOOD, "utf-8")
    third = cli("exercise", "t-code-softmax", input="\n\n")
    assert "✓ passed all" in third.output
    assert (
        "Reference solution:" in third.output
        and "Key idea: Subtract each row's own max." in third.output
    )
    assert "字节跳动" in third.output or "bytedance" in third.output.lower()  # the interview page
    assert "[Enter = good]" in third.output  # passed on the first check of this attempt
    assert reviews() == [("t-code-softmax", 3, 1)]
    assert not path.exists() and len(list((path.parent / "past").glob("t-code-softmax-*.py"))) == 1

    fourth = cli("exercise", "t-code-softmax", input=":quit\n")
    assert "kept)" not in fourth.output and path.read_text("utf-8") == STARTER


def test_exercise_dir_option_chooses_the_work_folder(
    code_bank: Path, cli: Callable[..., Result], tmp_path: Path
) -> None:
    result = cli("exercise", "t-code-softmax", "--dir", str(tmp_path / "mine"), input="")
    assert result.exit_code == 0
    assert (tmp_path / "mine" / "t-code-softmax.py").read_text("utf-8") == STARTER


# --- the plain drill ------------------------------------------------------------------------


def test_plain_drill_takes_a_path_hints_and_suggests_hard_after_a_failure(
    code_bank: Path, cli: Callable[..., Result], tmp_path: Path
) -> None:
    naive, good = write(tmp_path, "naive.py", NAIVE), write(tmp_path, "good.py", GOOD)
    fed = f"{naive}\n:hint\n{tmp_path / 'missing.py'}\n{good}\n\n"
    result = cli("drill", "--plain", "--id", "t-code-softmax", input=fed)
    out = result.output
    assert result.exit_code == 0, out
    assert "code · difficulty 2" in out and f"in: {work_file(tmp_path)}" in out
    assert out.index("✗ failed") < out.index("hint 1/2") < out.index("? no file")
    assert "✓ passed after 2 checks, 1 hint" in out
    assert "Reference solution:" in out and "Why: Shifting a row" in out
    assert "[Enter = hard]" in out and "1 again" in out and "4 easy" in out  # all four offered
    assert reviews() == [("t-code-softmax", 2, 1)]


def test_plain_drill_skip_gives_up_with_again_and_counts_in_weak_topics(
    code_bank: Path, cli: Callable[..., Result]
) -> None:
    result = cli("drill", "--plain", "--id", "t-code-softmax", input=":skip\n\n")
    assert "✗ gave up before running the checks" in result.output
    assert "[Enter = again]" in result.output
    assert reviews() == [("t-code-softmax", 1, 0)]
    weak = json.loads(cli("weak", "--json").output)
    assert weak[0]["key"] == "numerical-stability" and weak[0]["questions"] == ["t-code-softmax"]
    assert json.loads(cli("stats", "--json").output)["reviews_total"] == 1


def test_undo_of_an_exercise_review_brings_the_attempt_back(
    code_bank: Path, cli: Callable[..., Result], tmp_path: Path
) -> None:
    path = work_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(GOOD, "utf-8")  # an attempt kept from an earlier session
    fed = "\n\n:undo\n:quit\n"
    result = cli("drill", "--plain", "--id", "t-code-softmax", "--id", "t-recall-one", input=fed)
    out = result.output
    assert out.count("(your code from last time, kept)") == 2, out
    assert "saved: good" in out and "undone: t-code-softmax" in out
    assert reviews() == [] and path.read_text("utf-8") == GOOD


# --- the app: the editor screen ---------------------------------------------------------------


def app_for(bank_root: Path, start: list[str] | None = None, **kwargs: object):  # type: ignore[no-untyped-def]
    from quizzer.tui.app import QuizzerApp

    bank = load_bank(bank_root, use_cache=False)
    return QuizzerApp(bank, Store(Path(os.environ["QUIZZER_DB"])), start, **kwargs)  # type: ignore[arg-type]


def keys_for(text: str) -> list[str]:
    """Pilot key names that type ``text``."""
    names = {"\n": "enter", " ": "space", "(": "left_parenthesis", ")": "right_parenthesis"}
    return [names.get(char, char) for char in text]


async def type_code(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    """Select everything in the editor and paste ``text`` over it, as a terminal delivers a paste
    (one event; a program typed key by key took seconds of Pilot time). The fix in the
    type-run-fail-fix test is still typed key by key where it belongs."""
    from textual import events

    await pilot.press("f7")
    pilot.app.post_message(events.Paste(text))
    await pilot.pause()


async def run_checks(pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("ctrl+r")
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


SHORT_NAIVE = (
    "import numpy as np\ndef softmax(x):\n    e = np.exp(x)\n    return e / e.sum(-1)[..., None]\n"
)
SHORT_GOOD = SHORT_NAIVE.replace("np.exp(x)", "np.exp(x - x.max(-1, keepdims=True))")
WRONG = "def softmax(x):\n    return x\n"


async def test_editor_screen_type_run_fail_fix_pass_rate(code_bank: Path, tmp_path: Path) -> None:
    app = app_for(code_bank, ["t-code-softmax"])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert type(screen).__name__ == "ExerciseScreen"
        editor = screen.query_one("#editor")
        assert editor.text == STARTER  # type: ignore[attr-defined]
        assert "Public examples" in screen.query_one("#ex-task-md").source  # type: ignore[attr-defined]
        await type_code(pilot, SHORT_NAIVE)
        assert editor.text == SHORT_NAIVE  # type: ignore[attr-defined]
        await run_checks(pilot)
        verdict = str(screen.query_one("#ex-verdict").render())
        assert verdict.startswith("✗ failed") and "smallest failing input" in verdict
        assert not screen.query_one("#ex-ratings").display
        assert work_file(tmp_path).read_text("utf-8") == SHORT_NAIVE  # saved before the run
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert "Hint 1/2" in screen.query_one("#ex-hints").source  # type: ignore[attr-defined]
        # the fix, typed where it belongs: np.exp(x) -> np.exp(x - x.max(-1, keepdims=True))
        await pilot.press("up", "up", "end", "left", *keys_for(" - x.max(-1, keepdims=True)"))
        assert editor.text == SHORT_GOOD  # type: ignore[attr-defined]
        await run_checks(pilot)
        assert str(screen.query_one("#ex-verdict").render()).startswith("✓ passed all")
        assert screen.query_one("#ex-ratings").display and screen.query_one("#solution").display
        assert "np.exp(x - m)" in screen.query_one("#solution").text  # type: ignore[attr-defined]
        reveal = screen.query_one("#ex-task-md").source  # type: ignore[attr-defined]
        assert "passed after 2 checks, 1 hint" in reveal and "Key idea" in reveal
        assert "← " not in str(screen.query_one("#ex-rate-3").label)
        assert str(screen.query_one("#ex-rate-2").label).endswith("←")  # Hard suggested
        await pilot.press("3")  # the user may choose another rating
        await pilot.pause()
        assert type(app.screen).__name__ == "SummaryScreen"
    assert reviews() == [("t-code-softmax", 3, 1)]
    assert not work_file(tmp_path).exists()  # set aside: the next review starts fresh


async def test_browse_filters_code_and_enter_opens_the_exercise(code_bank: Path) -> None:
    app = app_for(code_bank)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("b")
        await pilot.pause()
        app.screen.query_one("#kind").value = "code"  # type: ignore[attr-defined]
        await pilot.pause()
        tree = app.screen.query_one("#tree")
        assert "(1)" in str(tree.root.label)  # type: ignore[attr-defined]
        [leaf] = [n for n in tree._tree_nodes.values() if n.data == "t-code-softmax"]  # type: ignore[attr-defined]
        assert str(leaf.label).startswith("[</>] Write a numerically safe")
        tree.select_node(leaf)  # type: ignore[attr-defined]
        await pilot.pause()
        await pilot.pause()
        assert type(app.screen).__name__ == "ExerciseScreen"


async def test_leaving_the_editor_keeps_the_code_for_next_time(
    code_bank: Path, tmp_path: Path
) -> None:
    app = app_for(code_bank, ["t-code-softmax"])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await type_code(pilot, WRONG)
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "DashboardScreen"
    assert reviews() == [] and work_file(tmp_path).read_text("utf-8") == WRONG
    again = app_for(code_bank, ["t-code-softmax"])
    async with again.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = again.screen
        assert screen.query_one("#editor").text == WRONG  # type: ignore[attr-defined]
        assert "from last time" in str(screen.query_one("#ex-verdict").render())


async def test_ctrl_e_edits_in_editor_and_reloads(
    code_bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = write(
        tmp_path,
        "fake_editor.py",
        f"import sys\nopen(sys.argv[1], 'w').write({SHORT_GOOD!r})\n",
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    app = app_for(code_bank, ["t-code-softmax"])
    monkeypatch.setattr(app, "suspend", nullcontext)  # the test driver cannot suspend
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert app.screen.query_one("#editor").text == SHORT_GOOD  # type: ignore[attr-defined]
        await run_checks(pilot)
        assert str(app.screen.query_one("#ex-rate-3").label).endswith("←")  # first check: Good


async def test_giving_up_shows_the_solution_and_suggests_again(code_bank: Path) -> None:
    app = app_for(code_bank, ["t-code-softmax"])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+g")
        await pilot.pause()
        screen = app.screen
        assert "gave up" in screen.query_one("#ex-task-md").source  # type: ignore[attr-defined]
        assert str(screen.query_one("#ex-rate-1").label).endswith("←")
        await pilot.press("enter")  # the suggested rating's button has the focus
        await pilot.pause()
    assert reviews() == [("t-code-softmax", 1, 0)]


# --- Anki -------------------------------------------------------------------------------------


def test_anki_note_of_an_exercise_carries_the_reference_solution(code_bank: Path) -> None:
    from quizzer.study.anki import note_fields, note_tags

    bank: Bank = load_bank(code_bank, use_cache=False)
    q = bank.get("t-code-softmax")
    assert q is not None
    front, back, link = note_fields(bank, q)
    assert "numerically safe" in front and "NotImplementedError" in front  # task and starter
    assert "np.exp(x - m)" in back and "Key idea" in back and "Shifting a row" in back
    assert "<pre><code" in back and "caomaolufei.github.io" in link
    assert "kind::code" in note_tags(q) and "company::bytedance" in note_tags(q)


def test_anki_export_includes_the_exercise(
    code_bank: Path, cli: Callable[..., Result], tmp_path: Path
) -> None:
    import sqlite3
    import zipfile

    out = tmp_path / "deck.apkg"
    assert cli("export", "--format", "apkg", str(out)).exit_code == 0
    with zipfile.ZipFile(out) as archive:
        archive.extract("collection.anki2", tmp_path)
    db = sqlite3.connect(tmp_path / "collection.anki2")
    try:
        rows = db.execute("SELECT flds, tags FROM notes").fetchall()
    finally:
        db.close()
    assert len(rows) == 8  # the mini bank's 7 and the exercise
    [code] = [fields for fields, tags in rows if "kind::code" in tags]
    assert "np.exp(x - m)" in code


# --- mock interviews --------------------------------------------------------------------------


def test_a_mock_ends_with_one_exercise_when_it_has_time(code_bank: Path) -> None:
    from quizzer.study.mock import CODE_MINUTES, assemble_mock

    bank = load_bank(code_bank, use_cache=False)
    store = Store(Path(os.environ["QUIZZER_DB"]))
    try:
        long = assemble_mock(bank, store, "bytedance", minutes=45)
        assert [q.kind for q in long.questions].count("code") == 1
        assert long.questions[-1].id == "t-code-softmax" and long.exercise_minutes == CODE_MINUTES
        short = assemble_mock(bank, store, "bytedance", minutes=10)
        assert "code" not in [q.kind for q in short.questions] and short.exercise_minutes == 0
    finally:
        store.close()


def test_plain_mock_checks_the_exercise_and_saves_its_suggested_rating(
    code_bank: Path, cli: Callable[..., Result], tmp_path: Path
) -> None:
    naive, good = write(tmp_path, "naive.py", NAIVE), write(tmp_path, "good.py", GOOD)
    fed = f"prefill is compute-bound\n{naive}\n{good}\n\n3\n"
    result = cli("mock", "--company", "bytedance", "--plain", "--minutes", "45", input=fed)
    out = result.output
    assert result.exit_code == 0, out
    assert "The last question is a code exercise (about 15 minutes)" in out
    assert "✗ failed" in out and "✓ passed all" in out
    assert "Reference solution" not in out  # a mock shows no answer before the report
    assert "t-code-softmax" in out.split("Time per question:")[1]
    assert sorted(reviews()) == [("t-code-softmax", 2, 1), ("t-recall-one", 3, None)]


async def test_app_mock_runs_the_exercise_then_the_self_rating(code_bank: Path) -> None:
    app = app_for(code_bank, start_mock=("bytedance", 45.0))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert type(app.screen).__name__ == "StudyScreen"
        await pilot.press("x", "enter")  # the recall question; rated at the end
        await pilot.pause()
        screen = app.screen
        assert type(screen).__name__ == "ExerciseScreen"
        assert "⏱" in str(screen.query_one("#ex-clock").render())
        screen.query_one("#editor").load_text(SHORT_GOOD)  # type: ignore[attr-defined]
        await run_checks(pilot)
        assert type(app.screen).__name__ == "StudyScreen"  # no solution shown in a mock
        await pilot.press("tab", "3")  # the self-rating of the recall answer, on the buttons
        await pilot.pause()
        assert type(app.screen).__name__ == "SummaryScreen"
    assert sorted(reviews()) == [("t-code-softmax", 3, 1), ("t-recall-one", 3, None)]
