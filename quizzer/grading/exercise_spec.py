"""The format of a code exercise's checks, as solutions/exercises/*.py declare them.

A spec is data plus numpy functions: the reference, an input generator, fixed cases, tolerances,
a comparison, the model solution and the mutants (plausible wrong files the checks must reject).
Both processes of a check import it: the quizzer process computes the expected outputs with the
reference, and the child process that runs the user's file rebuilds the same inputs from the
seed. A spec never runs user code and imports nothing but numpy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

Case = dict[str, Any]
"""One set of inputs: argument name -> numpy array or Python scalar. The user's function is
called with them as keyword arguments."""


class ExerciseError(Exception):
    """The exercise itself is broken (bad `checks` path, a reference that raises): not the
    user's fault, and reported as a bank problem."""


class Tolerance(NamedTuple):
    """How far an output may be from the reference: |got - expected| <= atol + rtol·|expected|."""

    rtol: float
    atol: float


DEFAULT_TOLERANCES: Mapping[str, Tolerance] = {
    "float64": Tolerance(1e-7, 1e-9),
    "float32": Tolerance(1e-4, 1e-5),
    "float16": Tolerance(1e-2, 1e-3),
}
"""By the dtype of the reference's output. Integer and boolean outputs are compared exactly."""

EXACT = Tolerance(0.0, 0.0)


@dataclass(frozen=True)
class Mismatch:
    """Why an output was rejected, and by how much."""

    message: str
    """One line, e.g. `12 of 40 values differ` or `shape (3, 4), expected (4, 3)`."""
    index: tuple[int, ...] | None = None
    """Where the largest error is (None for a shape or dtype problem)."""
    max_abs: float | None = None
    """The largest absolute error over the elements (inf when a NaN or inf is wrong)."""
    max_rel: float | None = None
    """The largest relative error, |got - expected| / |expected|."""


Compare = Callable[[np.ndarray, np.ndarray, Case, Tolerance], Mismatch | None]
"""(expected, got, the case's inputs, tolerance) -> None when ``got`` is accepted."""


def _shape_problem(expected: np.ndarray, got: np.ndarray) -> Mismatch | None:
    if got.shape != expected.shape:
        return Mismatch(f"the output has shape {got.shape}, expected {expected.shape}")
    numeric = "biuf"
    if expected.dtype.kind == "f" and got.dtype.kind != "f":
        return Mismatch(f"the output has dtype {got.dtype}, expected a float array")
    if got.dtype.kind not in numeric:
        return Mismatch(f"the output has dtype {got.dtype}, expected {expected.dtype}")
    return None


def errors(expected: np.ndarray, got: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Element-wise (absolute, relative) errors in float64; a NaN or inf where the reference
    has something else counts as an infinite error, and matching NaNs or infs as none."""
    e = expected.astype(np.float64)
    g = got.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        same = (e == g) | (np.isnan(e) & np.isnan(g))
        diff = np.abs(g - e)
        diff = np.where(same, 0.0, np.where(np.isfinite(diff), diff, np.inf))
        rel = np.where(diff == 0, 0.0, diff / np.maximum(np.abs(e), np.finfo(np.float64).tiny))
    return diff, rel


def allclose(expected: np.ndarray, got: np.ndarray, case: Case, tol: Tolerance) -> Mismatch | None:
    """The default comparison: same shape, a numeric dtype (float where the reference is float),
    and every element within ``tol``."""
    problem = _shape_problem(expected, got)
    if problem is not None:
        return problem
    diff, rel = errors(expected, got)
    bad = diff > tol.atol + tol.rtol * np.abs(expected.astype(np.float64))
    if not bad.any():
        return None
    worst = np.unravel_index(int(np.argmax(np.where(bad, diff, -1.0))), bad.shape)
    nonfinite = int((bad & ~np.isfinite(got.astype(np.float64))).sum())
    message = f"{int(bad.sum())} of {bad.size} values differ"
    if nonfinite:
        message += f" ({nonfinite} of them NaN or inf)"
    return Mismatch(
        message,
        tuple(int(i) for i in worst),
        float(diff.max()),
        float(rel.max()),
    )


def exact(expected: np.ndarray, got: np.ndarray, case: Case, tol: Tolerance) -> Mismatch | None:
    """For integer or boolean outputs (indices, counts, masks): every element equal."""
    problem = _shape_problem(expected, got)
    if problem is not None:
        return problem
    return allclose(expected, got, case, EXACT)


@dataclass(frozen=True)
class Mutant:
    """A plausible wrong solution that the checks must reject (else they have no teeth)."""

    name: str
    """Short, as an interviewer would name the bug: `no max subtraction`."""
    source: str
    """The whole wrong file, as a user would hand it in (see ``mutate``)."""
    why: str = ""
    """What goes wrong and which check should catch it, for the validation message."""


def mutate(source: str, old: str, new: str) -> str:
    """``source`` with the one occurrence of ``old`` replaced by ``new``: mutants are written
    as small edits of the model solution. Raises ValueError unless ``old`` occurs exactly once,
    so a mutant cannot silently stop applying when the solution is edited."""
    found = source.count(old)
    if found != 1:
        raise ValueError(f"mutate: {old!r} occurs {found} times in the source, expected once")
    return source.replace(old, new)


def _copy(case: Case) -> Case:
    return {
        name: value.copy() if isinstance(value, np.ndarray) else value
        for name, value in case.items()
    }


@dataclass(frozen=True)
class ExerciseSpec:
    """What a code exercise checks and how. One per exercise, in solutions/exercises/<subject>.py,
    named by a question's `checks` (e.g. `solutions.exercises.softmax.SAFE_SOFTMAX`)."""

    reference: Callable[..., Any]
    """The obviously-correct numpy answer, called with a case's inputs as keyword arguments;
    it returns the expected output (an array or a scalar) in the dtype the user must return."""
    make_case: Callable[[np.random.Generator, float], Case]
    """A random case: (rng, size) -> inputs, with size in (0, 1] growing over the random cases
    (small shapes first, the declared bounds at 1). Prefer sizes that are not multiples of the
    exercise's tile or block."""
    solution: str
    """The model solution: a whole file that passes. Shown after the attempt; validation runs
    it through the real checker."""
    mutants: tuple[Mutant, ...]
    """At least one plausible wrong file per exercise; validation requires each to fail."""
    examples: tuple[Case, ...]
    """Public examples, fixed inputs shown with the task (expected outputs from the reference).
    They are checked first."""
    edge_cases: Mapping[str, Callable[[np.random.Generator], Case]] = field(default_factory=dict)
    """Named cases every run checks: length 1, sizes that are not multiples of the tile, large
    magnitudes, masks, ... Each is a function of an rng (ignore it for fixed inputs)."""
    random_cases: int = 10
    """How many random cases from ``make_case`` each run adds (fresh per seed, never shown)."""
    tolerances: Mapping[str, Tolerance] = field(default_factory=dict)
    """Overrides of DEFAULT_TOLERANCES by output dtype name, e.g.
    `{"float32": Tolerance(1e-3, 1e-4)}`."""
    compare: Compare = allclose
    """How an output is judged: ``allclose`` (default), ``exact``, or your own (for sampling:
    a statistical test against the reference's probabilities)."""
    imports: frozenset[str] = frozenset()
    """Modules the user's file may import beyond the standard set, e.g. `{"numba"}`."""
    cuda_sim: bool = False
    """numba CUDA kernels: the child runs them in numba's simulator (NUMBA_ENABLE_CUDASIM=1,
    set before numba is imported). Keep sizes tiny: every CUDA thread is a Python thread."""

    def cases(self, seed: int) -> list[tuple[str, Case]]:
        """Every (name, inputs) a run with ``seed`` checks, in order: the examples, the edge
        cases, then the random cases. Both processes call it and get the same inputs."""
        found: list[tuple[str, Case]] = [
            (f"example {i}", _copy(case)) for i, case in enumerate(self.examples, 1)
        ]
        for i, (name, make) in enumerate(self.edge_cases.items()):
            found.append((f"edge: {name}", make(np.random.default_rng([seed, 1, i]))))
        for i in range(self.random_cases):
            size = (i + 1) / self.random_cases
            found.append(
                (f"random {i + 1}", self.make_case(np.random.default_rng([seed, 2, i]), size))
            )
        return found

    def expected(self, case: Case) -> np.ndarray:
        """The reference output for ``case`` (on a copy: the reference may not modify it)."""
        return np.asarray(self.reference(**_copy(case)))

    def tolerance(self, dtype: np.dtype[Any]) -> Tolerance:
        """The tolerance for an output of the reference's ``dtype``."""
        if dtype.kind != "f":
            return EXACT
        table = {**DEFAULT_TOLERANCES, **self.tolerances}
        return table.get(dtype.name, table["float32"])
