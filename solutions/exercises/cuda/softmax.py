"""Row softmax in CUDA (numba): one block per row, a max and a sum reduced in shared
memory."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, mutate
from solutions.exercises.cuda.common import NUMBA, located, matrix, odd, row_where, upto

# --- row softmax: one block per row ----------------------------------------------------------

SOFTMAX_THREADS = 32
"""Threads per block of the row softmax (one block per row)."""


def softmax_rows_reference(x: np.ndarray) -> np.ndarray:
    """Softmax of each row, computed safely in float64."""
    z = x.astype(np.float64)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def _softmax_case(rng: np.random.Generator, size: float) -> Case:
    return {"x": matrix(rng, upto(rng, 1, 1 + int(3 * size)), odd(rng, 8 + int(32 * size)))}


ROW_SOFTMAX_SOLUTION = '''\
import math

import numpy as np
from numba import cuda, float32

THREADS = 32  # threads per block; one block per row


@cuda.jit(device=True)
def block_max(buf, tid):
    """Tree max over buf[0:THREADS]; every thread returns the block's maximum."""
    stride = THREADS // 2
    while stride > 0:
        if tid < stride:
            buf[tid] = max(buf[tid], buf[tid + stride])
        cuda.syncthreads()  # this level is done before the next one reads it
        stride //= 2
    return buf[0]


@cuda.jit(device=True)
def block_sum(buf, tid):
    """Tree sum over buf[0:THREADS]; every thread returns the block's total."""
    stride = THREADS // 2
    while stride > 0:
        if tid < stride:
            buf[tid] += buf[tid + stride]
        cuda.syncthreads()
        stride //= 2
    return buf[0]


@cuda.jit
def softmax_kernel(x, out, cols):
    row = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    smax = cuda.shared.array(THREADS, float32)
    ssum = cuda.shared.array(THREADS, float32)

    # 1. the row's maximum: each thread scans columns tid, tid + THREADS, ...
    m = -math.inf  # a thread with no column must not raise the maximum
    for j in range(tid, cols, THREADS):
        m = max(m, x[row, j])
    smax[tid] = m
    cuda.syncthreads()
    row_max = block_max(smax, tid)

    # 2. the sum of exp(x - max): every exponent is <= 0, so nothing overflows
    s = 0.0
    for j in range(tid, cols, THREADS):
        s += math.exp(x[row, j] - row_max)
    ssum[tid] = s
    cuda.syncthreads()
    total = block_sum(ssum, tid)

    # 3. normalise
    for j in range(tid, cols, THREADS):
        out[row, j] = math.exp(x[row, j] - row_max) / total


def softmax_rows(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis of a float32 matrix: one block of THREADS threads per row."""
    rows, cols = x.shape
    out = np.zeros_like(x)
    softmax_kernel[rows, THREADS](x, out, cols)
    return out
'''

ROW_SOFTMAX = ExerciseSpec(
    reference=softmax_rows_reference,
    make_case=_softmax_case,
    solution=ROW_SOFTMAX_SOLUTION,
    examples=({"x": np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], dtype=np.float32)},),
    edge_cases={
        "one column": lambda rng: {"x": matrix(rng, 2, 1)},
        "33 columns (thread 0 takes two)": lambda rng: {"x": matrix(rng, 2, 33)},
        "large logits (about +-1000, 40 columns)": lambda rng: {
            "x": matrix(rng, 2, 40, scale=1000.0)
        },
        "very negative logits (about -1000, 7 columns)": lambda rng: {
            "x": (-1000.0 + rng.standard_normal((2, 7)) * 20).astype(np.float32)
        },
    },
    random_cases=3,
    compare=located(row_where(SOFTMAX_THREADS)),
    imports=NUMBA,
    cuda_sim=True,
    mutants=(
        Mutant(
            "no max subtraction",
            mutate(
                mutate(
                    ROW_SOFTMAX_SOLUTION,
                    "        s += math.exp(x[row, j] - row_max)",
                    "        s += math.exp(x[row, j])",
                ),
                "out[row, j] = math.exp(x[row, j] - row_max) / total",
                "out[row, j] = math.exp(x[row, j]) / total",
            ),
            "exp(1000) overflows: the large-logits case fails",
        ),
        Mutant(
            "one column per thread",
            mutate(
                mutate(
                    mutate(
                        ROW_SOFTMAX_SOLUTION,
                        "    for j in range(tid, cols, THREADS):\n        m = max(m, x[row, j])",
                        "    if tid < cols:\n        m = max(m, x[row, tid])",
                    ),
                    "    for j in range(tid, cols, THREADS):\n"
                    "        s += math.exp(x[row, j] - row_max)",
                    "    if tid < cols:\n        s += math.exp(x[row, tid] - row_max)",
                ),
                "    for j in range(tid, cols, THREADS):\n"
                "        out[row, j] = math.exp(x[row, j] - row_max) / total",
                "    if tid < cols:\n"
                "        out[row, tid] = math.exp(x[row, tid] - row_max) / total",
            ),
            "columns 32 and up are never read or written",
        ),
        Mutant(
            "idle threads put 0 into the max",
            mutate(
                ROW_SOFTMAX_SOLUTION,
                "    m = -math.inf  # a thread with no column must not raise the maximum",
                "    m = 0.0",
            ),
            "a row of very negative logits gets max 0, every exp underflows, 0/0",
        ),
    ),
)
