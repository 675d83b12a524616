"""Tiled matrix multiplication in CUDA (numba): TILE x TILE blocks stage A and B through
shared memory."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, mutate
from solutions.exercises.cuda.common import NUMBA, Where, located, matrix, upto

# --- tiled matrix multiplication ---------------------------------------------------------------

GEMM_TILE = 4
"""Tile edge of the tiled matmul: blocks of GEMM_TILE x GEMM_TILE threads."""


def matmul_reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b in float64, returned as float32."""
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


def _matmul_case(rng: np.random.Generator, size: float) -> Case:
    m, k, n = (upto(rng, 1, 3 + int(12 * size)) for _ in range(3))
    return {"a": matrix(rng, m, k, 1.0), "b": matrix(rng, k, n, 1.0)}


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
        "1 x 1 times 1 x 1": lambda rng: {"a": matrix(rng, 1, 1), "b": matrix(rng, 1, 1)},
        "K a multiple of the tile (5x4 @ 4x7)": lambda rng: {
            "a": matrix(rng, 5, 4, 1.0),
            "b": matrix(rng, 4, 7, 1.0),
        },
        "only K past the tile (4x7 @ 7x4)": lambda rng: {
            "a": matrix(rng, 4, 7, 1.0),
            "b": matrix(rng, 7, 4, 1.0),
        },
        "a row vector (1x9 @ 9x13)": lambda rng: {
            "a": matrix(rng, 1, 9, 1.0),
            "b": matrix(rng, 9, 13, 1.0),
        },
        "13x2 @ 2x1": lambda rng: {"a": matrix(rng, 13, 2, 1.0), "b": matrix(rng, 2, 1, 1.0)},
    },
    random_cases=3,
    compare=located(_tile_where(GEMM_TILE)),
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
