"""The child process of a code check: it runs the user's file, and nothing else does.

The quizzer process starts it (``python -I -B -c`` with this module's ``main``) in a scratch
folder holding ``job.json``. The child limits its own memory, CPU time and file sizes before it
imports anything of the user's, rebuilds the cases from the spec and the seed, loads the user's
file, calls its entry function on each case, and writes each output with
``numpy.save(allow_pickle=False)`` plus one ``status.json``. It compares nothing: the quizzer
process computes the reference outputs itself and reads only those plain files back.

The limits are applied here rather than in a ``preexec_fn``: that hook runs Python between fork
and exec, which is unsafe when the parent has threads (the TUI, parallel validation), while the
limits take effect the same way when set before the user's code is loaded.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

USER_MODULE = "user_solution"
"""The name the user's file is loaded under (in the child only)."""
THREAD_STACK = 1 << 20
"""Stack size of the simulator's threads: one per CUDA thread, so the default 8 MB would let a
1024-thread block exhaust the memory limit on stacks alone."""
MAX_MESSAGE = 2000
STARTED = "started"
"""The file the child creates in its scratch folder just before it loads the user's file."""


def _limit(memory_bytes: int, cpu_seconds: int, file_bytes: int) -> None:
    try:
        import resource
    except ImportError:  # not on this platform: the wall-clock limit still holds
        return
    wanted = [
        (resource.RLIMIT_AS, memory_bytes, memory_bytes),
        (resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + 1),
        (resource.RLIMIT_FSIZE, file_bytes, file_bytes),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    for what, soft, hard in wanted:
        _, old_hard = resource.getrlimit(what)
        if old_hard != resource.RLIM_INFINITY:
            soft, hard = min(soft, old_hard), min(hard, old_hard)
        # A limit the platform refuses (RLIMIT_AS on macOS) is skipped: the others still apply.
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(what, (soft, hard))


def _frames(exc: BaseException, user_file: str) -> list[dict[str, Any]]:
    """The traceback lines that are in the user's file, innermost last."""
    return [
        {"line": frame.lineno, "function": frame.name, "code": (frame.line or "").strip()}
        for frame in traceback.extract_tb(exc.__traceback__)
        if frame.filename == user_file
    ]


def _error(
    phase: str, exc: BaseException, user_file: str, case: int | None = None
) -> dict[str, Any]:
    text = str(exc)
    message = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    if isinstance(exc, MemoryError):
        message += " (the check allows about 2 GB)"
    line = exc.lineno if isinstance(exc, SyntaxError) else None
    return {
        "phase": phase,
        "case": case,
        "type": type(exc).__name__,
        "message": message[:MAX_MESSAGE],
        "frames": _frames(exc, user_file)[-8:],
        "line": line,
    }


def _write_status(scratch: Path, status: dict[str, Any]) -> None:
    tmp = scratch / "status.json.tmp"
    tmp.write_text(json.dumps(status), "utf-8")
    os.replace(tmp, scratch / "status.json")


def _as_array(result: Any) -> Any:
    import numpy as np

    if result is None:
        raise TypeError("returned None (is a `return` missing?)")
    array = np.asarray(result)
    if array.dtype.hasobject or array.dtype.kind not in "biuf":
        raise TypeError(
            f"returned {type(result).__name__} of dtype {array.dtype}; return a numpy array "
            "of numbers"
        )
    return array


class _Failed(Exception):
    """A phase of the check failed; ``error`` is what ``status.json`` reports."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error["message"])
        self.error = error


def _exercise_cases(job: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The exercise's cases for this seed, built from its spec (``job["checks"]``)."""
    module_name, _, attr = job["checks"].rpartition(".")
    try:
        spec = getattr(importlib.import_module(module_name), attr)
        if spec.cuda_sim:
            # Before anything imports numba: the simulator is chosen when numba.cuda loads.
            os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
            import threading

            threading.stack_size(THREAD_STACK)
        return spec.cases(job["seed"])
    except Exception as exc:  # the exercise is broken, not the user's file
        error = {**_error("spec", exc, job["user_file"]), "trace": traceback.format_exc()}
        raise _Failed(error) from None


def _load_entry(job: dict[str, Any]) -> Any:
    """The user's entry function, from their file loaded as ``USER_MODULE``."""
    # The runner's numpy is imported before the user's file can touch sys.modules.
    import numpy  # noqa: F401

    # The time limit counts from here: the interpreter, numpy and the cases are ready, and
    # what runs next is the user's (see ChildRun.done).
    (Path(job["scratch"]) / STARTED).touch()
    user_file = job["user_file"]
    sys.dont_write_bytecode = True
    try:
        loader = importlib.util.spec_from_file_location(USER_MODULE, user_file)
        assert loader is not None and loader.loader is not None
        module = importlib.util.module_from_spec(loader)
        sys.modules[USER_MODULE] = module  # dataclasses and pickling look modules up here
        loader.loader.exec_module(module)
    except BaseException as exc:  # SystemExit and KeyboardInterrupt too: report, don't die
        raise _Failed(_error("load", exc, user_file)) from None
    entry = getattr(module, job["entry"], None)
    if not callable(entry):
        raise _Failed(
            {
                "phase": "load",
                "case": None,
                "type": "NameError",
                "message": f"the file defines no function named `{job['entry']}`",
                "frames": [],
                "line": None,
            }
        )
    return entry


def _run_cases(
    entry: Any,
    cases: list[tuple[str, dict[str, Any]]],
    job: dict[str, Any],
    done: list[dict[str, Any]],
) -> None:
    """Call ``entry`` on each case and save its output as ``out-<index>.npy``; each finished
    case is appended to ``done``. The first failing case raises _Failed."""
    import numpy as np

    scratch = Path(job["scratch"])
    user_file = job["user_file"]
    current = scratch / "current"
    for index, (name, case) in enumerate(cases):
        current.write_text(str(index), "utf-8")
        args = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in case.items()}
        started = time.perf_counter()
        try:
            output = _as_array(entry(**args))
        except BaseException as exc:
            raise _Failed(_error("run", exc, user_file, case=index)) from None
        seconds = time.perf_counter() - started
        try:
            np.save(scratch / f"out-{index}.npy", output, allow_pickle=False)
        except OSError as exc:  # past the file-size limit
            error = _error("run", exc, user_file, case=index)
            error["message"] = f"the output is too large to save ({output.nbytes} bytes)"
            raise _Failed(error) from None
        done.append({"name": name, "seconds": round(seconds, 4)})


def main(job_file: str) -> None:
    """Run one check as ``job.json`` describes it (see quizzer.grading.exercises)."""
    job = json.loads(Path(job_file).read_text("utf-8"))
    _limit(job["memory_bytes"], job["cpu_seconds"], job["file_bytes"])
    sys.path += [path for path in job["library_paths"] if path not in sys.path]
    status: dict[str, Any] = {"cases": [], "error": None}
    try:
        cases = _exercise_cases(job)
        entry = _load_entry(job)
        _run_cases(entry, cases, job, status["cases"])
    except _Failed as failed:
        status["error"] = failed.error
    _write_status(Path(job["scratch"]), status)
