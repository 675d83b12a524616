"""Comparisons and input helpers shared by the exercise modules: bit-for-bit equality (integer
hashes, fixed summation orders), rounding checks that forgive only genuine near-ties, and small
random-input builders. Numpy only: both the quizzer process and the check's child import it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from quizzer.grading.exercise_spec import Case, Mismatch, Tolerance


def normal(rng: np.random.Generator, shape: tuple[int, ...], scale: float = 1.0) -> np.ndarray:
    """Standard normal float32 values times `scale`."""
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def wide_float32(rng: np.random.Generator, n: int) -> np.ndarray:
    """float32 values spread over six orders of magnitude, both signs: summing them in a
    different order almost always rounds differently."""
    mags = 10.0 ** rng.uniform(-3, 3, n)
    return (rng.choice([-1.0, 1.0], n) * mags).astype(np.float32)


def _shape(expected: np.ndarray, got: np.ndarray) -> Mismatch | None:
    if got.shape != expected.shape:
        return Mismatch(f"the output has shape {got.shape}, expected {expected.shape}")
    return None


def _first_bad(bad: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), bad.shape))


def bitwise(expected: np.ndarray, got: np.ndarray, case: Case, tol: Tolerance) -> Mismatch | None:
    """Every element identical, compared in the reference's own dtype (no float64 detour, so
    64-bit hashes and float32 sums are compared bit for bit)."""
    problem = _shape(expected, got)
    if problem is not None or expected.size == 0:
        return problem
    if expected.dtype.kind != got.dtype.kind and not (
        expected.dtype.kind in "iu" and got.dtype.kind in "iu"
    ):
        return Mismatch(f"the output has dtype {got.dtype}, expected {expected.dtype}")
    if expected.dtype.kind in "iu":
        if got.dtype.kind == "i" and expected.dtype.kind == "u":
            got = got.view(np.uint64) if got.dtype.itemsize == 8 else got.astype(np.int64)
        bad = got.astype(expected.dtype) != expected
    else:
        g = got.astype(expected.dtype)
        bad = ~((g == expected) | (np.isnan(g) & np.isnan(expected)))
    if not bad.any():
        return None
    return Mismatch(
        f"{int(bad.sum())} of {bad.size} values differ (compared bit for bit)", _first_bad(bad)
    )


def rounding(
    grid: Callable[[Case], tuple[np.ndarray, np.ndarray]], tie_window: float = 1e-4
) -> Callable[[np.ndarray, np.ndarray, Case, Tolerance], Mismatch | None]:
    """A comparison for quantized outputs. ``grid(case)`` gives, per output element, the value
    before rounding measured in quantization steps (``position``) and the size of one step in
    output units (``step``). An output must match the reference within ``tol``, except where the
    unrounded position lies within ``tie_window`` of a half step but not exactly on it: there a
    different but legitimate order of float operations may round the other way, so one step
    either way is accepted. Exact ties (constructed inputs) are still held to the rule."""

    def compare(
        expected: np.ndarray, got: np.ndarray, case: Case, tol: Tolerance
    ) -> Mismatch | None:
        problem = _shape(expected, got)
        if problem is not None:
            return problem
        if got.dtype.kind not in "biuf":
            return Mismatch(f"the output has dtype {got.dtype}, expected {expected.dtype}")
        position, step = grid(case)
        e = expected.astype(np.float64)
        g = got.astype(np.float64)
        with np.errstate(invalid="ignore"):
            diff = np.abs(g - e)
            frac = np.abs(np.abs(position - np.floor(position)) - 0.5)
            near_tie = (frac < tie_window) & (frac > 0)
            allowed = tol.atol + tol.rtol * np.abs(e) + np.where(near_tie, step * 1.000001, 0.0)
            bad = ~(diff <= allowed)
        if not bad.any():
            return None
        finite = np.where(np.isfinite(diff), diff, np.inf)
        return Mismatch(
            f"{int(bad.sum())} of {bad.size} values differ",
            _first_bad(bad),
            float(finite.max()),
        )

    return compare
