"""Data-structure exercises: an LRU cache and top-K with a bounded heap (the memory pool is
in allocators.py)."""

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
