"""Collective-communication exercises: ring all-reduce simulated over N ranks (reduce-scatter then
all-gather), checked for the result and for the bytes each rank sends."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mismatch, Mutant, Tolerance, mutate


def _bounds(length: int, n: int) -> list[tuple[int, int]]:
    """np.array_split's chunks: the first length % n chunks are one element longer."""
    base, extra = divmod(length, n)
    out, start = [], 0
    for c in range(n):
        size = base + (1 if c < extra else 0)
        out.append((start, start + size))
        start += size
    return out


def ring_reference(data: np.ndarray) -> np.ndarray:
    n, length = data.shape
    total = data.astype(np.float64).sum(axis=0)
    sizes = [b - a for a, b in _bounds(length, n)]
    out = np.empty((n, length + 1))
    out[:, :length] = total
    for r in range(n):
        # Reduce-scatter sends every chunk but (r + 1) % n, all-gather every chunk but (r + 2) % n.
        sent = 2 * length - sizes[(r + 1) % n] - sizes[(r + 2) % n] if n > 1 else 0
        out[r, length] = 4 * sent
    return out


def ring_compare(
    expected: np.ndarray, got: np.ndarray, case: Case, tol: Tolerance
) -> Mismatch | None:
    if got.shape != expected.shape:
        return Mismatch(f"the output has shape {got.shape}, expected {expected.shape}")
    if got.dtype.kind not in "iuf":
        return Mismatch(f"the output has dtype {got.dtype}, expected float64")
    n, width = expected.shape
    g = got.astype(np.float64)
    bytes_bad = g[:, -1] != expected[:, -1]
    if bytes_bad.any():
        r = int(np.argmax(bytes_bad))
        return Mismatch(
            f"bytes sent per rank: got {g[:, -1].astype(np.int64).tolist()}, expected "
            f"{expected[:, -1].astype(np.int64).tolist()} (first wrong: rank {r})",
            (r, width - 1),
        )
    values, want = g[:, :-1], expected[:, :-1]
    scale = np.abs(case["data"].astype(np.float64)).sum(axis=0)  # the sum's own rounding scale
    bad = ~(np.abs(values - want) <= 1e-5 * scale + 1e-6)
    if bad.any():
        where = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), bad.shape))
        return Mismatch(
            f"{int(bad.sum())} of {bad.size} buffer values differ from the sum over ranks "
            f"(first at rank {where[0]}, element {where[1]})",
            where,
            float(np.nanmax(np.abs(values - want))),
        )
    if n > 1 and (values != values[0]).any():
        return Mismatch("the ranks' buffers are not identical: all-gather copies, it never re-adds")
    return None


def _ring_fixed(rng: np.random.Generator, n: int, length: int) -> Case:
    return {"data": (rng.standard_normal((n, length)) * 3).astype(np.float32)}


def _ring_case(rng: np.random.Generator, size: float) -> Case:
    return _ring_fixed(
        rng, int(rng.integers(1, 3 + int(6 * size))), int(rng.integers(1, 2 + int(60 * size)))
    )


RING_SOLUTION = '''\
import numpy as np


def ring_all_reduce(data: np.ndarray) -> np.ndarray:
    """data: (N, L) float32, row r is rank r's buffer. Simulates ring all-reduce: N chunks as
    np.array_split makes them; reduce-scatter (N-1 steps, rank r sends chunk (r - s) % N to rank
    r + 1, which adds it), then all-gather (N-1 steps, rank r sends chunk (r + 1 - s) % N to rank
    r + 1, which copies it). Returns (N, L + 1) float64: each rank's final buffer, then the bytes
    it sent (4 per float32 element)."""
    n, length = data.shape
    buf = data.astype(np.float32).copy()
    base, extra = divmod(length, n)
    starts = [c * base + min(c, extra) for c in range(n + 1)]  # chunk c is starts[c]:starts[c+1]
    sent = np.zeros(n, dtype=np.int64)

    def chunk(c):
        return slice(starts[c], starts[c + 1])

    for s in range(n - 1):  # reduce-scatter
        msgs = [(r, (r - s) % n) for r in range(n)]
        payload = [buf[r, chunk(c)].copy() for r, c in msgs]  # everyone sends at once
        for (r, c), values in zip(msgs, payload):
            buf[(r + 1) % n, chunk(c)] += values
            sent[r] += values.size * 4
    # Now rank r owns the complete sum of chunk (r + 1) % n.
    for s in range(n - 1):  # all-gather
        msgs = [(r, (r + 1 - s) % n) for r in range(n)]
        payload = [buf[r, chunk(c)].copy() for r, c in msgs]
        for (r, c), values in zip(msgs, payload):
            buf[(r + 1) % n, chunk(c)] = values
            sent[r] += values.size * 4
    return np.concatenate([buf.astype(np.float64), sent[:, None].astype(np.float64)], axis=1)
'''

RING_ALL_REDUCE = ExerciseSpec(
    reference=ring_reference,
    make_case=_ring_case,
    solution=RING_SOLUTION,
    compare=ring_compare,
    examples=({"data": np.arange(12, dtype=np.float32).reshape(3, 4)},),
    edge_cases={
        "one rank (nothing to send)": lambda rng: _ring_fixed(rng, 1, 5),
        "two ranks": lambda rng: _ring_fixed(rng, 2, 7),
        "length a multiple of N": lambda rng: _ring_fixed(rng, 4, 12),
        "uneven chunks (L = 8k + 3, N = 8)": lambda rng: _ring_fixed(rng, 8, 19),
        "fewer elements than ranks (empty chunks)": lambda rng: _ring_fixed(rng, 5, 3),
        "one element": lambda rng: _ring_fixed(rng, 3, 1),
    },
    mutants=(
        Mutant(
            "bytes from the even-chunk formula",
            mutate(
                RING_SOLUTION,
                "    return np.concatenate([buf.astype(np.float64), sent[:, None]",
                "    sent[:] = 2 * (n - 1) * (length // n) * 4\n"
                "    return np.concatenate([buf.astype(np.float64), sent[:, None]",
            ),
            "with L % N != 0 the chunks differ in size, and so does each rank's traffic",
        ),
        Mutant(
            "reduce-scatter walks the chunks the wrong way",
            mutate(
                RING_SOLUTION,
                "msgs = [(r, (r - s) % n) for r in range(n)]",
                "msgs = [(r, (r + s) % n) for r in range(n)]",
            ),
            "each step must forward the chunk received in the previous step",
        ),
        Mutant(
            "N reduce-scatter steps",
            mutate(
                RING_SOLUTION,
                "for s in range(n - 1):  # reduce-scatter",
                "for s in range(n):  # reduce-scatter",
            ),
            "one step too many adds a rank's contribution twice",
        ),
        Mutant(
            "all-gather starts from the wrong chunk",
            mutate(
                RING_SOLUTION,
                "msgs = [(r, (r + 1 - s) % n) for r in range(n)]",
                "msgs = [(r, (r - s) % n) for r in range(n)]",
            ),
            "rank r must first send the chunk it owns, (r + 1) % N",
        ),
        Mutant(
            "all-gather adds instead of copying",
            mutate(
                RING_SOLUTION,
                "buf[(r + 1) % n, chunk(c)] = values",
                "buf[(r + 1) % n, chunk(c)] += values",
            ),
            "the receiver already holds a partial sum; the owner's total replaces it",
        ),
    ),
)
