"""Check a user's hand-written operator (a `code` question) the way an interviewer would.

``check_file(question, path)`` reads the file, refuses syntax errors and imports outside a short
list (naming the line), then runs it in a separate Python process (quizzer.grading.exercise_child)
with a wall-clock limit, memory and CPU limits, no stdin, a scratch working folder and a trimmed
environment. The child calls the user's function on the public examples, the edge cases and fresh
random cases and saves each output as a plain .npy file; this process computes the reference
outputs itself from the same seed and compares. The user's module is never imported here, and
nothing the child writes is unpickled.

The import check keeps shortcuts and honest mistakes out (torch, scipy, files); the limits bound
what a run can cost. Neither is a sandbox for hostile code: the file is the user's own and runs
with the user's rights.

``validate_exercise(question)`` proves an exercise: its model solution passes, every mutant fails
(else the checks "have no teeth") and the shipped starter fails.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from quizzer.grading.exercise_run import POLL_S, ChildRun, read_limited
from quizzer.grading.exercise_scan import Refusal, defines, scan_source
from quizzer.grading.exercise_spec import ExerciseError, ExerciseSpec
from quizzer.grading.exercise_verdict import CaseReport, Verdict

if TYPE_CHECKING:
    from quizzer.content.models import CodeQuestion

__all__ = [
    "ExerciseError",
    "Verdict",
    "check_file",
    "check_many",
    "check_source",
    "load_spec",
    "scan_source",
    "validate_exercise",
    "validate_exercises",
]

MAX_SOURCE_BYTES = 256 * 2**10
VALIDATION_SEED = 20260101
"""Validation runs with a fixed seed, so its verdicts do not change between runs."""


def load_spec(checks: str) -> ExerciseSpec:
    """The ExerciseSpec at the dotted path ``checks``."""
    module_name, _, attr = checks.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # an ImportError or anything the module raises
        raise ExerciseError(f"checks {checks!r}: cannot import {module_name}: {exc}") from exc
    spec = getattr(module, attr, None)
    if not isinstance(spec, ExerciseSpec):
        raise ExerciseError(f"checks {checks!r}: {module_name} has no ExerciseSpec named {attr}")
    return spec


def _refused(refusal: Refusal) -> Verdict:
    code = [f"line {refusal.line}: {refusal.code}"] if refusal.code else []
    return Verdict(
        "cannot-run",
        f"line {refusal.line}: {refusal.message}",
        None,
        case=CaseReport("", [], "", traceback=code),
        line=refusal.line,
    )


def _read_source(path: Path) -> str | Verdict:
    try:
        data = read_limited(path, MAX_SOURCE_BYTES)
    except OSError as exc:
        return Verdict("cannot-run", f"cannot read {path}: {exc.strerror}")
    if data is None:
        return Verdict(
            "cannot-run", f"{path} is not a file of at most {MAX_SOURCE_BYTES // 1024} KB"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return Verdict("cannot-run", f"{path} is not UTF-8 text")


def new_seed() -> int:
    """A fresh seed for the random cases."""
    return int.from_bytes(os.urandom(4), "big") >> 1


def check_many(
    items: Sequence[tuple[CodeQuestion, str, int | None]], jobs: int = 1, name: str = "solution.py"
) -> list[Verdict | ExerciseError]:
    """Check several sources (question, source text, seed) with up to ``jobs`` child processes
    at a time; each result is a Verdict, or the ExerciseError of a broken exercise. ``name`` is
    how messages call the file."""
    results: list[Verdict | ExerciseError | None] = [None] * len(items)
    pending: list[tuple[int, CodeQuestion, ExerciseSpec, str, int]] = []
    for index, (question, source, seed) in enumerate(items):
        try:
            spec = load_spec(question.checks)
        except ExerciseError as exc:
            results[index] = exc
            continue
        refusal = scan_source(source, sorted(spec.imports))
        if refusal is not None:
            results[index] = _refused(refusal)
        else:
            pending.append((index, question, spec, source, new_seed() if seed is None else seed))
    running: list[tuple[int, ChildRun]] = []
    try:
        while pending or running:
            while pending and len(running) < max(1, jobs):
                index, question, spec, source, seed = pending.pop(0)
                running.append((index, ChildRun(question, spec, source, seed, name)))
            ready = [item for item in running if item[1].done()]
            if not ready:
                time.sleep(POLL_S)
                continue
            for item in ready:
                running.remove(item)
                index, run = item
                try:
                    results[index] = run.finish()
                except ExerciseError as exc:
                    results[index] = exc
    finally:  # interrupted (Ctrl-C): leave no child and no scratch folder behind
        for _, run in running:
            run.abandon()
    return [result for result in results if result is not None]


def check_source(
    question: CodeQuestion, source: str, seed: int | None = None, name: str = "solution.py"
) -> Verdict:
    """Check source text as if it were the user's file (called ``name`` in messages). Raises
    ExerciseError if the exercise itself is broken."""
    [result] = check_many([(question, source, seed)], name=name)
    if isinstance(result, ExerciseError):
        raise result
    return result


def check_file(question: CodeQuestion, path: Path, seed: int | None = None) -> Verdict:
    """Check the user's file at ``path`` against the question's checks (fresh random cases
    unless ``seed`` is given). Raises ExerciseError if the exercise itself is broken."""
    source = _read_source(Path(path))
    if isinstance(source, Verdict):
        return source
    return check_source(question, source, seed, name=Path(path).name)


def _static_problems(question: CodeQuestion, spec: ExerciseSpec) -> list[str]:
    problems = []
    if not spec.examples:
        problems.append("the checks have no public example (ExerciseSpec.examples)")
    if not spec.mutants:
        problems.append("the checks have no mutant: add a plausible wrong solution they reject")
    names = [mutant.name for mutant in spec.mutants]
    if len(set(names)) != len(names):
        problems.append(f"mutant names repeat: {names}")
    for label, source in (("starter", question.starter), ("model solution", spec.solution)):
        if not defines(source, question.entry):
            problems.append(f"the {label} does not define `{question.entry}`")
    return problems


def validate_exercises(
    questions: Sequence[CodeQuestion], jobs: int | None = None, seed: int = VALIDATION_SEED
) -> dict[str, list[str]]:
    """Problems per question id (only ids with problems): the model solution must pass, every
    mutant must fail, the starter must fail. Runs up to ``jobs`` checks at a time."""
    problems: dict[str, list[str]] = {}
    items: list[tuple[CodeQuestion, str, int | None]] = []
    roles: list[tuple[str, str, str]] = []  # (question id, role, mutant name or "")
    for question in questions:
        try:
            spec = load_spec(question.checks)
        except ExerciseError as exc:
            problems[question.id] = [str(exc)]
            continue
        found = _static_problems(question, spec)
        if found:
            problems[question.id] = found
        items.append((question, spec.solution, seed))
        roles.append((question.id, "solution", ""))
        for mutant in spec.mutants:
            items.append((question, mutant.source, seed))
            roles.append((question.id, "mutant", mutant.name))
        items.append((question, question.starter, seed))
        roles.append((question.id, "starter", ""))
    if jobs is None:
        jobs = min(4, os.cpu_count() or 1)
    results = check_many(items, jobs)
    for (question_id, role, name), result in zip(roles, results, strict=True):
        message = _judge_role(role, name, result, questions, question_id)
        if message:
            problems.setdefault(question_id, [])
            if message not in problems[question_id]:
                problems[question_id].append(message)
    return problems


def _judge_role(
    role: str,
    name: str,
    result: Verdict | ExerciseError,
    questions: Sequence[CodeQuestion],
    question_id: str,
) -> str | None:
    if isinstance(result, ExerciseError):
        return str(result)
    detail = f" — {result.case.problem}" if result.case is not None else ""
    if role == "solution" and not result.passed:
        return f"the model solution does not pass its checks: {result.summary}{detail}"
    if role == "mutant":
        if result.passed:
            spec = load_spec(next(q for q in questions if q.id == question_id).checks)
            why = next((m.why for m in spec.mutants if m.name == name), "")
            return f"checks have no teeth: mutant '{name}' passes" + (f" ({why})" if why else "")
        if result.seed is None:  # refused before it ran: it fails for the wrong reason
            return f"mutant '{name}' never runs: {result.summary}"
    if role == "starter":
        if result.passed:
            return "the starter passes the checks as shipped; it must fail until it is written"
        if result.seed is None:
            return f"the starter cannot be read: {result.summary}"
    return None


def validate_exercise(question: CodeQuestion) -> list[str]:
    """Problems with one code exercise (empty when its checks are sound)."""
    return validate_exercises([question]).get(question.id, [])
