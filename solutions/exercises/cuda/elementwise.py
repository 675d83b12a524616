"""Elementwise CUDA kernels in numba: vector add with a bounds check, and a fused bias +
GELU over a matrix."""

from __future__ import annotations

import math

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, mutate
from solutions.exercises.cuda.common import NUMBA, located, matrix, odd, upto, vector

# --- vector add ----------------------------------------------------------------------------


def vector_add_reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise a + b."""
    return a + b


def _add_case(rng: np.random.Generator, size: float) -> Case:
    n = odd(rng, 8 + int(150 * size))
    return {"a": vector(rng, n), "b": vector(rng, n)}


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
        "one element": lambda rng: {"a": vector(rng, 1), "b": vector(rng, 1)},
        "33 elements (one past a block of 32)": lambda rng: {
            "a": vector(rng, 33),
            "b": vector(rng, 33),
        },
        "a multiple of 32 (64)": lambda rng: {"a": vector(rng, 64), "b": vector(rng, 64)},
        "129 elements": lambda rng: {"a": vector(rng, 129), "b": vector(rng, 129)},
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


# --- fused bias + GELU -------------------------------------------------------------------------

GELU_THREADS = 64
"""Threads per block of the fused bias + GELU (one thread per element)."""


def bias_gelu_reference(x: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """GELU (tanh approximation) of x + bias, bias broadcast over the rows."""
    v = x.astype(np.float64) + bias.astype(np.float64)
    inner = math.sqrt(2.0 / math.pi) * (v + 0.044715 * v**3)
    return (0.5 * v * (1.0 + np.tanh(inner))).astype(np.float32)


def _gelu(rng: np.random.Generator, rows: int, cols: int) -> Case:
    return {"x": matrix(rng, rows, cols, 2.0), "bias": matrix(rng, 1, cols, 1.0)[0]}


def _gelu_case(rng: np.random.Generator, size: float) -> Case:
    return _gelu(rng, upto(rng, 1, 2 + int(6 * size)), odd(rng, 4 + int(20 * size)))


def _gelu_where(index: tuple[int, ...], case: Case) -> str:
    flat = index[0] * case["x"].shape[1] + index[1]
    return f"written by block {flat // GELU_THREADS}, thread {flat % GELU_THREADS}"


BIAS_GELU_SOLUTION = '''\
import math

import numpy as np
from numba import cuda

THREADS = 64  # threads per block; one thread per element
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@cuda.jit
def bias_gelu_kernel(x, bias, out, rows, cols):
    i = cuda.blockIdx.x * THREADS + cuda.threadIdx.x  # flat row-major index
    if i < rows * cols:
        r = i // cols
        c = i % cols  # the bias follows the column
        v = x[r, c] + bias[c]  # the bias add stays in a register: no round trip to memory
        inner = SQRT_2_OVER_PI * (v + 0.044715 * v * v * v)
        out[r, c] = 0.5 * v * (1.0 + math.tanh(inner))


def bias_gelu(x: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """GELU(x + bias) for a float32 matrix x (rows, cols) and bias (cols,), in one kernel."""
    rows, cols = x.shape
    out = np.zeros_like(x)
    blocks = (rows * cols + THREADS - 1) // THREADS
    bias_gelu_kernel[blocks, THREADS](x, bias, out, rows, cols)
    return out
'''

BIAS_GELU = ExerciseSpec(
    reference=bias_gelu_reference,
    make_case=_gelu_case,
    solution=BIAS_GELU_SOLUTION,
    examples=(
        {
            "x": np.array([[-1.0, 0.0, 1.0], [2.0, -2.0, 0.5]], dtype=np.float32),
            "bias": np.array([0.0, 1.0, -1.0], dtype=np.float32),
        },
    ),
    edge_cases={
        "one element": lambda rng: _gelu(rng, 1, 1),
        "more rows than columns (9 x 2)": lambda rng: _gelu(rng, 9, 2),
        "65 elements (13 x 5)": lambda rng: _gelu(rng, 13, 5),
        "a single row of 23": lambda rng: _gelu(rng, 1, 23),
    },
    random_cases=3,
    compare=located(_gelu_where),
    imports=NUMBA,
    cuda_sim=True,
    mutants=(
        Mutant(
            "bias indexed by the row",
            mutate(BIAS_GELU_SOLUTION, "v = x[r, c] + bias[c]", "v = x[r, c] + bias[r]"),
            "the bias is broadcast along the wrong axis",
        ),
        Mutant(
            "bias added after the GELU",
            mutate(
                mutate(BIAS_GELU_SOLUTION, "v = x[r, c] + bias[c]", "v = x[r, c]"),
                "out[r, c] = 0.5 * v * (1.0 + math.tanh(inner))",
                "out[r, c] = 0.5 * v * (1.0 + math.tanh(inner)) + bias[c]",
            ),
            "GELU(x) + bias is not GELU(x + bias)",
        ),
        Mutant(
            "no bounds check",
            mutate(BIAS_GELU_SOLUTION, "    if i < rows * cols:\n", "    if True:\n"),
            "threads of the last block index past the end of x",
        ),
    ),
)
