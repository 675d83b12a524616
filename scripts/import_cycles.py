"""List the import cycles among quizzer's modules, counting every import: at module level, under
TYPE_CHECKING and inside functions (a cycle through a function-local import still ties the
modules together). Needs grimp, which comes with import-linter.

Run from the repository root: ``python scripts/import_cycles.py``. Prints each group of modules
that import one another in a ring (a strongly connected component) with the imports that close
it, and exits 1 when there is any.
"""

from __future__ import annotations

import sys

import grimp


def import_graph(package: str) -> dict[str, set[str]]:
    """Each module of ``package`` and the modules of the package it imports directly."""
    graph = grimp.build_graph(package, cache_dir=None)
    return {
        module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules
    }


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of two or more modules that reach one another (Tarjan's algorithm,
    iterative), each sorted, in order of their first module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(edges.get(target, ())))))
                elif target in on_stack:
                    low[module] = min(low[module], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
            if low[module] == index[module]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return sorted(found)


def main() -> int:
    edges = import_graph("quizzer")
    groups = cycles(edges)
    for group in groups:
        print("cycle among " + ", ".join(group))
        for module in group:
            for target in sorted(edges[module] & set(group)):
                print(f"    {module} -> {target}")
    print(f"{len(groups)} cycle(s)")
    return 1 if groups else 0


if __name__ == "__main__":
    sys.exit(main())
