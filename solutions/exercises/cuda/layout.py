"""Memory-layout kernels in CUDA (numba): a transpose through a padded shared tile, and
NCHW -> NHWC."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, mutate
from solutions.exercises.cuda.common import NUMBA, located, matrix, odd, upto

# --- transpose through a padded shared tile --------------------------------------------------

TRANSPOSE_TILE = 8
"""Tile edge of the transpose: blocks of TRANSPOSE_TILE x TRANSPOSE_TILE threads."""


def transpose_reference(x: np.ndarray) -> np.ndarray:
    """x.T as a new C-contiguous array."""
    return np.ascontiguousarray(x.T)


def _transpose_case(rng: np.random.Generator, size: float) -> Case:
    return {"x": matrix(rng, odd(rng, 4 + int(16 * size)), odd(rng, 4 + int(16 * size)))}


def _transpose_where(index: tuple[int, ...], case: Case) -> str:
    i, j = index  # out[i, j] = x[j, i], written by the block that read x's tile (j // T, i // T)
    t = TRANSPOSE_TILE
    return (
        f"written by block (x={i // t}, y={j // t}) (the block that read x[{j}, {i}]), "
        f"thread (x={j % t}, y={i % t})"
    )


TRANSPOSE_SOLUTION = '''\
import numpy as np
from numba import cuda, float32

TILE = 8  # blocks of TILE x TILE threads


@cuda.jit
def transpose_kernel(x, out, rows, cols):
    # One spare column: tile[tx, ty] walks a column of the tile, and with a row length of
    # TILE + 1 words consecutive threads land in different shared-memory banks.
    tile = cuda.shared.array((TILE, TILE + 1), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    # Read a TILE x TILE tile of x row by row: consecutive threads read consecutive addresses.
    r = cuda.blockIdx.y * TILE + ty
    c = cuda.blockIdx.x * TILE + tx
    if r < rows and c < cols:
        tile[ty, tx] = x[r, c]
    cuda.syncthreads()  # the whole tile is loaded before anyone reads another thread's element
    # Write the transposed tile: block (bx, by) of x becomes block (by, bx) of out, and
    # consecutive threads again write consecutive addresses of out.
    r = cuda.blockIdx.x * TILE + ty  # a row of out = a column of x
    c = cuda.blockIdx.y * TILE + tx
    if r < cols and c < rows:
        out[r, c] = tile[tx, ty]


def transpose(x: np.ndarray) -> np.ndarray:
    """x.T for a float32 matrix x (rows, cols), through shared memory."""
    rows, cols = x.shape
    out = np.zeros((cols, rows), dtype=np.float32)
    grid = ((cols + TILE - 1) // TILE, (rows + TILE - 1) // TILE)  # tiles of x: x over columns
    transpose_kernel[grid, (TILE, TILE)](x, out, rows, cols)
    return out
'''

TRANSPOSE = ExerciseSpec(
    reference=transpose_reference,
    make_case=_transpose_case,
    solution=TRANSPOSE_SOLUTION,
    examples=({"x": np.arange(6, dtype=np.float32).reshape(2, 3)},),
    edge_cases={
        "1 x 1": lambda rng: {"x": matrix(rng, 1, 1)},
        "a row (1 x 11)": lambda rng: {"x": matrix(rng, 1, 11)},
        "a column (11 x 1)": lambda rng: {"x": matrix(rng, 11, 1)},
        "one full tile (8 x 8)": lambda rng: {"x": matrix(rng, 8, 8)},
        "tall and narrow (17 x 5)": lambda rng: {"x": matrix(rng, 17, 5)},
    },
    random_cases=3,
    compare=located(_transpose_where),
    imports=NUMBA,
    cuda_sim=True,
    mutants=(
        Mutant(
            "block indices not swapped for the write",
            mutate(
                mutate(
                    TRANSPOSE_SOLUTION,
                    "    r = cuda.blockIdx.x * TILE + ty  # a row of out = a column of x",
                    "    r = cuda.blockIdx.y * TILE + ty",
                ),
                "    c = cuda.blockIdx.y * TILE + tx\n    if r < cols",
                "    c = cuda.blockIdx.x * TILE + tx\n    if r < cols",
            ),
            "each tile is transposed in place but lands at its old block position",
        ),
        Mutant(
            "tile read back untransposed",
            mutate(TRANSPOSE_SOLUTION, "out[r, c] = tile[tx, ty]", "out[r, c] = tile[ty, tx]"),
            "tiles move but their contents are not transposed",
        ),
        Mutant(
            "write bounds checked against x's shape",
            mutate(
                TRANSPOSE_SOLUTION,
                "    if r < cols and c < rows:",
                "    if r < rows and c < cols:",
            ),
            "non-square matrices lose elements or write past the end of out",
        ),
    ),
)


# --- NCHW -> NHWC ----------------------------------------------------------------------------

LAYOUT_THREADS = 64
"""Threads per block of the layout conversion (one thread per output element)."""


def nchw_to_nhwc_reference(x: np.ndarray) -> np.ndarray:
    """x (N, C, H, W) -> (N, H, W, C), C-contiguous."""
    return np.ascontiguousarray(x.transpose(0, 2, 3, 1))


def _nchw(rng: np.random.Generator, n: int, c: int, h: int, w: int) -> Case:
    x = (rng.standard_normal((n, c, h, w)) * 3).astype(np.float32)
    return {"x": x}


def _nchw_case(rng: np.random.Generator, size: float) -> Case:
    big = 2 + int(4 * size)
    return _nchw(rng, upto(rng, 1, 2), upto(rng, 2, big), upto(rng, 1, big), upto(rng, 1, big))


def _nhwc_where(index: tuple[int, ...], case: Case) -> str:
    n, c, h, w = case["x"].shape
    flat = int(np.ravel_multi_index(index, (n, h, w, c)))
    t = LAYOUT_THREADS
    return f"output position {flat}, written by block {flat // t}, thread {flat % t}"


NCHW_TO_NHWC_SOLUTION = '''\
import numpy as np
from numba import cuda

THREADS = 64  # threads per block; one thread per output element


@cuda.jit
def nchw_to_nhwc_kernel(x, out, total):
    i = cuda.blockIdx.x * THREADS + cuda.threadIdx.x  # position in the flat NHWC output
    if i < total:
        n_, c_, h_, w_ = x.shape
        # Split i in NHWC order: C varies fastest, then W, then H, then N.
        c = i % c_
        w = (i // c_) % w_
        h = (i // (c_ * w_)) % h_
        n = i // (c_ * w_ * h_)
        out[i] = x[n, c, h, w]  # consecutive threads write consecutive addresses


def nchw_to_nhwc(x: np.ndarray) -> np.ndarray:
    """Convert a float32 (N, C, H, W) tensor to (N, H, W, C)."""
    n, c, h, w = x.shape
    total = x.size
    out = np.zeros(total, dtype=np.float32)
    blocks = (total + THREADS - 1) // THREADS
    nchw_to_nhwc_kernel[blocks, THREADS](x, out, total)
    return out.reshape(n, h, w, c)
'''

NCHW_TO_NHWC = ExerciseSpec(
    reference=nchw_to_nhwc_reference,
    make_case=_nchw_case,
    solution=NCHW_TO_NHWC_SOLUTION,
    examples=({"x": np.arange(12, dtype=np.float32).reshape(1, 3, 2, 2)},),
    edge_cases={
        "one channel (1, 1, 3, 5)": lambda rng: _nchw(rng, 1, 1, 3, 5),
        "1 x 1 pixels (2, 5, 1, 1)": lambda rng: _nchw(rng, 2, 5, 1, 1),
        "H != W (1, 3, 2, 7)": lambda rng: _nchw(rng, 1, 3, 2, 7),
        "two images past one block (2, 3, 4, 3)": lambda rng: _nchw(rng, 2, 3, 4, 3),
    },
    random_cases=3,
    compare=located(_nhwc_where),
    imports=NUMBA,
    cuda_sim=True,
    mutants=(
        Mutant(
            "index split in NCHW order",
            mutate(
                NCHW_TO_NHWC_SOLUTION,
                "        c = i % c_\n"
                "        w = (i // c_) % w_\n"
                "        h = (i // (c_ * w_)) % h_\n"
                "        n = i // (c_ * w_ * h_)",
                "        w = i % w_\n"
                "        h = (i // w_) % h_\n"
                "        c = (i // (w_ * h_)) % c_\n"
                "        n = i // (c_ * w_ * h_)",
            ),
            "output position i receives input element i: a copy, not a transpose",
        ),
        Mutant(
            "H and W swapped in the split",
            mutate(
                NCHW_TO_NHWC_SOLUTION,
                "        w = (i // c_) % w_\n        h = (i // (c_ * w_)) % h_",
                "        h = (i // c_) % h_\n        w = (i // (c_ * h_)) % w_",
            ),
            "the image comes out transposed (or reads past W when H != W)",
        ),
        Mutant(
            "no bounds check",
            mutate(NCHW_TO_NHWC_SOLUTION, "    if i < total:\n", "    if True:\n"),
            "threads of the last block index past the end",
        ),
    ),
)
