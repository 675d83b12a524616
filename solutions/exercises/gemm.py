"""GEMM exercises: matrix multiplication tiled the way a thread block computes it, with sizes that
are not multiples of the tiles."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, Tolerance, mutate
from solutions.exercises.compare import normal


def matmul_reference(
    a: np.ndarray, b: np.ndarray, tile_m: int, tile_n: int, tile_k: int
) -> np.ndarray:
    """C = A B in float64, returned as float32: tiling changes the order of the additions, not
    the product."""
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


def _gemm_fixed(
    rng: np.random.Generator, m: int, n: int, k: int, tm: int, tn: int, tk: int
) -> Case:
    return {
        "a": normal(rng, (m, k)),
        "b": normal(rng, (k, n)),
        "tile_m": tm,
        "tile_n": tn,
        "tile_k": tk,
    }


def _gemm_case(rng: np.random.Generator, size: float) -> Case:
    tm, tn, tk = (int(rng.choice([2, 3, 4, 8, 16])) for _ in range(3))
    m, n, k = (int(rng.integers(1, 2 + int(60 * size))) for _ in range(3))
    return _gemm_fixed(rng, m, n, k, tm, tn, tk)


GEMM_SOLUTION = '''\
import numpy as np


def tiled_matmul(
    a: np.ndarray, b: np.ndarray, tile_m: int, tile_n: int, tile_k: int
) -> np.ndarray:
    """a: (M, K), b: (K, N) float32. C = A @ B computed one (tile_m, tile_n) output tile at a
    time, stepping through K in chunks of tile_k with a float32 accumulator. Returns (M, N)."""
    m, k = a.shape
    n = b.shape[1]
    c = np.zeros((m, n), dtype=np.float32)
    for i0 in range(0, m, tile_m):  # one thread block per output tile
        i1 = min(i0 + tile_m, m)  # the last tile may be smaller
        for j0 in range(0, n, tile_n):
            j1 = min(j0 + tile_n, n)
            acc = np.zeros((i1 - i0, j1 - j0), dtype=np.float32)  # registers
            for k0 in range(0, k, tile_k):  # march along K
                k1 = min(k0 + tile_k, k)
                a_tile = a[i0:i1, k0:k1]  # staged in shared memory on a GPU
                b_tile = b[k0:k1, j0:j1]
                acc += a_tile @ b_tile  # accumulate, never overwrite
            c[i0:i1, j0:j1] = acc  # one write per output element
    return c
'''

TILED_MATMUL = ExerciseSpec(
    reference=matmul_reference,
    make_case=_gemm_case,
    solution=GEMM_SOLUTION,
    examples=(
        {
            "a": np.arange(6, dtype=np.float32).reshape(2, 3),
            "b": np.arange(6, dtype=np.float32).reshape(3, 2),
            "tile_m": 2,
            "tile_n": 2,
            "tile_k": 2,
        },
    ),
    edge_cases={
        "sizes one past a tile (17 x 17 x 17, tiles of 16)": lambda rng: _gemm_fixed(
            rng, 17, 17, 17, 16, 16, 16
        ),
        "exact multiples of the tiles": lambda rng: _gemm_fixed(rng, 16, 8, 12, 8, 4, 4),
        "K smaller than tile_k": lambda rng: _gemm_fixed(rng, 9, 7, 3, 4, 4, 8),
        "different tile sizes per dimension": lambda rng: _gemm_fixed(rng, 13, 11, 29, 8, 3, 4),
        "one row, one column": lambda rng: _gemm_fixed(rng, 1, 1, 33, 4, 4, 8),
        "tiles of 1": lambda rng: _gemm_fixed(rng, 5, 4, 6, 1, 1, 1),
    },
    tolerances={"float32": Tolerance(1e-4, 1e-4)},
    mutants=(
        Mutant(
            "last partial K tile dropped",
            mutate(GEMM_SOLUTION, "range(0, k, tile_k)", "range(0, k - tile_k + 1, tile_k)"),
            "K = 17 with tiles of 16 leaves one column of A out of every dot product",
        ),
        Mutant(
            "last partial M tile dropped",
            mutate(GEMM_SOLUTION, "range(0, m, tile_m)", "range(0, m - tile_m + 1, tile_m)"),
            "the bottom rows of C are never written",
        ),
        Mutant(
            "tile end clipped one short",
            mutate(GEMM_SOLUTION, "j1 = min(j0 + tile_n, n)", "j1 = min(j0 + tile_n, n - 1)"),
            "the last column of C is left at zero",
        ),
        Mutant(
            "accumulator overwritten per K tile",
            mutate(GEMM_SOLUTION, "acc += a_tile @ b_tile", "acc = a_tile @ b_tile"),
            "only the last K chunk survives",
        ),
        Mutant(
            "K loop strides by tile_m",
            mutate(GEMM_SOLUTION, "range(0, k, tile_k)", "range(0, k, tile_m)"),
            "with tile_m > tile_k, parts of K are skipped",
        ),
    ),
)
