"""One check of one file in a child process, and the verdict on what the child wrote.

The child (quizzer.grading.exercise_child) runs with a wall-clock limit enforced here, memory and
CPU limits it sets on itself, no stdin, a scratch working folder and a trimmed environment. This
side computes the reference outputs from the same seed, reads back only plain .npy files
(``allow_pickle=False``) and a JSON status, and compares.

The exercise's time limit is the user's code's: it counts from the moment the child has started
Python, imported numpy and built the cases, and is about to load the user's file. Until then the
child has STARTUP_S, so a slow or busy machine does not spend the user's seconds on start-up.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quizzer.grading.exercise_child import STARTED
from quizzer.grading.exercise_spec import ExerciseError, ExerciseSpec
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

    from quizzer.content.models import CodeQuestion

MEMORY_BYTES = 2 * 2**30
"""Address space the child may map (numpy, numba's simulator threads and the user's arrays)."""
MAX_OUTPUT_BYTES = 64 * 2**20
"""The largest file the child may write; an output beyond it is refused."""
MAX_STATUS_BYTES = 4 * 2**20
PRINTED_TAIL = 1500
"""How many characters of what the user's code printed a report keeps."""
POLL_S = 0.01
"""How often a waiting check looks at its child."""
STARTUP_S = 30.0
"""How long the child may take to get ready (Python, numpy, the cases) before the user's file."""


def _roots() -> list[str]:
    """The folders holding the quizzer and solutions packages, first on the child's sys.path."""
    import quizzer
    import solutions

    found = [str(Path(quizzer.__file__).resolve().parent.parent)]
    found.append(str(Path(solutions.__file__).resolve().parent.parent))
    return list(dict.fromkeys(found))


def _library_paths() -> list[str]:
    """Where numpy and numba live, appended to the child's sys.path: ``python -I`` leaves out
    the user's site-packages, where they may be installed. numba is located, not imported."""
    import importlib.util

    found = []
    for name in ("numpy", "numba"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            found.append(str(Path(next(iter(spec.submodule_search_locations))).parent))
    return list(dict.fromkeys(found))


def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the child and anything it started in its process group."""
    killpg = getattr(os, "killpg", None)
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        if killpg is not None:
            killpg(proc.pid, signal.SIGKILL)
        else:  # no process groups (Windows): the child alone
            proc.kill()


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


class ChildRun:
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
            "library_paths": _library_paths(),
        }
        job_file = self.scratch / "job.json"
        job_file.write_text(json.dumps(job), "utf-8")
        self.printed = (self.scratch / "printed.txt").open("wb")
        self.started = time.monotonic()
        self.deadline = self.started + STARTUP_S
        """Until the user's code starts: the start-up allowance; then its time limit."""
        self.user_code_started = False
        try:
            self.proc = self._start(job_file, spec.cuda_sim)
        except OSError:
            self.printed.close()
            shutil.rmtree(self.scratch, ignore_errors=True)
            raise

    def _start(self, job_file: Path, cuda_sim: bool) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-I", "-B", "-c", _BOOT, str(job_file), *_roots()],
            cwd=self.scratch,
            env=_environment(self.scratch, cuda_sim),
            stdin=subprocess.DEVNULL,
            stdout=self.printed,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so a timeout stops all of it
            close_fds=True,
        )

    def abandon(self) -> None:
        """Stop the child and remove its scratch folder (the caller was interrupted)."""
        _stop_group(self.proc)
        self.proc.wait()
        self.printed.close()
        shutil.rmtree(self.scratch, ignore_errors=True)

    def done(self) -> bool:
        """Whether the child has ended or run out of time. Called every few milliseconds: the
        first call that finds the child's STARTED file starts the user's time limit."""
        if self.proc.poll() is not None:
            return True
        now = time.monotonic()
        if not self.user_code_started and (self.scratch / STARTED).exists():
            self.user_code_started = True
            self.deadline = now + self.question.time_limit_s
        return now >= self.deadline

    def finish(self) -> Verdict:
        """Wait for the child (stopping it at the time limit) and judge what it wrote."""
        try:
            while not self.done():
                time.sleep(POLL_S)
            timed_out = self.proc.poll() is None
            if timed_out:
                _stop_group(self.proc)
                self.proc.wait()
        finally:
            self.printed.close()
        _stop_group(self.proc)  # anything it left running in its group
        try:
            verdict = _judge(self, timed_out)
            verdict.seconds = round(time.monotonic() - self.started, 3)
            return verdict
        finally:
            shutil.rmtree(self.scratch, ignore_errors=True)


def read_limited(path: Path, limit: int) -> bytes | None:
    if path.is_symlink() or not path.is_file() or path.stat().st_size > limit:
        return None
    return path.read_bytes()


def _printed(run: ChildRun) -> str:
    """The end of what the user's code printed, with the scratch copy named as the user's file."""
    path = run.scratch / "printed.txt"
    if path.is_symlink() or not path.is_file():
        return ""
    with path.open("rb") as handle:
        handle.seek(max(0, path.stat().st_size - 4 * PRINTED_TAIL))
        data = handle.read()
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


def _timeout_summary(run: ChildRun, cases: list[tuple[str, dict[str, Any]]]) -> Verdict:
    marker = read_limited(run.scratch / "current", 64)
    index = int(marker) if marker and marker.strip().isdigit() else None
    limit = f"{run.question.time_limit_s:g} s"
    if not run.user_code_started:
        return Verdict(
            "cannot-run",
            f"the check process was not ready after {STARTUP_S:g} s (is the machine very busy?)",
            run.seed,
        )
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


def _crash_summary(run: ChildRun) -> Verdict:
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
    run: ChildRun, error: dict[str, Any], cases: list[tuple[str, dict[str, Any]]]
) -> Verdict:
    frames = [f for f in error.get("frames") or [] if isinstance(f, dict)]
    trace = [f"line {f.get('line')}, in {f.get('function')}: {f.get('code')}" for f in frames]
    line = frames[-1].get("line") if frames else error.get("line")
    message = str(error.get("message", "an error"))
    index = error.get("case")
    if error.get("phase") == "load":
        where = f"line {line}: " if line else ""
        summary = f"{where}{message} (while loading the file)"
        report = CaseReport("", [], "", traceback=trace)
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


def _judge(run: ChildRun, timed_out: bool) -> Verdict:
    spec = run.spec
    cases = spec.cases(run.seed)
    if timed_out:
        return _timeout_summary(run, cases)
    raw = read_limited(run.scratch / "status.json", MAX_STATUS_BYTES)
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
