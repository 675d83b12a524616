"""Memory allocators: a best-fit pool that splits and coalesces blocks, and the block
allocator behind a paged KV cache."""

from __future__ import annotations

from collections import deque

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, exact, mutate

# --- memory pool with best fit, splitting and coalescing -------------------------------------

ROUND = 512
MIN_SPLIT = 1024


def _pool_run(pool_size: int, ops: np.ndarray) -> np.ndarray:
    free = {0: pool_size}  # offset -> size of each free block
    used: dict[int, int] = {}  # offset -> size of each allocated block
    handles: dict[int, int] = {}  # op index -> offset
    out = []
    for i, (op, arg) in enumerate(ops.tolist()):
        if op == 0:
            want = max(ROUND, -(-arg // ROUND) * ROUND)
            fits = [(size, off) for off, size in free.items() if size >= want]
            if not fits:
                out.append(-1)
                continue
            size, off = min(fits)
            del free[off]
            if size - want >= MIN_SPLIT:
                free[off + want] = size - want
                size = want
            used[off] = size
            handles[i] = off
            out.append(off)
        else:
            off = handles.pop(arg)
            size = used.pop(off)
            nxt = off + size
            if nxt in free:
                size += free.pop(nxt)
            prev = next((o for o, s in free.items() if o + s == off), None)
            if prev is not None:
                off, size = prev, free.pop(prev) + size
            free[off] = size
            out.append(size)
    return np.array(out, dtype=np.int64)


def pool_reference(pool_size: int, ops: np.ndarray) -> np.ndarray:
    return _pool_run(pool_size, ops)


def _pool_ops(rng: np.random.Generator, n: int, max_request: int) -> np.ndarray:
    rows: list[tuple[int, int]] = []
    live: list[int] = []
    for i in range(n):
        if live and rng.random() < 0.4:
            rows.append((1, live.pop(int(rng.integers(0, len(live))))))
        else:
            rows.append((0, int(rng.integers(1, max_request))))
            live.append(i)
    return np.array(rows, dtype=np.int64).reshape(-1, 2)


def _pool_case(rng: np.random.Generator, size: float) -> Case:
    pool = 512 * int(rng.integers(8, 9 + int(40 * size)))
    ops = _pool_ops(rng, int(rng.integers(4, 5 + int(40 * size))), pool // 3)
    # Failed mallocs return no handle: drop frees of those by replaying once.
    result = _pool_run_safe(pool, ops)
    return {"pool_size": pool, "ops": result}


def _pool_run_safe(pool_size: int, ops: np.ndarray) -> np.ndarray:
    """The ops with every free of a failed malloc removed (its handle never existed)."""
    kept: list[tuple[int, int]] = []
    remap: dict[int, int] = {}
    for i, (op, arg) in enumerate(ops.tolist()):
        if op == 1:
            if arg in remap:
                kept.append((1, remap[arg]))
            continue
        trial = np.array([*kept, (0, arg)], dtype=np.int64).reshape(-1, 2)
        if _pool_run(pool_size, trial)[-1] >= 0:
            remap[i] = len(kept)
        kept.append((0, arg))
    return np.array(kept, dtype=np.int64).reshape(-1, 2)


def _pool_fixed(pool_size: int, ops: list[tuple[int, int]]) -> Case:
    return {"pool_size": pool_size, "ops": np.array(ops, dtype=np.int64).reshape(-1, 2)}


POOL_SOLUTION = '''\
import numpy as np

ROUND = 512  # every request is rounded up to a multiple of this
MIN_SPLIT = 1024  # a free block is split only if at least this much would remain


def run_allocator(pool_size: int, ops: np.ndarray) -> np.ndarray:
    """A caching allocator over one pool of pool_size bytes (offsets 0..pool_size).
    ops: (n, 2) rows (op, arg). op 0 = malloc(arg bytes): round up to a multiple of 512
    (at least 512), take the smallest free block that fits (lowest offset on a tie), split it
    if >= 1024 bytes would remain (the allocation takes the low part); result: the offset, or
    -1 if nothing fits. op 1 = free(the allocation made by op number arg): merge it with free
    neighbours; result: the size of the resulting free block. Returns (n,) int64."""
    free = {0: pool_size}  # offset -> size
    used = {}  # offset -> size actually handed out (may exceed the request)
    handles = {}  # op index -> offset
    out = []
    for i, (op, arg) in enumerate(ops.tolist()):
        if op == 0:
            want = max(ROUND, -(-arg // ROUND) * ROUND)
            fits = [(size, off) for off, size in free.items() if size >= want]
            if not fits:
                out.append(-1)  # a real allocator would now free cached blocks or raise OOM
                continue
            size, off = min(fits)  # best fit: least waste; ties -> lowest offset
            del free[off]
            if size - want >= MIN_SPLIT:
                free[off + want] = size - want  # split: the remainder stays free
                size = want
            used[off] = size  # a small remainder is handed out too (internal fragmentation)
            handles[i] = off
            out.append(off)
        else:
            off = handles.pop(arg)
            size = used.pop(off)
            nxt = off + size
            if nxt in free:  # coalesce with the block after
                size += free.pop(nxt)
            for prev, prev_size in list(free.items()):
                if prev + prev_size == off:  # ... and with the block before
                    del free[prev]
                    off, size = prev, prev_size + size
                    break
            free[off] = size
            out.append(size)
    return np.array(out, dtype=np.int64)
'''

MEMORY_POOL = ExerciseSpec(
    reference=pool_reference,
    make_case=_pool_case,
    solution=POOL_SOLUTION,
    compare=exact,
    examples=(
        _pool_fixed(4096, [(0, 1000), (0, 100), (0, 1500), (1, 1), (0, 300), (1, 0), (1, 2)]),
    ),
    edge_cases={
        "best fit, not first fit": lambda rng: _pool_fixed(
            8192, [(0, 2048), (0, 512), (0, 1024), (0, 512), (1, 0), (1, 2), (0, 1024)]
        ),
        "no split when the remainder is small": lambda rng: _pool_fixed(
            2048, [(0, 512), (0, 1024), (0, 512), (1, 1)]
        ),
        "coalesce with both neighbours": lambda rng: _pool_fixed(
            3072, [(0, 1024), (0, 1024), (0, 1024), (1, 0), (1, 2), (1, 1)]
        ),
        "out of memory, then room after a free": lambda rng: _pool_fixed(
            2048, [(0, 1500), (0, 1000), (1, 0), (0, 1000)]
        ),
        "sizes rounded up to 512": lambda rng: _pool_fixed(
            4096, [(0, 1), (0, 513), (0, 512), (1, 1), (1, 0)]
        ),
    },
    mutants=(
        Mutant(
            "first fit",
            mutate(
                POOL_SOLUTION, "size, off = min(fits)", "size, off = min(fits, key=lambda f: f[1])"
            ),
            "best fit picks the smallest block that fits, keeping large blocks whole",
        ),
        Mutant(
            "no coalescing",
            mutate(
                mutate(
                    POOL_SOLUTION,
                    "            if nxt in free:  # coalesce with the block after",
                    "            if False:",
                ),
                "                if prev + prev_size == off:  # ... and with the block before",
                "                if False:",
            ),
            "adjacent free blocks must merge or the pool fragments",
        ),
        Mutant(
            "coalesces only with the next block",
            mutate(
                POOL_SOLUTION,
                "                if prev + prev_size == off:  # ... and with the block before",
                "                if False:",
            ),
            "a block freed after its left neighbour must merge leftwards",
        ),
        Mutant(
            "always splits",
            mutate(POOL_SOLUTION, "if size - want >= MIN_SPLIT:", "if size - want > 0:"),
            "remainders below 1024 bytes are not worth tracking and are handed out",
        ),
        Mutant(
            "no rounding",
            mutate(POOL_SOLUTION, "want = max(ROUND, -(-arg // ROUND) * ROUND)", "want = arg"),
            "requests are rounded to 512-byte multiples, which keeps offsets aligned",
        ),
    ),
)


# --- block allocator: the block table behind the paged cache ------------------------------


def allocator_reference(
    num_blocks: int, block_size: int, n_seqs: int, ops: np.ndarray
) -> np.ndarray:
    """A FIFO free queue; appends are all-or-nothing; a finished sequence returns its blocks to
    the back of the queue, last block first."""
    free = deque(range(num_blocks))
    tables: list[list[int]] = [[] for _ in range(n_seqs)]
    lens = [0] * n_seqs
    for seq, n in ops.tolist():
        if n == 0:
            free.extend(reversed(tables[seq]))
            tables[seq], lens[seq] = [], 0
            continue
        need = -(-(lens[seq] + n) // block_size) - len(tables[seq])
        if need > len(free):
            continue
        tables[seq] += [free.popleft() for _ in range(need)]
        lens[seq] += n
    out = np.full((n_seqs, num_blocks), -1, dtype=np.int64)
    for seq, table in enumerate(tables):
        out[seq, : len(table)] = table
    return out


def _ops(rng: np.random.Generator, n_seqs: int, n_ops: int, block_size: int) -> np.ndarray:
    ops = []
    for _ in range(n_ops):
        seq = int(rng.integers(0, n_seqs))
        n = 0 if rng.random() < 0.2 else int(rng.integers(1, 2 * block_size + 2))
        ops.append((seq, n))
    return np.array(ops, dtype=np.int64).reshape(-1, 2)


def _alloc_case(rng: np.random.Generator, size: float) -> Case:
    n_seqs = int(rng.integers(1, 2 + int(4 * size)))
    block_size = int(rng.integers(1, 2 + int(7 * size)))
    num_blocks = int(rng.integers(2, 3 + int(10 * size)))
    n_ops = int(rng.integers(3, 4 + int(36 * size)))
    return {
        "num_blocks": num_blocks,
        "block_size": block_size,
        "n_seqs": n_seqs,
        "ops": _ops(rng, n_seqs, n_ops, block_size),
    }


def _alloc_fixed(num_blocks: int, block_size: int, n_seqs: int, ops: list[tuple[int, int]]) -> Case:
    return {
        "num_blocks": num_blocks,
        "block_size": block_size,
        "n_seqs": n_seqs,
        "ops": np.array(ops, dtype=np.int64).reshape(-1, 2),
    }


ALLOCATOR_SOLUTION = '''\
from collections import deque

import numpy as np


def allocate_blocks(num_blocks: int, block_size: int, n_seqs: int, ops: np.ndarray) -> np.ndarray:
    """ops: (n, 2) int rows (seq, n_tokens). n_tokens > 0 appends that many tokens to seq
    (all-or-nothing: refused, with no change, if the free queue is too short); n_tokens == 0
    finishes seq and frees its blocks. Returns the final block tables, (n_seqs, num_blocks)
    int64, each row the sequence's physical blocks in logical order, padded with -1."""
    free = deque(range(num_blocks))  # allocation pops the front
    tables = [[] for _ in range(n_seqs)]
    lens = [0] * n_seqs
    for seq, n in ops.tolist():
        if n == 0:
            # Back of the queue, tail block first: the tail is the least likely to be a
            # shared prefix, so with prefix caching it should be evicted first.
            free.extend(reversed(tables[seq]))
            tables[seq] = []
            lens[seq] = 0
            continue
        held = len(tables[seq])
        need = -(-(lens[seq] + n) // block_size) - held  # ceil: the last block may have room
        if need > len(free):
            continue  # refused: the scheduler would preempt or wait, never half-allocate
        for _ in range(need):
            tables[seq].append(free.popleft())
        lens[seq] += n
    out = np.full((n_seqs, num_blocks), -1, dtype=np.int64)
    for seq, table in enumerate(tables):
        out[seq, : len(table)] = table
    return out
'''

BLOCK_ALLOCATOR = ExerciseSpec(
    reference=allocator_reference,
    make_case=_alloc_case,
    solution=ALLOCATOR_SOLUTION,
    compare=exact,
    examples=(_alloc_fixed(4, 4, 2, [(0, 5), (1, 3), (0, 3), (0, 0), (1, 6)]),),
    edge_cases={
        "appends that fit in the last block's free slots": lambda rng: _alloc_fixed(
            6, 4, 2, [(0, 3), (0, 1), (1, 2), (0, 1), (1, 2), (1, 1)]
        ),
        "a refused append leaves everything as it was": lambda rng: _alloc_fixed(
            3, 2, 2, [(0, 3), (1, 4), (1, 2), (0, 1)]
        ),
        "freed blocks go to the back, last block first": lambda rng: _alloc_fixed(
            6, 1, 3, [(0, 3), (1, 1), (0, 0), (2, 4), (1, 2)]
        ),
        "block size 1": lambda rng: _alloc_fixed(5, 1, 2, [(0, 2), (1, 2), (1, 0), (0, 3)]),
        "many small appends": lambda rng: _alloc_fixed(
            8, 3, 3, [(i % 3, 1) for i in range(20)] + [(1, 0), (2, 5)]
        ),
    },
    mutants=(
        Mutant(
            "a new block for every append",
            mutate(
                ALLOCATOR_SOLUTION,
                "need = -(-(lens[seq] + n) // block_size) - held",
                "need = -(-n // block_size)",
            ),
            "the free slots of a partly filled last block are wasted",
        ),
        Mutant(
            "partial allocation when the queue runs short",
            mutate(
                ALLOCATOR_SOLUTION,
                "        if need > len(free):\n            continue",
                "        need = min(need, len(free))",
            ),
            "an append must be all-or-nothing",
        ),
        Mutant(
            "freed blocks returned head first",
            mutate(
                ALLOCATOR_SOLUTION, "free.extend(reversed(tables[seq]))", "free.extend(tables[seq])"
            ),
            "the order in the free queue decides which blocks later requests get",
        ),
        Mutant(
            "allocation pops the back (LIFO)",
            mutate(
                ALLOCATOR_SOLUTION,
                "tables[seq].append(free.popleft())",
                "tables[seq].append(free.pop())",
            ),
            "the queue is FIFO: the least recently freed block is reused first",
        ),
        Mutant(
            "floor instead of ceil",
            mutate(
                ALLOCATOR_SOLUTION,
                "need = -(-(lens[seq] + n) // block_size) - held",
                "need = (lens[seq] + n) // block_size - held",
            ),
            "a partly filled block still has to exist",
        ),
    ),
)
