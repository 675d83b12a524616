"""A block-level inclusive scan in CUDA (numba): Hillis-Steele, double-buffered in shared
memory."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, Tolerance, mutate
from solutions.exercises.cuda.common import NUMBA, flat_where, located, odd

# --- inclusive scan within a block (Hillis-Steele, double-buffered) ----------------------------

SCAN_THREADS = 64
"""Threads per block of the scan: each block scans its own 64 elements."""


def block_scan_reference(x: np.ndarray) -> np.ndarray:
    """Inclusive prefix sums restarted every 64 elements (each block scans its own segment)."""
    padded = np.zeros(-(-x.size // SCAN_THREADS) * SCAN_THREADS, dtype=np.float64)
    padded[: x.size] = x
    scanned = np.cumsum(padded.reshape(-1, SCAN_THREADS), axis=1).reshape(-1)
    return scanned[: x.size].astype(np.float32)


def _scan_vector(rng: np.random.Generator, n: int) -> Case:
    return {"x": (rng.standard_normal(n) * 4).astype(np.float32)}


def _scan_case(rng: np.random.Generator, size: float) -> Case:
    return _scan_vector(rng, odd(rng, 8 + int(150 * size)))


BLOCK_SCAN_SOLUTION = '''\
import numpy as np
from numba import cuda, float32

THREADS = 64  # threads per block, a power of two


@cuda.jit
def scan_kernel(x, out, n):
    buf = cuda.shared.array((2, THREADS), float32)  # two buffers: read one, write the other
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * THREADS + tid
    buf[0, tid] = x[i] if i < n else 0.0
    cuda.syncthreads()
    cur = 0
    offset = 1
    while offset < THREADS:  # log2(THREADS) steps: offsets 1, 2, 4, ..., THREADS / 2
        nxt = 1 - cur
        if tid >= offset:
            buf[nxt, tid] = buf[cur, tid] + buf[cur, tid - offset]
        else:
            buf[nxt, tid] = buf[cur, tid]
        cuda.syncthreads()  # the step is complete before the next one reads it
        cur = nxt
        offset *= 2
    if i < n:
        out[i] = buf[cur, tid]


def block_scan(x: np.ndarray) -> np.ndarray:
    """Inclusive prefix sums of each block of THREADS consecutive elements of x."""
    n = x.size
    out = np.zeros_like(x)
    blocks = (n + THREADS - 1) // THREADS
    scan_kernel[blocks, THREADS](x, out, n)
    return out
'''

BLOCK_SCAN = ExerciseSpec(
    reference=block_scan_reference,
    make_case=_scan_case,
    solution=BLOCK_SCAN_SOLUTION,
    examples=({"x": np.array([3.0, 1.0, 7.0, 0.0, 4.0], dtype=np.float32)},),
    edge_cases={
        "one element": lambda rng: _scan_vector(rng, 1),
        "33 elements": lambda rng: _scan_vector(rng, 33),
        "64 elements (one full block)": lambda rng: _scan_vector(rng, 64),
        "131 elements (three blocks)": lambda rng: _scan_vector(rng, 131),
    },
    random_cases=3,
    tolerances={"float32": Tolerance(1e-4, 1e-4)},
    compare=located(flat_where(SCAN_THREADS)),
    imports=NUMBA,
    cuda_sim=True,
    mutants=(
        Mutant(
            "one step short",
            mutate(
                BLOCK_SCAN_SOLUTION,
                "    while offset < THREADS:",
                "    while offset < THREADS // 2:",
            ),
            "elements 32 and up of a block miss the first 32 elements' sum",
        ),
        Mutant(
            "off by one: thread `offset` skips its add",
            mutate(BLOCK_SCAN_SOLUTION, "        if tid >= offset:", "        if tid > offset:"),
            "element `offset` never adds element 0's running sum",
        ),
        Mutant(
            "result read from the stale buffer",
            mutate(BLOCK_SCAN_SOLUTION, "out[i] = buf[cur, tid]", "out[i] = buf[1 - cur, tid]"),
            "the output is one step behind",
        ),
    ),
)
