"""Code exercises: every exercise in the bank is proven (its model solution passes, each mutant
and the starter fail), and the checker behaves as a user needs: wrong answers show the smallest
failing input and the errors, files that cannot run get exit code 2 and a line number, runaway
code is stopped, and the user's module never enters the quizzer process."""

from __future__ import annotations

import sys
import textwrap
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from click.testing import Result

from quizzer.content.models import CodeQuestion
from quizzer.content.yamlsrc import safe_load
from quizzer.grading import exercise_run, exercises
from quizzer.grading.exercise_spec import ExerciseSpec, mutate
from quizzer.grading.exercise_verdict import Verdict
from quizzer.grading.exercises import (
    ExerciseError,
    check_file,
    check_many,
    check_source,
    load_spec,
    scan_source,
    validate_exercises,
)
from tests.conftest import SHIPPED_BANK, make_bank

SEED = 20260101


@cache
def bank_exercises() -> tuple[CodeQuestion, ...]:
    """The code questions of the shipped bank, read straight from the files (no cache)."""
    found = []
    for path in sorted((SHIPPED_BANK / "questions").glob("*/*.yaml")):
        text = path.read_text("utf-8")
        if "kind: code" not in text:
            continue
        for raw in safe_load(text) or []:
            if raw.get("kind") == "code":
                found.append(CodeQuestion.model_validate(raw))
    return tuple(found)


def roles() -> list[tuple[str, str, str]]:
    """(question id, role, mutant name) for every run the bank's exercises need."""
    found = []
    for question in bank_exercises():
        spec = load_spec(question.checks)
        found.append((question.id, "solution", ""))
        found += [(question.id, "mutant", mutant.name) for mutant in spec.mutants]
        found.append((question.id, "starter", ""))
    return found


def source_of(question: CodeQuestion, role: str, name: str) -> str:
    spec = load_spec(question.checks)
    if role == "solution":
        return spec.solution
    if role == "starter":
        return question.starter
    return next(m.source for m in spec.mutants if m.name == name)


@pytest.fixture(scope="module")
def bank_verdicts() -> dict[tuple[str, str, str], Verdict]:
    """Every run of every bank exercise, two child processes at a time."""
    by_id = {q.id: q for q in bank_exercises()}
    keys = roles()
    items = [(by_id[qid], source_of(by_id[qid], role, name), SEED) for qid, role, name in keys]
    results = check_many(items, jobs=2)
    verdicts = {}
    for key, result in zip(keys, results, strict=True):
        assert isinstance(result, Verdict), f"{key}: the exercise is broken: {result}"
        verdicts[key] = result
    return verdicts


def test_the_bank_has_the_first_exercises() -> None:
    ids = {q.id for q in bank_exercises()}
    assert len(ids) >= 10
    assert {"code-safe-softmax", "code-flash-attention-v1-forward", "code-cuda-block-reduce"} <= ids


@pytest.mark.slow  # ~3 min of child processes; `quizzer validate` runs the same proof (in CI too)
@pytest.mark.parametrize(("question_id", "role", "mutant"), roles())
def test_bank_exercise_solution_passes_mutants_and_starter_fail(
    bank_verdicts: dict[tuple[str, str, str], Verdict], question_id: str, role: str, mutant: str
) -> None:
    verdict = bank_verdicts[(question_id, role, mutant)]
    if role == "solution":
        assert verdict.passed, verdict.report()
    else:
        assert not verdict.passed, f"{role} {mutant!r} passes: the checks have no teeth"
        assert verdict.seed is not None, f"{role} {mutant!r} never ran: {verdict.summary}"


@pytest.mark.parametrize("question", bank_exercises(), ids=lambda q: q.id)
def test_every_bank_exercise_has_examples_hints_zh_and_a_starter_defining_the_entry(
    question: CodeQuestion,
) -> None:
    spec = load_spec(question.checks)
    assert spec.examples and spec.mutants
    assert f"def {question.entry}(" in question.starter
    assert question.zh is not None and question.zh.hints is not None
    assert len(question.zh.hints) == len(question.hints)
    assert scan_source(question.starter, sorted(spec.imports)) is None


# --- the checker, on the safe softmax exercise ----------------------------------------------


def softmax_question(time_limit_s: float = 10) -> CodeQuestion:
    return CodeQuestion(
        kind="code",
        id="t-softmax",
        prompt="Write softmax.",
        explanation="Subtract the max.",
        topics=["numerical-stability"],
        articles=["m2-c5-5.1"],
        difficulty=2,
        entry="softmax",
        starter="import numpy as np\n\n\ndef softmax(x):\n    raise NotImplementedError\n",
        checks="solutions.exercises.softmax.SAFE_SOFTMAX",
        hints=["Subtract the row max."],
        time_limit_s=time_limit_s,
    )


def write(tmp_path: Path, source: str, name: str = "softmax.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source), "utf-8")
    return path


GOOD = """\
import numpy as np


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
"""


def test_a_correct_file_passes_with_exit_code_0(tmp_path: Path) -> None:
    verdict = check_file(softmax_question(), write(tmp_path, GOOD), seed=7)
    assert verdict.status == "passed" and verdict.exit_code == 0
    assert verdict.report().startswith("✓ passed all") and "(seed 7)" in verdict.report()


def test_a_wrong_answer_shows_the_smallest_failing_input_and_the_errors(tmp_path: Path) -> None:
    naive = GOOD.replace("np.exp(x - x.max(axis=-1, keepdims=True))", "np.exp(x)")
    verdict = check_file(softmax_question(), write(tmp_path, naive), seed=7)
    assert verdict.status == "failed" and verdict.exit_code == 1
    assert verdict.case is not None
    assert verdict.case.name == "edge: large logits (around +1000)"  # the smallest that fails
    report = verdict.report()
    assert "smallest failing input: edge: large logits" in report
    assert "x: float32 (2, 7) [" in report  # shape and a few values
    assert "expected at [0, 0:7]: [" in report and "got      at [0, 0:7]: [nan" in report
    assert "max abs error inf, max rel error inf" in report
    assert "rtol 0.0001, atol 1e-05 for float32" in report
    assert "softmax.py:" in report and "quizzer-check-" not in report  # warnings name the file


def test_values_off_by_a_little_report_finite_errors(tmp_path: Path) -> None:
    off = GOOD.replace(
        "return e / e.sum(axis=-1, keepdims=True)", "return e / e.sum(-1, keepdims=True) * 1.01"
    )
    verdict = check_file(softmax_question(), write(tmp_path, off), seed=3)
    assert verdict.status == "failed" and verdict.case is not None
    assert verdict.case.max_rel == pytest.approx(0.01, rel=1e-3)
    assert 0 < (verdict.case.max_abs or 0) < 0.02


def test_a_syntax_error_is_exit_2_naming_the_line_without_running_anything(tmp_path: Path) -> None:
    path = write(tmp_path, "import numpy as np\n\n\ndef softmax(x)\n    return x\n")
    verdict = check_file(softmax_question(), path)
    assert verdict.status == "cannot-run" and verdict.exit_code == 2
    assert verdict.line == 4 and verdict.summary.startswith("line 4: SyntaxError")
    assert verdict.seed is None  # refused before any process started


@pytest.mark.parametrize(
    ("source", "line", "words"),
    [
        ("import numpy as np\nimport torch\n", 2, "`import torch` is not allowed"),
        (
            "import numpy as np\n\nfrom scipy.special import softmax\n",
            3,
            "`from scipy.special import",
        ),
        ("import numpy as np\nos = __import__('os')\n", 2, "`__import__` is not available"),
        ("from . import helper\n", 1, "relative imports are not allowed"),
        ("import numpy as np\n\ndef softmax(x):\n    return open('x').read()\n", 4, "`open`"),
        ("from numba import cuda\n", 1, "`from numba import ...` is not allowed"),
    ],
)
def test_a_refused_import_is_exit_2_naming_the_line(
    tmp_path: Path, source: str, line: int, words: str
) -> None:
    verdict = check_file(softmax_question(), write(tmp_path, source))
    assert verdict.exit_code == 2 and verdict.line == line, verdict.summary
    assert verdict.summary.startswith(f"line {line}: ") and words in verdict.summary
    assert (
        "numpy" in verdict.summary
        or "not available" in verdict.summary
        or "relative" in verdict.summary
    )


def test_the_allowed_modules_and_future_imports_pass_the_scan() -> None:
    source = (
        "from __future__ import annotations\nimport math, typing, functools, itertools, heapq\n"
        "from collections import deque\nfrom dataclasses import dataclass\nimport numpy.linalg\n"
    )
    assert scan_source(source) is None
    assert scan_source("from numba import cuda\n", ["numba"]) is None


def test_an_exception_shows_the_users_traceback_lines_only(tmp_path: Path) -> None:
    source = """\
        import numpy as np


        def helper(x):
            return x[:, 0] / 0 + x[5]


        def softmax(x):
            return helper(x)
        """
    verdict = check_file(softmax_question(), write(tmp_path, source), seed=1)
    assert verdict.status == "cannot-run" and verdict.exit_code == 2
    assert verdict.case is not None and verdict.case.name == "example 1"
    assert verdict.case.traceback == [
        "line 9, in softmax: return helper(x)",
        "line 5, in helper: return x[:, 0] / 0 + x[5]",
    ]
    assert verdict.line == 5
    assert "IndexError" in verdict.case.problem
    report = verdict.report()
    assert "site-packages" not in report and "exercise_child" not in report


def test_a_file_without_the_entry_or_returning_none_cannot_run(tmp_path: Path) -> None:
    other = check_file(softmax_question(), write(tmp_path, "def soft_max(x):\n    return x\n"))
    assert other.exit_code == 2 and "defines no function named `softmax`" in other.summary
    none = check_file(softmax_question(), write(tmp_path, "def softmax(x):\n    x.sum()\n"))
    assert none.exit_code == 2 and none.case is not None
    assert "returned None (is a `return` missing?)" in none.case.problem


def test_an_endless_loop_is_stopped_well_under_a_minute(tmp_path: Path) -> None:
    source = "def softmax(x):\n    while True:\n        pass\n"
    started = time.monotonic()
    verdict = check_file(softmax_question(time_limit_s=0.5), write(tmp_path, source), seed=1)
    elapsed = time.monotonic() - started
    assert elapsed < 15
    assert verdict.exit_code == 2
    assert verdict.summary.startswith("timed out after 0.5 s on check 'example 1'")


def test_an_endless_loop_at_import_is_stopped_too(tmp_path: Path) -> None:
    source = "while True:\n    pass\n"
    verdict = check_file(softmax_question(time_limit_s=0.5), write(tmp_path, source))
    assert verdict.exit_code == 2
    assert "timed out after 0.5 s before any check ran" in verdict.summary


def test_the_time_limit_is_the_users_code_not_a_slow_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A busy machine is slow to start Python: a correct file still passes a limit shorter than that.
    slow_boot = "import time; time.sleep(0.7); " + exercise_run._BOOT
    monkeypatch.setattr(exercise_run, "_BOOT", slow_boot)
    verdict = check_file(softmax_question(time_limit_s=0.5), write(tmp_path, GOOD), seed=3)
    assert verdict.passed, verdict.summary
    assert verdict.seconds > 0.7


def test_a_child_that_never_gets_ready_is_stopped_and_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(exercise_run, "_BOOT", "while True: pass")
    monkeypatch.setattr(exercise_run, "STARTUP_S", 0.3)
    verdict = check_file(softmax_question(time_limit_s=0.5), write(tmp_path, GOOD), seed=3)
    assert verdict.exit_code == 2
    assert verdict.summary.startswith("the check process was not ready after 0.3 s")


def test_memory_is_limited(tmp_path: Path) -> None:
    source = "import numpy as np\n\ndef softmax(x):\n    return np.ones(2**31) + x.sum()\n"
    verdict = check_file(softmax_question(), write(tmp_path, source), seed=1)
    assert verdict.exit_code == 2 and verdict.case is not None
    assert "MemoryError" in verdict.case.problem and "2 GB" in verdict.case.problem


def test_the_quizzer_process_never_imports_the_user_module(tmp_path: Path) -> None:
    before = set(sys.modules)
    path = write(tmp_path, GOOD + "\nMARKER = 'loaded'\n", name="my_softmax.py")
    assert check_file(softmax_question(), path, seed=2).passed
    vector_add = next(q for q in bank_exercises() if q.id == "code-cuda-vector-add")
    kernel = write(tmp_path, load_spec(vector_add.checks).solution, name="add.py")
    assert check_file(vector_add, kernel, seed=2).passed
    added = set(sys.modules) - before
    assert not {"user_solution", "my_softmax", "add"} & added
    assert not [name for name in sys.modules if name.split(".")[0] == "numba"]
    assert not [
        name
        for name, module in sys.modules.items()
        if str(getattr(module, "__file__", "") or "").startswith(str(tmp_path))
    ]
    assert not list(tmp_path.glob("__pycache__"))  # nothing compiled next to the user's file


def test_the_user_cannot_damage_the_reference_by_editing_inputs(tmp_path: Path) -> None:
    source = GOOD.replace(
        "    e = np.exp", "    y = x.copy()\n    x[...] = 0\n    e = np.exp"
    ).replace("(x - x.max", "(y - y.max")
    assert check_file(softmax_question(), write(tmp_path, source), seed=4).passed


def test_same_seed_same_cases_and_a_new_seed_new_random_cases() -> None:
    spec = load_spec("solutions.exercises.softmax.SAFE_SOFTMAX")
    first, again, other = spec.cases(11), spec.cases(11), spec.cases(12)
    assert [name for name, _ in first] == [name for name, _ in other]
    assert all((a["x"] == b["x"]).all() for (_, a), (_, b) in zip(first, again, strict=True))
    assert any(
        a["x"].shape != b["x"].shape or (a["x"] != b["x"]).any()
        for (name, a), (_, b) in zip(first, other, strict=True)
        if name.startswith("random")
    )


def test_a_broken_checks_path_is_an_exercise_error(tmp_path: Path) -> None:
    question = softmax_question().model_copy(update={"checks": "solutions.exercises.softmax.NOPE"})
    with pytest.raises(ExerciseError, match="has no ExerciseSpec named NOPE"):
        check_source(question, GOOD)


def test_mutate_needs_exactly_one_occurrence() -> None:
    assert mutate("a + b", "+", "-") == "a - b"
    with pytest.raises(ValueError, match="occurs 0 times"):
        mutate("a + b", "*", "-")
    with pytest.raises(ValueError, match="occurs 2 times"):
        mutate("a + a", "a", "b")


# --- validation -----------------------------------------------------------------------------


def test_validation_names_toothless_mutants_a_failing_solution_and_a_passing_starter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    question = softmax_question()
    spec = load_spec(question.checks)
    runs = 2 + len(spec.mutants)
    passing = Verdict("passed", "passed all 19 checks", seed=1)
    failing = Verdict("failed", "failed 1 of 19 checks", seed=1)

    def fake(items: object, jobs: int = 1) -> list[Verdict]:
        # solution fails, the first mutant passes, the others fail, the starter passes
        return [failing, passing] + [failing] * (runs - 3) + [passing]

    monkeypatch.setattr(exercises, "check_many", fake)
    [problems] = validate_exercises([question]).values()
    assert problems == [
        "the model solution does not pass its checks: failed 1 of 19 checks",
        f"checks have no teeth: mutant '{spec.mutants[0].name}' passes ({spec.mutants[0].why})",
        "the starter passes the checks as shipped; it must fail until it is written",
    ]


def test_validation_flags_a_spec_without_examples_or_mutants(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = load_spec("solutions.exercises.softmax.SAFE_SOFTMAX")
    bare = ExerciseSpec(
        reference=spec.reference,
        make_case=spec.make_case,
        solution=spec.solution,
        mutants=(),
        examples=(),
    )
    monkeypatch.setattr(exercises, "load_spec", lambda checks: bare)
    monkeypatch.setattr(
        exercises, "check_many", lambda items, jobs=1: [Verdict("passed", "ok", 1)] * 2
    )
    [problems] = validate_exercises([softmax_question()]).values()
    assert "the checks have no public example (ExerciseSpec.examples)" in problems
    assert "the checks have no mutant: add a plausible wrong solution they reject" in problems


CODE_QUESTION = """\
- id: t-code-softmax
  kind: code
  prompt: Write softmax.
  entry: softmax
  starter: |
    import numpy as np


    def softmax(x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
  checks: solutions.exercises.softmax.SAFE_SOFTMAX
  hints: [Subtract the row max.]
  explanation: Subtracting the max keeps exp finite.
  topics: [numerical-stability]
  articles: [m2-c5-5.1]
  difficulty: 2
  zh: {prompt: 写 softmax。, hints: [减去每行最大值。]}
"""


def test_quizzer_validate_reports_a_bad_exercise_at_its_line(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    bank = make_bank(tmp_path / "bank", CODE_QUESTION)
    result = cli("--bank", str(bank), "validate")
    assert result.exit_code == 1
    assert (
        "questions/test/mini.yaml:1:3: t-code-softmax: the starter passes the checks as shipped"
        in result.output
    )


def test_quizzer_validate_reports_checks_that_lead_nowhere(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    gone = CODE_QUESTION.replace("exercises.softmax.SAFE_SOFTMAX", "exercises.no_such.SAFE_SOFTMAX")
    renamed = CODE_QUESTION.replace("t-code-softmax", "t-code-other").replace(
        "SAFE_SOFTMAX", "NO_SUCH_SPEC"
    )
    bank = make_bank(tmp_path / "bank", gone + renamed)
    result = cli("--bank", str(bank), "validate")
    assert result.exit_code == 1
    assert (
        "mini.yaml:1:3: t-code-softmax: checks 'solutions.exercises.no_such.SAFE_SOFTMAX': "
        "cannot import solutions.exercises.no_such" in result.output
    )
    assert (
        "t-code-other: checks 'solutions.exercises.softmax.NO_SUCH_SPEC': "
        "solutions.exercises.softmax has no ExerciseSpec named NO_SUCH_SPEC" in result.output
    )


def test_quizzer_validate_counts_sound_exercises(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    body = "        e = np.exp(x - x.max(axis=-1, keepdims=True))\n"
    body += "        return e / e.sum(axis=-1, keepdims=True)"
    failing_starter = CODE_QUESTION.replace(body, "        raise NotImplementedError")
    bank = make_bank(tmp_path / "bank", failing_starter)
    result = cli("--bank", str(bank), "validate")
    assert result.exit_code == 0, result.output
    assert "1 questions (0 recall, 0 choice, 0 numeric, 1 code) in 1 files" in result.output


def test_zh_hints_must_match_and_belong_to_code_questions(tmp_path: Path) -> None:
    from quizzer.content.bank import BankError, load_bank

    two_zh = CODE_QUESTION.replace("hints: [减去每行最大值。]", "hints: [一, 二]")
    with pytest.raises(BankError) as caught:
        load_bank(make_bank(tmp_path / "a", two_zh), use_cache=False)
    assert any("zh.hints has 2 hints but hints has 1" in str(d) for d in caught.value.diagnostics)
    recall = """\
- id: t-recall
  kind: recall
  prompt: Why subtract the max?
  answer: So exp stays finite.
  key_points: [finite]
  explanation: The shift cancels.
  topics: [numerical-stability]
  articles: [m2-c5-5.1]
  difficulty: 1
  zh: {prompt: 为什么减最大值？, hints: [提示]}
"""
    with pytest.raises(BankError) as caught:
        load_bank(make_bank(tmp_path / "b", recall), use_cache=False)
    assert [str(d).split(":", 1)[1] for d in caught.value.diagnostics] == [
        "10:33: zh.hints is only for code questions"
    ]


def test_exercises_are_served_questions_and_survive_the_cache(tmp_path: Path) -> None:
    from quizzer.content.bank import load_bank

    root = make_bank(tmp_path / "bank", CODE_QUESTION)
    first = load_bank(root)
    assert [q.id for q in first.exercises] == ["t-code-softmax"]
    assert first.questions == first.exercises and "t-code-softmax" in first.locations
    assert first.get("t-code-softmax") is first.exercises[0]
    cached = load_bank(root)
    assert cached.exercises == first.exercises and cached.questions == first.questions


def test_allclose_and_exact_judge_shape_dtype_and_values() -> None:
    import numpy as np

    from quizzer.grading.exercise_spec import EXACT, Tolerance, allclose, exact

    tol = Tolerance(1e-4, 1e-5)
    expected = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    assert allclose(expected, expected + 1e-6, {}, tol) is None
    shape = allclose(expected, expected.T.reshape(4), {}, tol)
    assert shape is not None and shape.message == "the output has shape (4,), expected (2, 2)"
    ints = allclose(expected, expected.astype(np.int64), {}, tol)
    assert ints is not None and "expected a float array" in ints.message
    off = allclose(expected, np.array([[1.0, 2.0], [3.0, np.nan]], dtype=np.float32), {}, tol)
    assert off is not None and off.index == (1, 1) and off.max_abs == float("inf")
    assert off.message == "1 of 4 values differ (1 of them NaN or inf)"
    counts = np.array([3, 0, 2])
    assert exact(counts, counts.copy(), {}, EXACT) is None
    wrong = exact(counts, np.array([3, 1, 2]), {}, EXACT)
    assert wrong is not None and wrong.index == (1,) and wrong.max_abs == 1.0
