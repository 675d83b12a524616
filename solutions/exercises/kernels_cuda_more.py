"""More CUDA kernel exercises in numba, checked in numba's CUDA simulator: row softmax, tiled
matrix multiplication, transpose through a padded shared tile, NCHW -> NHWC, a privatized
histogram, a block-level inclusive scan, a LayerNorm row kernel and a fused bias + GELU.

Like kernels_cuda, this module never imports numba: the quizzer process only uses the numpy
references and the inputs. The simulator runs every CUDA thread as a Python thread, so shapes
stay tiny (matrices up to about 20 x 20, rows up to 40) and are rarely a multiple of the tile or
block. Where an output element belongs to one thread, a mismatch names the block and thread
that wrote the first wrong value.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np

from quizzer.grading.exercise_spec import (
    Case,
    Compare,
    ExerciseSpec,
    Mismatch,
    Mutant,
    Tolerance,
    allclose,
    errors,
    exact,
    mutate,
)
from solutions.exercises.kernels_cuda import NUMBA, _odd

Where = Callable[[tuple[int, ...], Case], str]
"""(index of an output element, the case's inputs) -> the block and thread that write it."""


def _located(where: Where) -> Compare:
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


def _flat_where(threads: int) -> Where:
    """One thread per element of a 1-D output, on a 1-D grid of ``threads``-thread blocks."""

    def where(index: tuple[int, ...], case: Case) -> str:
        return f"written by block {index[0] // threads}, thread {index[0] % threads}"

    return where


def _matrix(rng: np.random.Generator, rows: int, cols: int, scale: float = 3.0) -> np.ndarray:
    return (rng.standard_normal((rows, cols)) * scale).astype(np.float32)


def _upto(rng: np.random.Generator, low: int, high: int) -> int:
    return int(rng.integers(low, max(low, high) + 1))


# --- row softmax: one block per row ----------------------------------------------------------

SOFTMAX_THREADS = 32
"""Threads per block of the row softmax (one block per row)."""


def softmax_rows_reference(x: np.ndarray) -> np.ndarray:
    """Softmax of each row, computed safely in float64."""
    z = x.astype(np.float64)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def _softmax_case(rng: np.random.Generator, size: float) -> Case:
    return {"x": _matrix(rng, _upto(rng, 1, 1 + int(3 * size)), _odd(rng, 8 + int(32 * size)))}


def _row_where(threads: int) -> Where:
    def where(index: tuple[int, ...], case: Case) -> str:
        row, col = index
        return f"written by block {row}, thread {col % threads}"

    return where


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
        "one column": lambda rng: {"x": _matrix(rng, 2, 1)},
        "33 columns (thread 0 takes two)": lambda rng: {"x": _matrix(rng, 2, 33)},
        "large logits (about +-1000, 40 columns)": lambda rng: {
            "x": _matrix(rng, 2, 40, scale=1000.0)
        },
        "very negative logits (about -1000, 7 columns)": lambda rng: {
            "x": (-1000.0 + rng.standard_normal((2, 7)) * 20).astype(np.float32)
        },
    },
    random_cases=3,
    compare=_located(_row_where(SOFTMAX_THREADS)),
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


# --- tiled matrix multiplication ---------------------------------------------------------------

GEMM_TILE = 4
"""Tile edge of the tiled matmul: blocks of GEMM_TILE x GEMM_TILE threads."""


def matmul_reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b in float64, returned as float32."""
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


def _matmul_case(rng: np.random.Generator, size: float) -> Case:
    m, k, n = (_upto(rng, 1, 3 + int(12 * size)) for _ in range(3))
    return {"a": _matrix(rng, m, k, 1.0), "b": _matrix(rng, k, n, 1.0)}


def _tile_where(tile: int) -> Where:
    def where(index: tuple[int, ...], case: Case) -> str:
        i, j = index
        return (
            f"computed by block (x={j // tile}, y={i // tile}), thread (x={j % tile}, y={i % tile})"
        )

    return where


TILED_MATMUL_SOLUTION = '''\
import numpy as np
from numba import cuda, float32

TILE = 4  # blocks of TILE x TILE threads; each thread computes one element of C


@cuda.jit
def matmul_kernel(a, b, c, m, n, k):
    sa = cuda.shared.array((TILE, TILE), float32)  # A[rows of this block, one K-slice]
    sb = cuda.shared.array((TILE, TILE), float32)  # B[one K-slice, columns of this block]
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    acc = 0.0
    for t in range((k + TILE - 1) // TILE):  # ceil(k / TILE) slices of K
        kk = t * TILE
        # Each thread loads one element of each tile; outside the matrices it loads 0,
        # which adds nothing to the dot product.
        sa[ty, tx] = a[row, kk + tx] if row < m and kk + tx < k else 0.0
        sb[ty, tx] = b[kk + ty, col] if kk + ty < k and col < n else 0.0
        cuda.syncthreads()  # both tiles are complete before anyone reads them
        for j in range(TILE):
            acc += sa[ty, j] * sb[j, tx]
        cuda.syncthreads()  # everyone is done with the tiles before they are overwritten
    if row < m and col < n:
        c[row, col] = acc


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C = A @ B for float32 A (m, k) and B (k, n), with shared-memory tiles."""
    m, k = a.shape
    n = b.shape[1]
    c = np.zeros((m, n), dtype=np.float32)
    grid = ((n + TILE - 1) // TILE, (m + TILE - 1) // TILE)  # x over columns, y over rows
    matmul_kernel[grid, (TILE, TILE)](a, b, c, m, n, k)
    return c
'''

TILED_MATMUL = ExerciseSpec(
    reference=matmul_reference,
    make_case=_matmul_case,
    solution=TILED_MATMUL_SOLUTION,
    examples=(
        {
            "a": np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32),
            "b": np.array([[5.0, 6.0, 7.0], [8.0, 9.0, 10.0]], dtype=np.float32),
        },
    ),
    edge_cases={
        "1 x 1 times 1 x 1": lambda rng: {"a": _matrix(rng, 1, 1), "b": _matrix(rng, 1, 1)},
        "K a multiple of the tile (5x4 @ 4x7)": lambda rng: {
            "a": _matrix(rng, 5, 4, 1.0),
            "b": _matrix(rng, 4, 7, 1.0),
        },
        "only K past the tile (4x7 @ 7x4)": lambda rng: {
            "a": _matrix(rng, 4, 7, 1.0),
            "b": _matrix(rng, 7, 4, 1.0),
        },
        "a row vector (1x9 @ 9x13)": lambda rng: {
            "a": _matrix(rng, 1, 9, 1.0),
            "b": _matrix(rng, 9, 13, 1.0),
        },
        "13x2 @ 2x1": lambda rng: {"a": _matrix(rng, 13, 2, 1.0), "b": _matrix(rng, 2, 1, 1.0)},
    },
    random_cases=3,
    compare=_located(_tile_where(GEMM_TILE)),
    imports=NUMBA,
    cuda_sim=True,
    mutants=(
        Mutant(
            "K loop rounded down",
            mutate(
                TILED_MATMUL_SOLUTION,
                "for t in range((k + TILE - 1) // TILE):",
                "for t in range(k // TILE):",
            ),
            "the last partial slice of K is never added",
        ),
        Mutant(
            "A tile loaded with B's index",
            mutate(
                TILED_MATMUL_SOLUTION,
                "sa[ty, tx] = a[row, kk + tx] if",
                "sa[ty, tx] = a[row, kk + ty] if",
            ),
            "every column of the A tile holds the same element",
        ),
        Mutant(
            "no bounds check on the store",
            mutate(
                TILED_MATMUL_SOLUTION,
                "    if row < m and col < n:\n        c[row, col] = acc",
                "    c[row, col] = acc",
            ),
            "threads of the edge blocks write past the end of C",
        ),
    ),
)


# --- transpose through a padded shared tile --------------------------------------------------

TRANSPOSE_TILE = 8
"""Tile edge of the transpose: blocks of TRANSPOSE_TILE x TRANSPOSE_TILE threads."""


def transpose_reference(x: np.ndarray) -> np.ndarray:
    """x.T as a new C-contiguous array."""
    return np.ascontiguousarray(x.T)


def _transpose_case(rng: np.random.Generator, size: float) -> Case:
    return {"x": _matrix(rng, _odd(rng, 4 + int(16 * size)), _odd(rng, 4 + int(16 * size)))}


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
        "1 x 1": lambda rng: {"x": _matrix(rng, 1, 1)},
        "a row (1 x 11)": lambda rng: {"x": _matrix(rng, 1, 11)},
        "a column (11 x 1)": lambda rng: {"x": _matrix(rng, 11, 1)},
        "one full tile (8 x 8)": lambda rng: {"x": _matrix(rng, 8, 8)},
        "tall and narrow (17 x 5)": lambda rng: {"x": _matrix(rng, 17, 5)},
    },
    random_cases=3,
    compare=_located(_transpose_where),
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
    return _nchw(rng, _upto(rng, 1, 2), _upto(rng, 2, big), _upto(rng, 1, big), _upto(rng, 1, big))


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
    compare=_located(_nhwc_where),
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


# --- histogram with shared-memory privatization ------------------------------------------------

HIST_THREADS = 64
"""Threads per block of the histogram."""


def histogram_reference(x: np.ndarray, bins: int) -> np.ndarray:
    """How many elements of x fall in each of the bins 0 .. bins - 1, as int32."""
    return np.bincount(x, minlength=bins).astype(np.int32)


def _values(rng: np.random.Generator, n: int, bins: int) -> Case:
    return {"x": rng.integers(0, bins, size=n).astype(np.int32), "bins": bins}


def _hist_case(rng: np.random.Generator, size: float) -> Case:
    return _values(rng, _odd(rng, 16 + int(280 * size)), _upto(rng, 2, 20))


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
    return _scan_vector(rng, _odd(rng, 8 + int(150 * size)))


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
    compare=_located(_flat_where(SCAN_THREADS)),
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
    return _ln(rng, _matrix(rng, _upto(rng, 1, 1 + int(3 * size)), _odd(rng, 8 + int(32 * size))))


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
        "one column": lambda rng: _ln(rng, _matrix(rng, 2, 1)),
        "33 columns": lambda rng: _ln(rng, _matrix(rng, 2, 33)),
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
    compare=_located(_row_where(LN_THREADS)),
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


# --- fused bias + GELU -------------------------------------------------------------------------

GELU_THREADS = 64
"""Threads per block of the fused bias + GELU (one thread per element)."""


def bias_gelu_reference(x: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """GELU (tanh approximation) of x + bias, bias broadcast over the rows."""
    v = x.astype(np.float64) + bias.astype(np.float64)
    inner = math.sqrt(2.0 / math.pi) * (v + 0.044715 * v**3)
    return (0.5 * v * (1.0 + np.tanh(inner))).astype(np.float32)


def _gelu(rng: np.random.Generator, rows: int, cols: int) -> Case:
    return {"x": _matrix(rng, rows, cols, 2.0), "bias": _matrix(rng, 1, cols, 1.0)[0]}


def _gelu_case(rng: np.random.Generator, size: float) -> Case:
    return _gelu(rng, _upto(rng, 1, 2 + int(6 * size)), _odd(rng, 4 + int(20 * size)))


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
    compare=_located(_gelu_where),
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
