"""Data structures: the height of a B+ tree and the probes of a linear-probing hash
table.

Every function returns a count as {"answer": value, **intermediates}.
"""

from __future__ import annotations


def bplus_tree_levels(
    rows: int, page_bytes: int, key_bytes: int, pointer_bytes: int, row_bytes: int
) -> dict[str, float]:
    """Levels of a clustered B+ tree (root to leaf) holding `rows` rows in full pages.

    Internal nodes hold (key, child pointer) pairs: fanout = floor(page / (key + pointer)).
    Leaves hold whole rows: leaf_rows = floor(page / row). A tree of h levels holds at most
    fanout^(h-1) * leaf_rows rows; the answer is the smallest such h (integer arithmetic)."""
    fanout = page_bytes // (key_bytes + pointer_bytes)
    leaf_rows = page_bytes // row_bytes
    levels, capacity = 1, leaf_rows
    while capacity < rows:
        levels += 1
        capacity *= fanout
    return {
        "answer": levels,
        "fanout": fanout,
        "leaf_rows": leaf_rows,
        "capacity": capacity,
        "capacity_below": capacity // fanout if levels > 1 else 0,
        "leaves": -(-rows // leaf_rows),
    }


def linear_probing_unsuccessful_probes(load_factor: float) -> dict[str, float]:
    """Expected probes of an unsuccessful lookup in a linear-probing hash table at load factor a
    (Knuth's approximation for a large table with a uniform hash): (1 + 1 / (1 - a)^2) / 2.
    Also returns the successful-lookup figure (1 + 1 / (1 - a)) / 2 and, for comparison, the
    number of nodes a separate-chaining table compares on a miss (a, the mean chain length)."""
    a = load_factor
    miss = 0.5 * (1 + 1 / (1 - a) ** 2)
    hit = 0.5 * (1 + 1 / (1 - a))
    return {"answer": miss, "hit": hit, "chaining_miss": a}
