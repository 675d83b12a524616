"""Reductions in CUDA (numba): a block-level shared-memory tree reduction, and a histogram
privatized in shared memory."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, exact, mutate
from solutions.exercises.cuda.common import NUMBA, odd, upto, vector

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
    return {"x": vector(rng, odd(rng, 8 + int(100 * size)))}


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
        "one element": lambda rng: {"x": vector(rng, 1)},
        "63 elements (one short of a block)": lambda rng: {"x": vector(rng, 63)},
        "65 elements (one past a block)": lambda rng: {"x": vector(rng, 65)},
        "131 elements (three blocks)": lambda rng: {"x": vector(rng, 131)},
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


# --- histogram with shared-memory privatization ------------------------------------------------

HIST_THREADS = 64
"""Threads per block of the histogram."""


def histogram_reference(x: np.ndarray, bins: int) -> np.ndarray:
    """How many elements of x fall in each of the bins 0 .. bins - 1, as int32."""
    return np.bincount(x, minlength=bins).astype(np.int32)


def _values(rng: np.random.Generator, n: int, bins: int) -> Case:
    return {"x": rng.integers(0, bins, size=n).astype(np.int32), "bins": bins}


def _hist_case(rng: np.random.Generator, size: float) -> Case:
    return _values(rng, odd(rng, 16 + int(280 * size)), upto(rng, 2, 20))


HISTOGRAM_SOLUTION = '''\
import numpy as np
from numba import cuda, int32

THREADS = 64  # threads per block, one element per thread
MAX_BINS = 64  # size of the per-block histogram in shared memory (bins <= 64)


@cuda.jit
def histogram_kernel(x, hist, n, bins):
    local = cuda.shared.array(MAX_BINS, int32)  # this block's private histogram
    tid = cuda.threadIdx.x
    for b in range(tid, bins, THREADS):  # shared memory starts with garbage: zero it
        local[b] = 0
    cuda.syncthreads()
    i = cuda.blockIdx.x * THREADS + tid
    if i < n:
        # Contention only among this block's threads, on a fast shared-memory atomic.
        cuda.atomic.add(local, x[i], 1)
    cuda.syncthreads()  # the block's counts are final before they are flushed
    for b in range(tid, bins, THREADS):  # one global atomic per bin per block
        if local[b] != 0:
            cuda.atomic.add(hist, b, local[b])


def histogram(x: np.ndarray, bins: int) -> np.ndarray:
    """Counts of the int32 values of x, each in [0, bins), as an int32 array of length bins."""
    n = x.size
    hist = np.zeros(bins, dtype=np.int32)
    blocks = (n + THREADS - 1) // THREADS
    histogram_kernel[blocks, THREADS](x, hist, n, bins)
    return hist
'''

HISTOGRAM = ExerciseSpec(
    reference=histogram_reference,
    make_case=_hist_case,
    solution=HISTOGRAM_SOLUTION,
    examples=({"x": np.array([0, 1, 1, 3, 9, 9, 9], dtype=np.int32), "bins": 10},),
    edge_cases={
        "one element": lambda rng: _values(rng, 1, 10),
        "65 elements (one past a block)": lambda rng: _values(rng, 65, 10),
        "all in one bin (200 elements)": lambda rng: {
            "x": np.full(200, 7, dtype=np.int32),
            "bins": 10,
        },
        "more bins than elements (5 values, 40 bins)": lambda rng: _values(rng, 5, 40),
        "131 elements, 3 bins": lambda rng: _values(rng, 131, 3),
    },
    random_cases=3,
    imports=NUMBA,
    cuda_sim=True,
    mutants=(
        Mutant(
            "shared histogram not zeroed",
            mutate(
                HISTOGRAM_SOLUTION,
                "    for b in range(tid, bins, THREADS):  # shared memory starts with garbage:"
                " zero it\n        local[b] = 0\n",
                "",
            ),
            "each block starts from whatever the shared array held (the last block's counts)",
        ),
        Mutant(
            "flush stores instead of adding",
            mutate(
                HISTOGRAM_SOLUTION,
                "            cuda.atomic.add(hist, b, local[b])",
                "            hist[b] = local[b]",
            ),
            "the blocks overwrite one another's counts: only one block's survive",
        ),
        Mutant(
            "threads past the end count bin 0",
            mutate(
                HISTOGRAM_SOLUTION,
                "    if i < n:\n"
                "        # Contention only among this block's threads, on a fast shared-memory"
                " atomic.\n"
                "        cuda.atomic.add(local, x[i], 1)",
                "    v = x[i] if i < n else 0\n    cuda.atomic.add(local, v, 1)",
            ),
            "bin 0 is overcounted by the idle threads of the last block",
        ),
    ),
    compare=exact,
)
