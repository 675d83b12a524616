"""Distributed systems: the failures a Raft cluster survives and the keys consistent
hashing moves when a node joins.

Every function returns a count as {"answer": value, **intermediates}.
"""

from __future__ import annotations


def raft_fault_tolerance(nodes: int) -> dict[str, float]:
    """Failures a Raft cluster of `nodes` voters survives.

    quorum = floor(n/2) + 1 and f = n - quorum; also the same for n + 1 voters."""
    quorum = nodes // 2 + 1
    plus_one = nodes + 1
    return {
        "answer": nodes - quorum,
        "quorum": quorum,
        "plus_one": plus_one,
        "plus_one_quorum": plus_one // 2 + 1,
        "plus_one_tolerance": plus_one - (plus_one // 2 + 1),
    }


def consistent_hash_keys_moved(keys: int, nodes: int) -> dict[str, float]:
    """Keys that change owner when one node joins `nodes` equally loaded nodes.

    Consistent hashing with enough virtual nodes: the newcomer takes a 1/(n+1) share, taken from
    the others, and nothing else moves: keys / (n + 1). For comparison, hash mod n -> mod (n + 1)
    keeps a key only when both residues agree, 1/(n+1) of keys (CRT), so n/(n+1) move."""
    moved = keys / (nodes + 1)
    modulo = keys * nodes / (nodes + 1)
    return {
        "answer": moved,
        "fraction": 1 / (nodes + 1),
        "modulo_moved": modulo,
        "modulo_fraction": nodes / (nodes + 1),
    }
