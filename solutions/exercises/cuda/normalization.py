"""LayerNorm in CUDA (numba): one block per row, mean and variance reduced in shared
memory."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, Tolerance, mutate
from solutions.exercises.cuda.common import NUMBA, located, matrix, odd, row_where, upto

# --- LayerNorm: one block per row --------------------------------------------------------------

LN_THREADS = 32
"""Threads per block of the LayerNorm (one block per row)."""
LN_EPS = 1e-5


def layer_norm_reference(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float
) -> np.ndarray:
    """(x - mean) / sqrt(var + eps) * gamma + beta over the last axis (biased variance)."""
    z = x.astype(np.float64)
    mean = z.mean(axis=1, keepdims=True)
    var = ((z - mean) ** 2).mean(axis=1, keepdims=True)
    return ((z - mean) / np.sqrt(var + eps) * gamma + beta).astype(np.float32)


def _ln(rng: np.random.Generator, x: np.ndarray) -> Case:
    cols = x.shape[1]
    return {
        "x": x.astype(np.float32),
        "gamma": np.asarray(1 + 0.5 * rng.standard_normal(cols), dtype=np.float32),
        "beta": np.asarray(0.5 * rng.standard_normal(cols), dtype=np.float32),
        "eps": LN_EPS,
    }


def _ln_case(rng: np.random.Generator, size: float) -> Case:
    return _ln(rng, matrix(rng, upto(rng, 1, 1 + int(3 * size)), odd(rng, 8 + int(32 * size))))


LAYER_NORM_SOLUTION = '''\
import math

import numpy as np
from numba import cuda, float32

THREADS = 32  # threads per block; one block per row


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
def layer_norm_kernel(x, gamma, beta, out, cols, eps):
    row = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    ssum = cuda.shared.array(THREADS, float32)
    ssq = cuda.shared.array(THREADS, float32)

    # pass 1: the mean
    s = 0.0
    for j in range(tid, cols, THREADS):
        s += x[row, j]
    ssum[tid] = s
    cuda.syncthreads()
    mean = block_sum(ssum, tid) / cols

    # pass 2: the variance from deviations (not E[x^2] - mean^2, which cancels catastrophically)
    q = 0.0
    for j in range(tid, cols, THREADS):
        d = x[row, j] - mean
        q += d * d
    ssq[tid] = q
    cuda.syncthreads()
    var = block_sum(ssq, tid) / cols  # biased: divide by cols, as LayerNorm does

    inv_std = 1.0 / math.sqrt(var + eps)
    for j in range(tid, cols, THREADS):
        out[row, j] = (x[row, j] - mean) * inv_std * gamma[j] + beta[j]


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """LayerNorm over the last axis of a float32 matrix: one block of THREADS threads per row."""
    rows, cols = x.shape
    out = np.zeros_like(x)
    layer_norm_kernel[rows, THREADS](x, gamma, beta, out, cols, eps)
    return out
'''

LAYER_NORM = ExerciseSpec(
    reference=layer_norm_reference,
    make_case=_ln_case,
    solution=LAYER_NORM_SOLUTION,
    examples=(
        {
            "x": np.array([[1.0, 2.0, 3.0, 4.0]], dtype=np.float32),
            "gamma": np.ones(4, dtype=np.float32),
            "beta": np.zeros(4, dtype=np.float32),
            "eps": LN_EPS,
        },
    ),
    edge_cases={
        "one column": lambda rng: _ln(rng, matrix(rng, 2, 1)),
        "33 columns": lambda rng: _ln(rng, matrix(rng, 2, 33)),
        "large offset (1000 + noise, 40 columns)": lambda rng: _ln(
            rng, 1000.0 + rng.standard_normal((2, 40))
        ),
        "nearly constant rows (std 1e-3)": lambda rng: _ln(
            rng, 5.0 + 1e-3 * rng.standard_normal((2, 9))
        ),
    },
    random_cases=3,
    # float32 shared-memory partial sums of values near 1000 leave about 1e-4 of error in the
    # mean; the one-pass variance is off by several percent there.
    tolerances={"float32": Tolerance(1e-3, 1e-3)},
    compare=located(row_where(LN_THREADS)),
    imports=NUMBA,
    cuda_sim=True,
    mutants=(
        Mutant(
            "unbiased variance",
            mutate(
                LAYER_NORM_SOLUTION,
                "var = block_sum(ssq, tid) / cols",
                "var = block_sum(ssq, tid) / (cols - 1)",
            ),
            "LayerNorm divides by cols, not cols - 1",
        ),
        Mutant(
            "eps outside the square root",
            mutate(
                LAYER_NORM_SOLUTION,
                "inv_std = 1.0 / math.sqrt(var + eps)",
                "inv_std = 1.0 / (math.sqrt(var) + eps)",
            ),
            "nearly constant rows are scaled about 3x too much",
        ),
        Mutant(
            "one-pass variance E[x^2] - mean^2",
            mutate(
                mutate(
                    LAYER_NORM_SOLUTION,
                    "        d = x[row, j] - mean\n        q += d * d",
                    "        q += x[row, j] * x[row, j]",
                ),
                "var = block_sum(ssq, tid) / cols",
                "var = block_sum(ssq, tid) / cols - mean * mean",
            ),
            "with values near 1000 the subtraction cancels the float32 digits of the variance",
        ),
    ),
)
