"""What the CUDA exercises share: the requirement that turns numba on, small random inputs, and
comparisons that name the block and thread behind the first wrong output element."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from quizzer.grading.exercise_spec import Case, Compare, Mismatch, Tolerance, allclose, errors

NUMBA = frozenset({"numba"})

Where = Callable[[tuple[int, ...], Case], str]
"""(index of an output element, the case's inputs) -> the block and thread that write it."""


def vector(rng: np.random.Generator, n: int) -> np.ndarray:
    return (rng.standard_normal(n) * 4).astype(np.float32)


def odd(rng: np.random.Generator, high: int) -> int:
    return 2 * int(rng.integers(0, max(1, high // 2))) + 1


def matrix(rng: np.random.Generator, rows: int, cols: int, scale: float = 3.0) -> np.ndarray:
    return (rng.standard_normal((rows, cols)) * scale).astype(np.float32)


def upto(rng: np.random.Generator, low: int, high: int) -> int:
    return int(rng.integers(low, max(low, high) + 1))


def located(where: Where) -> Compare:
    """``allclose`` that also names the block and thread behind the first wrong element, so the
    user can look at the one thread that went wrong."""

    def compare(
        expected: np.ndarray, got: np.ndarray, case: Case, tol: Tolerance
    ) -> Mismatch | None:
        found = allclose(expected, got, case, tol)
        if found is None or found.index is None:
            return found
        diff, _ = errors(expected, got)
        bad = diff > tol.atol + tol.rtol * np.abs(expected.astype(np.float64))
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        text = ", ".join(str(i) for i in first)
        return dataclasses.replace(
            found,
            message=f"{found.message}; the first wrong one, [{text}], is {where(first, case)}",
        )

    return compare


def flat_where(threads: int) -> Where:
    """One thread per element of a 1-D output, on a 1-D grid of ``threads``-thread blocks."""

    def where(index: tuple[int, ...], case: Case) -> str:
        return f"written by block {index[0] // threads}, thread {index[0] % threads}"

    return where


def row_where(threads: int) -> Where:
    """One block per row of a 2-D output, its ``threads`` threads striding over the columns."""

    def where(index: tuple[int, ...], case: Case) -> str:
        row, col = index
        return f"written by block {row}, thread {col % threads}"

    return where
