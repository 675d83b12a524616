"""Graph exercises: a topological order of an operator graph (any valid order is accepted; a
cycle must be reported)."""

from __future__ import annotations

from collections import deque

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mismatch, Mutant, Tolerance, mutate


def topo_reference(n: int, edges: np.ndarray) -> np.ndarray:
    """Kahn's algorithm (smallest ready node first); an empty array when there is a cycle."""
    indeg = [0] * n
    succ: list[list[int]] = [[] for _ in range(n)]
    for u, v in edges.tolist():
        succ[u].append(v)
        indeg[v] += 1
    ready = deque(i for i in range(n) if indeg[i] == 0)
    order = []
    while ready:
        u = ready.popleft()
        order.append(u)
        for v in succ[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                ready.append(v)
    return np.array(order if len(order) == n else [], dtype=np.int64)


def topo_compare(
    expected: np.ndarray, got: np.ndarray, case: Case, tol: Tolerance
) -> Mismatch | None:
    """Any order that puts every edge's source before its target is right; with a cycle the
    answer is an empty array."""
    n, edges = case["n"], case["edges"]
    if got.ndim != 1:
        return Mismatch(f"the output has shape {got.shape}, expected a 1-D array")
    if got.size and got.dtype.kind not in "iu":
        return Mismatch(f"the output has dtype {got.dtype}, expected integer node ids")
    if expected.size == 0:
        if got.size:
            return Mismatch(
                "the graph has a cycle, so there is no topological order: return an empty array"
            )
        return None
    if got.size != n or sorted(got.tolist()) != list(range(n)):
        return Mismatch(
            f"the output must list each of the {n} nodes exactly once (got {got.size} entries"
            + ("" if got.size else "; the graph has no cycle")
            + ")"
        )
    pos = np.empty(n, dtype=np.int64)
    pos[got] = np.arange(n)
    for u, v in edges.tolist():
        if pos[u] >= pos[v]:
            return Mismatch(
                f"edge {u} -> {v} is violated: node {v} comes at position {pos[v]}, before its "
                f"input {u} at position {pos[u]}",
                (int(pos[v]),),
            )
    return None


def _dag(rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    perm = rng.permutation(n)  # a hidden order: edges go forward in it
    edges = []
    for _ in range(m):
        a, b = sorted(rng.choice(n, size=2, replace=False).tolist())
        edges.append((int(perm[a]), int(perm[b])))
    return np.array(edges, dtype=np.int64).reshape(-1, 2)


def _topo_case(rng: np.random.Generator, size: float) -> Case:
    n = int(rng.integers(2, 3 + int(40 * size)))
    edges = _dag(rng, n, int(rng.integers(0, 1 + int(2.5 * n))))
    if rng.random() < 0.25 and len(edges):  # close a cycle
        u, v = edges[int(rng.integers(0, len(edges)))]
        edges = np.concatenate([edges, [[v, u]]]).astype(np.int64)
    return {"n": n, "edges": edges}


def _fixed(n: int, edges: list[tuple[int, int]]) -> Case:
    return {"n": n, "edges": np.array(edges, dtype=np.int64).reshape(-1, 2)}


TOPO_SOLUTION = '''\
from collections import deque

import numpy as np


def topo_sort(n: int, edges: np.ndarray) -> np.ndarray:
    """n operators 0..n-1; edges: (E, 2) int rows (u, v) meaning v consumes u's output (there
    may be duplicate edges). Returns an execution order, (n,) int64, in which every u comes
    before its v — or an empty array if the graph has a cycle."""
    indeg = [0] * n
    succ = [[] for _ in range(n)]
    for u, v in edges.tolist():
        succ[u].append(v)  # duplicates stay: each one is counted in indeg too
        indeg[v] += 1
    ready = deque(i for i in range(n) if indeg[i] == 0)  # operators with all inputs available
    order = []
    while ready:
        u = ready.popleft()
        order.append(u)
        for v in succ[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                ready.append(v)
    if len(order) < n:  # some nodes never became ready: they sit on (or behind) a cycle
        return np.array([], dtype=np.int64)
    return np.array(order, dtype=np.int64)
'''

TOPO_SORT = ExerciseSpec(
    reference=topo_reference,
    make_case=_topo_case,
    solution=TOPO_SOLUTION,
    compare=topo_compare,
    examples=(_fixed(5, [(0, 2), (1, 2), (2, 3), (1, 4), (4, 3)]),),
    edge_cases={
        "no edges": lambda rng: _fixed(4, []),
        "a chain given backwards": lambda rng: _fixed(5, [(3, 4), (2, 3), (1, 2), (0, 1)]),
        "duplicate edges": lambda rng: _fixed(4, [(0, 1), (0, 1), (3, 2), (2, 1)]),
        "a cycle": lambda rng: _fixed(4, [(0, 1), (1, 2), (2, 0), (2, 3)]),
        "a self-loop": lambda rng: _fixed(3, [(0, 1), (1, 1)]),
        "a diamond": lambda rng: _fixed(4, [(0, 1), (0, 2), (1, 3), (2, 3)]),
        "a node reached by a long and a short path": lambda rng: _fixed(
            6, [(0, 5), (0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
        ),
    },
    mutants=(
        Mutant(
            "DFS finishing order, not reversed",
            "import numpy as np\n\n\ndef topo_sort(n, edges):\n"
            "    succ = [[] for _ in range(n)]\n"
            "    for u, v in edges.tolist():\n        succ[u].append(v)\n"
            "    seen, order = set(), []\n\n"
            "    def visit(u):\n        seen.add(u)\n        for v in succ[u]:\n"
            "            if v not in seen:\n                visit(v)\n        order.append(u)\n\n"
            "    for u in range(n):\n        if u not in seen:\n            visit(u)\n"
            "    return np.array(order, dtype=np.int64)\n",
            "a node finishes after its descendants: the reversed finishing order is topological",
        ),
        Mutant(
            "no cycle detection",
            mutate(TOPO_SOLUTION, "    if len(order) < n:", "    if False:"),
            "nodes on a cycle never become ready; returning the partial order hides the cycle",
        ),
        Mutant(
            "in-degree counts distinct edges only",
            mutate(
                TOPO_SOLUTION,
                "        succ[u].append(v)  # duplicates stay: each one is counted in indeg too\n"
                "        indeg[v] += 1\n",
                "        succ[u].append(v)\n"
                "    for u, v in set(map(tuple, edges.tolist())):\n"
                "        indeg[v] += 1\n",
            ),
            "duplicate edges are decremented twice, so a node becomes ready before all its inputs",
        ),
    ),
)
