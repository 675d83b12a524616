"""Data-structure exercises asked in infrastructure interviews, checked through an entry function
that replays an operation sequence: an LRU cache, a fixed-size memory pool with best-fit
allocation, block splitting and coalescing, and top-K selection with a bounded heap."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, exact, mutate

# --- LRU cache --------------------------------------------------------------------------------


def lru_reference(capacity: int, ops: np.ndarray) -> np.ndarray:
    cache: OrderedDict[int, int] = OrderedDict()
    out = []
    for op, key, value in ops.tolist():
        if op == 1:
            if key in cache:
                cache.move_to_end(key)
                out.append(cache[key])
            else:
                out.append(-1)
        else:
            if key in cache:
                cache.move_to_end(key)
            elif len(cache) >= capacity:
                cache.popitem(last=False)
            cache[key] = value
    return np.array(out, dtype=np.int64)


def _lru_ops(rng: np.random.Generator, n: int, keys: int) -> np.ndarray:
    rows = []
    for _ in range(n):
        op = int(rng.random() < 0.5)
        rows.append((op, int(rng.integers(0, keys)), 0 if op else int(rng.integers(0, 1000))))
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def _lru_case(rng: np.random.Generator, size: float) -> Case:
    capacity = int(rng.integers(1, 2 + int(5 * size)))
    return {
        "capacity": capacity,
        "ops": _lru_ops(rng, int(rng.integers(5, 6 + int(80 * size))), capacity * 2 + 1),
    }


def _lru_fixed(capacity: int, ops: list[tuple[int, int, int]]) -> Case:
    return {"capacity": capacity, "ops": np.array(ops, dtype=np.int64).reshape(-1, 3)}


LRU_SOLUTION = '''\
from collections import OrderedDict

import numpy as np


class LRUCache:
    """get and put in O(1): a hash map to nodes of a recency-ordered doubly linked list
    (OrderedDict is exactly that). The front is the least recently used."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.data: OrderedDict[int, int] = OrderedDict()

    def get(self, key: int) -> int:
        if key not in self.data:
            return -1
        self.data.move_to_end(key)  # a read is a use
        return self.data[key]

    def put(self, key: int, value: int) -> None:
        if key in self.data:
            self.data.move_to_end(key)  # an update is a use, and needs no eviction
        elif len(self.data) >= self.capacity:
            self.data.popitem(last=False)  # evict the least recently used
        self.data[key] = value


def run_lru(capacity: int, ops: np.ndarray) -> np.ndarray:
    """ops: (n, 3) int rows (op, key, value); op 0 = put(key, value), op 1 = get(key).
    Returns the results of the gets in order (-1 for a miss), int64."""
    cache = LRUCache(capacity)
    out = []
    for op, key, value in ops.tolist():
        if op == 1:
            out.append(cache.get(key))
        else:
            cache.put(key, value)
    return np.array(out, dtype=np.int64)
'''

LRU_CACHE = ExerciseSpec(
    reference=lru_reference,
    make_case=_lru_case,
    solution=LRU_SOLUTION,
    compare=exact,
    examples=(
        _lru_fixed(
            2, [(0, 1, 10), (0, 2, 20), (1, 1, 0), (0, 3, 30), (1, 2, 0), (1, 1, 0), (1, 3, 0)]
        ),
    ),
    edge_cases={
        "a get refreshes recency": lambda rng: _lru_fixed(
            2, [(0, 1, 1), (0, 2, 2), (1, 1, 0), (0, 3, 3), (1, 1, 0), (1, 2, 0)]
        ),
        "a put to an existing key refreshes it": lambda rng: _lru_fixed(
            2, [(0, 1, 1), (0, 2, 2), (0, 1, 5), (0, 3, 3), (1, 1, 0), (1, 2, 0)]
        ),
        "updating a key when full evicts nothing": lambda rng: _lru_fixed(
            2, [(0, 1, 1), (0, 2, 2), (0, 2, 7), (1, 1, 0), (1, 2, 0)]
        ),
        "capacity 1": lambda rng: _lru_fixed(
            1, [(0, 1, 1), (1, 1, 0), (0, 2, 2), (1, 1, 0), (1, 2, 0)]
        ),
        "gets on an empty cache": lambda rng: _lru_fixed(3, [(1, 5, 0), (1, 0, 0)]),
    },
    mutants=(
        Mutant(
            "get does not refresh recency",
            mutate(LRU_SOLUTION, "        self.data.move_to_end(key)  # a read is a use\n", ""),
            "that is FIFO eviction, not LRU",
        ),
        Mutant(
            "put to an existing key does not refresh it",
            mutate(
                LRU_SOLUTION,
                "            self.data.move_to_end(key)"
                "  # an update is a use, and needs no eviction\n",
                "            pass\n",
            ),
            "writing a key is a use",
        ),
        Mutant(
            "evicts the most recently used",
            mutate(LRU_SOLUTION, "self.data.popitem(last=False)", "self.data.popitem(last=True)"),
            "the victim is the least recently used entry",
        ),
        Mutant(
            "an update evicts when full",
            mutate(
                mutate(
                    LRU_SOLUTION,
                    "        if key in self.data:\n"
                    "            self.data.move_to_end(key)  # an update",
                    "        if False:\n            self.data.move_to_end(key)  # an update",
                ),
                "        self.data[key] = value\n",
                "        self.data[key] = value\n        self.data.move_to_end(key)\n",
            ),
            "updating an existing key does not grow the cache",
        ),
        Mutant(
            "holds one entry fewer than its capacity",
            mutate(
                LRU_SOLUTION,
                "len(self.data) >= self.capacity",
                "len(self.data) >= self.capacity - 1",
            ),
            "evict only when the cache is full",
        ),
    ),
)


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


# --- top-K with a bounded heap --------------------------------------------------------------


def top_k_reference(x: np.ndarray, k: int) -> np.ndarray:
    order = sorted(range(len(x)), key=lambda i: (-int(x[i]), i))
    return np.array(order[:k], dtype=np.int64)


def _topk_case(rng: np.random.Generator, size: float) -> Case:
    n = int(rng.integers(1, 2 + int(300 * size)))
    hi = int(rng.choice([5, 50, 10**6]))  # small ranges force many ties
    return {"x": rng.integers(-hi, hi, n).astype(np.int64), "k": int(rng.integers(1, n + 1))}


TOPK_SOLUTION = '''\
import heapq

import numpy as np


def top_k_heap(x: np.ndarray, k: int) -> np.ndarray:
    """x: (n,) int64 read once, as a stream; 1 <= k <= n. Returns the indices of the k largest
    values, largest first; equal values: the smaller index first (it came earlier). Keeps a
    min-heap of k entries, O(n log k) time and O(k) memory."""
    heap = []  # (value, -index): the root is the entry that would be dropped first
    for i, v in enumerate(x.tolist()):
        if len(heap) < k:
            heapq.heappush(heap, (v, -i))
        elif v > heap[0][0]:  # strictly better: an equal value came later and loses the tie
            heapq.heapreplace(heap, (v, -i))
    best = sorted(heap, reverse=True)  # largest value first; ties: -i descending, i ascending
    return np.array([-neg_i for _, neg_i in best], dtype=np.int64)
'''

TOP_K_HEAP = ExerciseSpec(
    reference=top_k_reference,
    make_case=_topk_case,
    solution=TOPK_SOLUTION,
    compare=exact,
    examples=({"x": np.array([5, 1, 9, 5, 7, 9], dtype=np.int64), "k": 3},),
    edge_cases={
        "k = 1": lambda rng: {"x": rng.integers(-5, 5, 20).astype(np.int64), "k": 1},
        "k = n": lambda rng: {"x": rng.integers(-5, 5, 12).astype(np.int64), "k": 12},
        "all equal": lambda rng: {"x": np.full(9, 3, dtype=np.int64), "k": 4},
        "ascending stream": lambda rng: {"x": np.arange(30, dtype=np.int64), "k": 5},
        "descending stream": lambda rng: {"x": np.arange(30, 0, -1, dtype=np.int64), "k": 5},
        "many ties at the cut": lambda rng: {
            "x": np.array([4, 2, 4, 4, 1, 4, 2], dtype=np.int64),
            "k": 2,
        },
    },
    mutants=(
        Mutant(
            "replaces on ties",
            mutate(TOPK_SOLUTION, "elif v > heap[0][0]:", "elif v >= heap[0][0]:"),
            "a later equal value must not push out an earlier one",
        ),
        Mutant(
            "returned in heap order",
            mutate(TOPK_SOLUTION, "best = sorted(heap, reverse=True)", "best = heap"),
            "a heap is only partially ordered",
        ),
        Mutant(
            "max-heap of everything, ties by value only",
            "import heapq\n\nimport numpy as np\n\n\ndef top_k_heap(x, k):\n"
            "    heap = [(-v, -i) for i, v in enumerate(x.tolist())]\n"
            "    heapq.heapify(heap)\n"
            "    return np.array([-heapq.heappop(heap)[1] for _ in range(k)], dtype=np.int64)\n",
            "O(n) memory, and among equal values it pops the later index first",
        ),
    ),
)
