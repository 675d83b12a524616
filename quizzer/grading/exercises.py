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

import ast
import contextlib
import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quizzer.grading.exercise_spec import ExerciseSpec
from quizzer.grading.exercise_verdict import (
    CaseReport,
    Verdict,
    cases_text,
    describe_input,
    values,
    window,
)

if TYPE_CHECKING:
    import numpy as np

    from quizzer.models import CodeQuestion

ALLOWED_IMPORTS = (
    "numpy",
    "math",
    "typing",
    "functools",
    "itertools",
    "collections",
    "heapq",
    "dataclasses",
)
"""What an exercise file may import (plus `__future__`, and an exercise's own `imports`)."""
REFUSED_NAMES = frozenset(
    {"__import__", "exec", "eval", "compile", "open", "input", "breakpoint", "globals", "vars"}
)
"""Built-ins an operator never needs: they load code or touch files outside the checks."""
REFUSED_ATTRIBUTES = frozenset(
    {"__subclasses__", "__globals__", "__builtins__", "__code__", "__loader__", "__import__"}
)
MEMORY_BYTES = 2 * 2**30
"""Address space the child may map (numpy, numba's simulator threads and the user's arrays)."""
MAX_SOURCE_BYTES = 256 * 2**10
MAX_OUTPUT_BYTES = 64 * 2**20
"""The largest file the child may write; an output beyond it is refused."""
MAX_STATUS_BYTES = 4 * 2**20
PRINTED_TAIL = 1500
"""How many characters of what the user's code printed a report keeps."""
VALIDATION_SEED = 20260101
"""Validation runs with a fixed seed, so its verdicts do not change between runs."""


class ExerciseError(Exception):
    """The exercise itself is broken (bad `checks` path, a reference that raises): not the
    user's fault, and reported as a bank problem."""


@dataclass(frozen=True)
class Refusal:
    """Why a file is not run: a syntax error or a refused import, at a line."""

    line: int
    col: int
    message: str
    code: str = ""


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


def scan_source(source: str, extra_imports: Sequence[str] = ()) -> Refusal | None:
    """The first reason not to run ``source`` (a syntax error, a refused import or built-in),
    or None. Parses and compiles without executing anything."""
    try:
        tree = ast.parse(source)
        compile(tree, "<exercise>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return Refusal(
            exc.lineno or 1, exc.offset or 1, f"SyntaxError: {exc.msg}", (exc.text or "").rstrip()
        )
    except ValueError as exc:  # null bytes
        return Refusal(1, 1, f"cannot be compiled: {exc}")
    allowed = {*ALLOWED_IMPORTS, *extra_imports}
    listed = ", ".join(sorted(allowed))
    lines = source.splitlines()
    found: list[Refusal] = []

    def refuse(node: ast.AST, message: str) -> None:
        line = getattr(node, "lineno", 1)
        code = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        found.append(Refusal(line, getattr(node, "col_offset", 0) + 1, message, code))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in allowed:
                    refuse(
                        node, f"`import {alias.name}` is not allowed here; {_MAY_IMPORT}{listed}"
                    )
        elif isinstance(node, ast.ImportFrom):
            top = (node.module or "").split(".")[0]
            if node.level:
                refuse(node, "relative imports are not allowed: the file is checked on its own")
            elif top != "__future__" and top not in allowed:
                refuse(
                    node,
                    f"`from {node.module} import ...` is not allowed here; {_MAY_IMPORT}{listed}",
                )
        elif isinstance(node, ast.Name) and node.id in REFUSED_NAMES:
            refuse(
                node,
                f"`{node.id}` is not available in exercises: an operator needs no files or "
                "dynamic code",
            )
        elif isinstance(node, ast.Attribute) and node.attr in REFUSED_ATTRIBUTES:
            refuse(node, f"`.{node.attr}` is not available in exercises")
    return min(found, key=lambda r: (r.line, r.col)) if found else None


_MAY_IMPORT = "exercise files may import "


def _roots() -> list[str]:
    """The folders holding the quizzer and solutions packages, for the child's sys.path."""
    import quizzer
    import solutions

    found = [str(Path(quizzer.__file__).resolve().parent.parent)]
    found.append(str(Path(solutions.__file__).resolve().parent.parent))
    return list(dict.fromkeys(found))


_BOOT = (
    "import sys; sys.path[:0] = sys.argv[2:]; "
    "from quizzer.grading.exercise_child import main; main(sys.argv[1])"
)


def _environment(scratch: Path, cuda_sim: bool) -> dict[str, str]:
    """A trimmed environment: no secrets, one BLAS thread, everything pointed at the scratch."""
    env = {
        "PATH": os.defpath,
        "HOME": str(scratch),
        "TMPDIR": str(scratch),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMBA_CACHE_DIR": str(scratch),
    }
    if cuda_sim:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    if "SYSTEMROOT" in os.environ:  # Windows cannot start Python without it
        env["SYSTEMROOT"] = os.environ["SYSTEMROOT"]
    return env


class _Run:
    """One child process checking one file."""

    def __init__(
        self, question: CodeQuestion, spec: ExerciseSpec, source: str, seed: int, name: str
    ) -> None:
        self.question, self.spec, self.seed, self.name = question, spec, seed, name
        self.scratch = Path(tempfile.mkdtemp(prefix="quizzer-check-"))
        user_file = self.scratch / "solution.py"
        self.user_file = str(user_file)
        user_file.write_text(source, "utf-8")
        job = {
            "user_file": str(user_file),
            "entry": question.entry,
            "checks": question.checks,
            "seed": seed,
            "scratch": str(self.scratch),
            "memory_bytes": MEMORY_BYTES,
            "cpu_seconds": int(question.time_limit_s) + 2,
            "file_bytes": MAX_OUTPUT_BYTES,
        }
        job_file = self.scratch / "job.json"
        job_file.write_text(json.dumps(job), "utf-8")
        self.printed = (self.scratch / "printed.txt").open("wb")
        self.started = time.monotonic()
        self.deadline = self.started + question.time_limit_s
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-B", "-c", _BOOT, str(job_file), *_roots()],
            cwd=self.scratch,
            env=_environment(self.scratch, spec.cuda_sim),
            stdin=subprocess.DEVNULL,
            stdout=self.printed,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so a timeout stops all of it
            close_fds=True,
        )

    def done(self) -> bool:
        """Whether the child has ended or run out of time."""
        return self.proc.poll() is not None or time.monotonic() >= self.deadline

    def finish(self) -> Verdict:
        """Wait for the child (stopping it at the time limit) and judge what it wrote."""
        timed_out = False
        try:
            self.proc.wait(timeout=max(0.0, self.deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        finally:
            self.printed.close()
        try:
            verdict = _judge(self, timed_out)
            verdict.seconds = round(time.monotonic() - self.started, 3)
            return verdict
        finally:
            shutil.rmtree(self.scratch, ignore_errors=True)


def _read_small(path: Path, limit: int) -> bytes | None:
    if path.is_symlink() or not path.is_file() or path.stat().st_size > limit:
        return None
    return path.read_bytes()


def _printed(run: _Run) -> str:
    data = _read_small(run.scratch / "printed.txt", 64 * 2**20) or b""
    text = data.decode("utf-8", "replace").strip().replace(run.user_file, run.name)
    return text[-PRINTED_TAIL:]


def _load_output(path: Path) -> np.ndarray | str:
    """A saved output, or why it cannot be used. Never unpickles."""
    import numpy as np

    if path.is_symlink() or not path.is_file():
        return "no output was saved"
    if path.stat().st_size > MAX_OUTPUT_BYTES:
        return "the output is too large"
    try:
        return np.asarray(np.load(path, allow_pickle=False))
    except (ValueError, OSError, EOFError) as exc:
        return f"the output cannot be read: {exc}"


def _timeout_summary(run: _Run, cases: list[tuple[str, dict[str, Any]]]) -> Verdict:
    marker = _read_small(run.scratch / "current", 64)
    index = int(marker) if marker and marker.strip().isdigit() else None
    limit = f"{run.question.time_limit_s:g} s"
    if index is None or index >= len(cases):
        return Verdict("cannot-run", f"timed out after {limit} before any check ran", run.seed)
    name, case = cases[index]
    report = CaseReport(
        name, [describe_input(k, v) for k, v in case.items()], f"still running after {limit}"
    )
    return Verdict(
        "cannot-run",
        f"timed out after {limit} on check '{name}' (an endless loop, or far too slow)",
        run.seed,
        len(cases),
        case=report,
        printed=_printed(run),
    )


def _crash_summary(run: _Run) -> Verdict:
    code = run.proc.returncode
    if code is not None and code < 0:
        name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
        why = {
            "SIGXCPU": f"used more than {run.question.time_limit_s:g} s of CPU time",
            "SIGKILL": "was killed (out of memory?)",
            "SIGSEGV": "crashed (segmentation fault)",
        }.get(name, f"was stopped by {name}")
        summary = f"the check process {why}"
    else:
        summary = f"the check process ended without a result (exit code {code})"
    return Verdict("cannot-run", summary, run.seed, printed=_printed(run))


def _error_verdict(
    run: _Run, error: dict[str, Any], cases: list[tuple[str, dict[str, Any]]]
) -> Verdict:
    frames = [f for f in error.get("frames") or [] if isinstance(f, dict)]
    trace = [f"line {f.get('line')}, in {f.get('function')}: {f.get('code')}" for f in frames]
    line = frames[-1].get("line") if frames else error.get("line")
    message = str(error.get("message", "an error"))
    index = error.get("case")
    if error.get("phase") == "load":
        where = f"line {line}: " if line else ""
        summary = f"{where}{message} (while loading the file)"
        report = CaseReport("loading the file", [], message, traceback=trace)
        return Verdict(
            "cannot-run", summary, run.seed, case=report, line=line, printed=_printed(run)
        )
    name, case = cases[index] if isinstance(index, int) and 0 <= index < len(cases) else ("?", {})
    report = CaseReport(
        name, [describe_input(k, v) for k, v in case.items()], message, traceback=trace
    )
    summary = f"your function raised {error.get('type', 'an error')} on check '{name}'"
    return Verdict(
        "cannot-run", summary, run.seed, len(cases), case=report, line=line, printed=_printed(run)
    )


def _compare_case(
    spec: ExerciseSpec, name: str, case: dict[str, Any], output: np.ndarray | str
) -> CaseReport | None:
    try:
        expected = spec.expected(case)
    except Exception as exc:
        raise ExerciseError(
            f"the reference raised {type(exc).__name__}: {exc} on '{name}'"
        ) from exc
    inputs = [describe_input(k, v) for k, v in case.items()]
    if isinstance(output, str):
        return CaseReport(name, inputs, output)
    tol = spec.tolerance(expected.dtype)
    mismatch = spec.compare(expected, output, case, tol)
    if mismatch is None:
        return None
    report = CaseReport(
        name, inputs, mismatch.message, max_abs=mismatch.max_abs, max_rel=mismatch.max_rel
    )
    if mismatch.index is not None and output.shape == expected.shape:
        where, shown = window(expected, mismatch.index)
        report.expected = f"{where}: {values(shown)}".lstrip(": ")
        report.got = f"{where}: {values(window(output, mismatch.index)[1])}".lstrip(": ")
    elif output.shape != expected.shape:
        report.expected = f"shape {expected.shape}: {values(expected)}"
        report.got = f"shape {output.shape}: {values(output)}"
    if mismatch.max_abs is not None:
        report.tolerance = f"rtol {tol.rtol:g}, atol {tol.atol:g} for {expected.dtype}"
    return report


def _size(case: dict[str, Any]) -> int:
    return sum(int(getattr(value, "size", 1)) for value in case.values())


def _judge(run: _Run, timed_out: bool) -> Verdict:
    spec = run.spec
    cases = spec.cases(run.seed)
    if timed_out:
        return _timeout_summary(run, cases)
    raw = _read_small(run.scratch / "status.json", MAX_STATUS_BYTES)
    try:
        status = json.loads(raw) if raw is not None else None
        error = status["error"] if status is not None else None
        finished = len(status["cases"]) if status is not None else 0
    except (ValueError, TypeError, KeyError):
        status = None
    if status is None:
        return _crash_summary(run)
    if isinstance(error, dict) and error.get("phase") == "spec":
        raise ExerciseError(f"the checks cannot build their cases: {error.get('message')}")
    if isinstance(error, dict):
        return _error_verdict(run, error, cases)
    if finished != len(cases):
        return _crash_summary(run)
    failures: list[tuple[int, CaseReport]] = []
    for index, (name, case) in enumerate(cases):
        report = _compare_case(spec, name, case, _load_output(run.scratch / f"out-{index}.npy"))
        if report is not None:
            failures.append((_size(case), report))
    if not failures:
        return Verdict(
            "passed", f"passed all {len(cases)} checks", run.seed, len(cases), printed=""
        )
    names = [report.name for _, report in failures]
    smallest = min(failures, key=lambda item: item[0])[1]
    return Verdict(
        "failed",
        f"failed {len(failures)} of {len(cases)} checks: {cases_text(names)}",
        run.seed,
        len(cases),
        failed=names,
        case=smallest,
        printed=_printed(run),
    )


def _refused(refusal: Refusal) -> Verdict:
    report = CaseReport(
        "reading the file",
        [],
        refusal.message,
        traceback=[f"line {refusal.line}: {refusal.code}"] if refusal.code else [],
    )
    return Verdict(
        "cannot-run",
        f"line {refusal.line}: {refusal.message}",
        None,
        case=report,
        line=refusal.line,
    )


def _read_source(path: Path) -> str | Verdict:
    try:
        data = _read_small(path, MAX_SOURCE_BYTES)
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
    running: list[tuple[int, _Run]] = []
    while pending or running:
        while pending and len(running) < max(1, jobs):
            index, question, spec, source, seed = pending.pop(0)
            running.append((index, _Run(question, spec, source, seed, name)))
        ready = [item for item in running if item[1].done()]
        if not ready:
            time.sleep(0.01)
            continue
        for item in ready:
            running.remove(item)
            index, run = item
            try:
                results[index] = run.finish()
            except ExerciseError as exc:
                results[index] = exc
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


def _defines(source: str, name: str) -> bool:
    """Whether ``source`` defines ``name`` at its top level."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == name:
                return True
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
    return False


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
        if not _defines(source, question.entry):
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
