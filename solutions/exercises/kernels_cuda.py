"""CUDA kernel exercises in numba, checked in numba's CUDA simulator: vector add with a bounds
check, and a block-level shared-memory tree reduction.

This module never imports numba: the quizzer process uses only the numpy references and the
inputs; the user's file (and the model solution) import numba in the child process, which turns
the simulator on first. Sizes stay small because the simulator runs every CUDA thread as a Python
thread. Sizes are odd, so they are never a multiple of the block size.
"""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, mutate

NUMBA = frozenset({"numba"})


def _vector(rng: np.random.Generator, n: int) -> np.ndarray:
    return (rng.standard_normal(n) * 4).astype(np.float32)


def _odd(rng: np.random.Generator, high: int) -> int:
    return 2 * int(rng.integers(0, max(1, high // 2))) + 1


# --- vector add ----------------------------------------------------------------------------


def vector_add_reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise a + b."""
    return a + b


def _add_case(rng: np.random.Generator, size: float) -> Case:
    n = _odd(rng, 8 + int(150 * size))
    return {"a": _vector(rng, n), "b": _vector(rng, n)}


VECTOR_ADD_SOLUTION = '''\
import numpy as np
from numba import cuda

THREADS = 32  # threads per block


@cuda.jit
def add_kernel(a, b, out, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x  # this thread's element
    if i < n:  # the last block runs past the end when n is not a multiple of THREADS
        out[i] = a[i] + b[i]


def vector_add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b for two float32 vectors of the same length, on the GPU."""
    n = a.size
    out = np.zeros_like(a)
    blocks = (n + THREADS - 1) // THREADS  # ceil(n / THREADS): enough threads for every element
    add_kernel[blocks, THREADS](a, b, out, n)
    return out
'''

VECTOR_ADD = ExerciseSpec(
    reference=vector_add_reference,
    make_case=_add_case,
    solution=VECTOR_ADD_SOLUTION,
    examples=(
        {
            "a": np.array([1.0, 2.0, 3.0], dtype=np.float32),
            "b": np.array([10.0, 20.0, 30.0], dtype=np.float32),
        },
    ),
    edge_cases={
        "one element": lambda rng: {"a": _vector(rng, 1), "b": _vector(rng, 1)},
        "33 elements (one past a block of 32)": lambda rng: {
            "a": _vector(rng, 33),
            "b": _vector(rng, 33),
        },
        "a multiple of 32 (64)": lambda rng: {"a": _vector(rng, 64), "b": _vector(rng, 64)},
        "129 elements": lambda rng: {"a": _vector(rng, 129), "b": _vector(rng, 129)},
    },
    random_cases=4,
    imports=NUMBA,
    cuda_sim=True,
    mutants=(
        Mutant(
            "no bounds check",
            mutate(
                VECTOR_ADD_SOLUTION,
                "    if i < n:  # the last block runs past the end"
                " when n is not a multiple of THREADS\n"
                "        out[i] = a[i] + b[i]",
                "    out[i] = a[i] + b[i]",
            ),
            "threads of the last block index past the end of the arrays",
        ),
        Mutant(
            "grid rounded down",
            mutate(
                VECTOR_ADD_SOLUTION,
                "blocks = (n + THREADS - 1) // THREADS",
                "blocks = n // THREADS",
            ),
            "the tail after the last full block is never computed",
        ),
        Mutant(
            "block offset left out of the index",
            mutate(
                VECTOR_ADD_SOLUTION,
                "i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x",
                "i = cuda.threadIdx.x",
            ),
            "every block works on elements 0..31",
        ),
    ),
)


# --- block-level tree reduction ------------------------------------------------------------

REDUCE_THREADS = 64
"""Threads per block of the reduction (the prompt fixes it: one partial sum per 64 elements)."""


def block_sums_reference(x: np.ndarray) -> np.ndarray:
    """The sum of each consecutive group of 64 elements (the last group may be shorter)."""
    blocks = -(-x.size // REDUCE_THREADS)
    padded = np.zeros(blocks * REDUCE_THREADS, dtype=np.float64)
    padded[: x.size] = x
    return padded.reshape(blocks, REDUCE_THREADS).sum(axis=1).astype(np.float32)


def _reduce_case(rng: np.random.Generator, size: float) -> Case:
    return {"x": _vector(rng, _odd(rng, 8 + int(100 * size)))}


BLOCK_SUM_SOLUTION = '''\
import numpy as np
from numba import cuda, float32

THREADS = 64  # threads per block, a power of two


@cuda.jit
def block_sum_kernel(x, partial, n):
    buf = cuda.shared.array(THREADS, float32)  # one slot per thread, shared by the block
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * THREADS + tid
    buf[tid] = x[i] if i < n else 0.0  # threads past the end contribute 0
    cuda.syncthreads()  # every slot is written before anyone reads a neighbour's
    stride = THREADS // 2
    while stride > 0:
        if tid < stride:
            buf[tid] += buf[tid + stride]
        cuda.syncthreads()  # this level is finished before the next one reads it
        stride //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = buf[0]


def block_sums(x: np.ndarray) -> np.ndarray:
    """One partial sum per block of THREADS consecutive elements of the float32 vector x."""
    n = x.size
    blocks = (n + THREADS - 1) // THREADS
    partial = np.zeros(blocks, dtype=np.float32)
    block_sum_kernel[blocks, THREADS](x, partial, n)
    return partial
'''

BLOCK_SUM = ExerciseSpec(
    reference=block_sums_reference,
    make_case=_reduce_case,
    solution=BLOCK_SUM_SOLUTION,
    examples=({"x": np.arange(1, 6, dtype=np.float32)},),
    edge_cases={
        "one element": lambda rng: {"x": _vector(rng, 1)},
        "63 elements (one short of a block)": lambda rng: {"x": _vector(rng, 63)},
        "65 elements (one past a block)": lambda rng: {"x": _vector(rng, 65)},
        "131 elements (three blocks)": lambda rng: {"x": _vector(rng, 131)},
    },
    random_cases=3,
    imports=NUMBA,
    cuda_sim=True,
    mutants=(
        Mutant(
            "tree stops one level early",
            mutate(BLOCK_SUM_SOLUTION, "while stride > 0:", "while stride > 1:"),
            "buf[1] is never added into buf[0]",
        ),
        Mutant(
            "no zero for threads past the end",
            mutate(
                BLOCK_SUM_SOLUTION,
                "buf[tid] = x[i] if i < n else 0.0  # threads past the end contribute 0",
                "buf[tid] = x[i]",
            ),
            "threads of the last block read past the end of x",
        ),
        Mutant(
            "every block writes partial[0]",
            mutate(BLOCK_SUM_SOLUTION, "partial[cuda.blockIdx.x] = buf[0]", "partial[0] = buf[0]"),
            "the blocks overwrite one another and the other slots stay 0",
        ),
    ),
)
