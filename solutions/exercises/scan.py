"""Parallel-primitive exercises, written as the tree a GPU executes and checked bit for bit in
float32 (the order of the additions is the point): a tree reduction with sequential addressing,
the Hillis-Steele inclusive scan and the Blelloch work-efficient exclusive scan, for sizes that
are not powers of two."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, mutate
from solutions.exercises.compare import bitwise, wide_float32


def _next_pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def tree_sum_reference(x: np.ndarray) -> np.ndarray:
    p = _next_pow2(len(x))
    buf = np.zeros(p, dtype=np.float32)
    buf[: len(x)] = x
    stride = p // 2
    while stride > 0:
        buf[:stride] = buf[:stride] + buf[stride : 2 * stride]
        stride //= 2
    return np.asarray(buf[0], dtype=np.float32)


def inclusive_scan_reference(x: np.ndarray) -> np.ndarray:
    y = x.astype(np.float32).copy()
    d = 1
    while d < len(y):
        nxt = y.copy()
        nxt[d:] = y[d:] + y[:-d]
        y = nxt
        d *= 2
    return y


def exclusive_scan_reference(x: np.ndarray) -> np.ndarray:
    n = len(x)
    p = _next_pow2(n)
    a = np.zeros(p, dtype=np.float32)
    a[:n] = x
    d = 1
    while d < p:
        idx = np.arange(2 * d - 1, p, 2 * d)
        a[idx] = a[idx] + a[idx - d]
        d *= 2
    a[p - 1] = 0
    d = p // 2
    while d >= 1:
        idx = np.arange(2 * d - 1, p, 2 * d)
        left = a[idx - d].copy()
        a[idx - d] = a[idx]
        a[idx] = a[idx] + left
        d //= 2
    return a[:n].copy()


def _vec_case(rng: np.random.Generator, size: float) -> Case:
    n = int(rng.integers(1, 2 + int(300 * size)))
    return {"x": wide_float32(rng, n)}


def _fixed(rng: np.random.Generator, n: int) -> Case:
    return {"x": wide_float32(rng, n)}


_EDGES = {
    "one element": lambda rng: _fixed(rng, 1),
    "two elements": lambda rng: _fixed(rng, 2),
    "a power of two (64)": lambda rng: _fixed(rng, 64),
    "one past a power of two (65)": lambda rng: _fixed(rng, 65),
    "odd size (37)": lambda rng: _fixed(rng, 37),
    "1000 elements": lambda rng: _fixed(rng, 1000),
}

# --- tree reduction -------------------------------------------------------------------------

REDUCE_SOLUTION = '''\
import numpy as np


def tree_sum(x: np.ndarray) -> np.ndarray:
    """x: float32 (n,), n >= 1. The sum as a block reduces it in shared memory: pad to the next
    power of two P with zeros, then stride = P/2, P/4, ..., 1: slot i += slot i + stride for
    every i < stride. float32 throughout. Returns a float32 scalar."""
    n = len(x)
    p = 1
    while p < n:
        p *= 2
    buf = np.zeros(p, dtype=np.float32)  # threads past the end contribute 0
    buf[:n] = x
    stride = p // 2
    while stride > 0:
        # Every active "thread" i < stride adds its partner i + stride, all in one step.
        buf[:stride] = buf[:stride] + buf[stride : 2 * stride]
        stride //= 2
    return buf[0]
'''

TREE_REDUCE = ExerciseSpec(
    reference=tree_sum_reference,
    make_case=_vec_case,
    solution=REDUCE_SOLUTION,
    compare=bitwise,
    examples=({"x": np.array([1.0, 2.0, 3.0, 4.0, 5.0], dtype=np.float32)},),
    edge_cases=_EDGES,
    mutants=(
        Mutant(
            "np.sum",
            "import numpy as np\n\n\ndef tree_sum(x):\n    return np.sum(x, dtype=np.float32)\n",
            "numpy adds in its own (pairwise, unrolled) order, so the float32 result differs",
        ),
        Mutant(
            "interleaved addressing",
            mutate(
                mutate(
                    REDUCE_SOLUTION,
                    "    stride = p // 2\n    while stride > 0:",
                    "    stride = 1\n    while stride < p:",
                ),
                "        buf[:stride] = buf[:stride] + buf[stride : 2 * stride]\n"
                "        stride //= 2",
                "        left = slice(0, p, 2 * stride)\n"
                "        buf[left] = buf[left] + buf[stride : p : 2 * stride]\n"
                "        stride *= 2",
            ),
            "pairs (0,1),(2,3),... instead of (0,P/2),(1,P/2+1),...: a different tree",
        ),
        Mutant(
            "sequential loop",
            "import numpy as np\n\n\ndef tree_sum(x):\n    s = np.float32(0)\n"
            "    for v in x:\n        s = np.float32(s + v)\n    return s\n",
            "one thread adding in order: correct maths, different rounding",
        ),
        Mutant(
            "no padding (odd element dropped)",
            mutate(
                REDUCE_SOLUTION,
                "    p = 1\n    while p < n:\n        p *= 2\n",
                "    p = 1\n    while p * 2 <= n:\n        p *= 2\n",
            ),
            "rounding n down to a power of two loses the tail",
        ),
        Mutant(
            "accumulated in float64",
            mutate(REDUCE_SOLUTION, "buf = np.zeros(p, dtype=np.float32)", "buf = np.zeros(p)"),
            "the GPU adds float32 values; wider intermediates round differently",
        ),
    ),
)

# --- Hillis-Steele inclusive scan ----------------------------------------------------------

HILLIS_SOLUTION = '''\
import numpy as np


def inclusive_scan(x: np.ndarray) -> np.ndarray:
    """x: float32 (n,), n >= 1. Hillis-Steele: for d = 1, 2, 4, ... while d < n, every element
    i >= d adds the element d places before it, reading only the previous step's values
    (double buffering). float32 throughout. Returns float32 (n,)."""
    y = x.astype(np.float32).copy()
    d = 1
    while d < len(y):
        nxt = y.copy()  # the other buffer: nobody reads a value written in this step
        nxt[d:] = y[d:] + y[:-d]
        y = nxt
        d *= 2
    return y
'''

INCLUSIVE_SCAN = ExerciseSpec(
    reference=inclusive_scan_reference,
    make_case=_vec_case,
    solution=HILLIS_SOLUTION,
    compare=bitwise,
    examples=({"x": np.array([3.0, 1.0, 7.0, 0.0, 4.0, 1.0], dtype=np.float32)},),
    edge_cases=_EDGES,
    mutants=(
        Mutant(
            "np.cumsum",
            "import numpy as np\n\n\ndef inclusive_scan(x):\n"
            "    return np.cumsum(x, dtype=np.float32)\n",
            "a sequential scan rounds differently from the log-step tree",
        ),
        Mutant(
            "updated in place (no double buffer)",
            mutate(
                mutate(HILLIS_SOLUTION, "        nxt = y.copy()  #", "        nxt = y  #"),
                "        nxt[d:] = y[d:] + y[:-d]",
                "        for i in range(d, len(y)):\n            nxt[i] = y[i] + y[i - d]",
            ),
            "an ascending in-place loop reads values already updated in this step",
        ),
        Mutant(
            "stops one step early",
            mutate(HILLIS_SOLUTION, "while d < len(y):", "while 2 * d < len(y):"),
            "the last step, with d >= n/2, still adds into the upper elements",
        ),
        Mutant(
            "exclusive instead of inclusive",
            mutate(
                HILLIS_SOLUTION,
                "    return y\n",
                "    return np.concatenate([np.zeros(1, np.float32), y[:-1]])\n",
            ),
            "the inclusive scan includes element i itself",
        ),
    ),
)

# --- Blelloch exclusive scan ---------------------------------------------------------------

BLELLOCH_SOLUTION = '''\
import numpy as np


def exclusive_scan(x: np.ndarray) -> np.ndarray:
    """x: float32 (n,), n >= 1. Blelloch's work-efficient scan: pad with zeros to the next power
    of two P; up-sweep (d = 1, 2, ..., P/2: a[i] += a[i - d] for i = 2d-1, 4d-1, ...); set
    a[P-1] = 0; down-sweep (d = P/2, ..., 1: t = a[i - d]; a[i - d] = a[i]; a[i] += t).
    float32 throughout. Returns float32 (n,): out[i] = x[0] + ... + x[i-1]."""
    n = len(x)
    p = 1
    while p < n:
        p *= 2
    a = np.zeros(p, dtype=np.float32)
    a[:n] = x
    d = 1
    while d < p:  # up-sweep: a reduction tree; a[P-1] ends with the total
        i = np.arange(2 * d - 1, p, 2 * d)
        a[i] = a[i] + a[i - d]
        d *= 2
    a[p - 1] = 0  # the identity: the exclusive prefix of the whole array's root
    d = p // 2
    while d >= 1:  # down-sweep: pass prefixes down, left child gets the parent's
        i = np.arange(2 * d - 1, p, 2 * d)
        left = a[i - d].copy()
        a[i - d] = a[i]
        a[i] = a[i] + left
        d //= 2
    return a[:n].copy()
'''

EXCLUSIVE_SCAN = ExerciseSpec(
    reference=exclusive_scan_reference,
    make_case=_vec_case,
    solution=BLELLOCH_SOLUTION,
    compare=bitwise,
    examples=({"x": np.array([3.0, 1.0, 7.0, 0.0, 4.0, 1.0], dtype=np.float32)},),
    edge_cases=_EDGES,
    mutants=(
        Mutant(
            "sequential exclusive scan",
            "import numpy as np\n\n\ndef exclusive_scan(x):\n"
            "    c = np.cumsum(x, dtype=np.float32)\n"
            "    return np.concatenate([np.zeros(1, np.float32), c[:-1]])\n",
            "same maths, different order of additions, different float32 bits",
        ),
        Mutant(
            "root not cleared before the down-sweep",
            mutate(BLELLOCH_SOLUTION, "    a[p - 1] = 0  #", "    pass  #"),
            "the down-sweep must start from the identity",
        ),
        Mutant(
            "no padding to a power of two",
            mutate(
                BLELLOCH_SOLUTION,
                "    p = 1\n    while p < n:\n        p *= 2\n",
                "    p = n\n",
            ),
            "the tree indices 2d-1, 4d-1, ... assume a power of two",
        ),
        Mutant(
            "down-sweep without the swap",
            mutate(BLELLOCH_SOLUTION, "        a[i - d] = a[i]\n", ""),
            "the left child must receive the parent's prefix",
        ),
    ),
)
