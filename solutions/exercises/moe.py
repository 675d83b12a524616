"""Mixture-of-experts exercises: top-k gating with expert capacity and token dropping, and the
all-to-all dispatch and combine of expert parallelism, simulated over R ranks."""

from __future__ import annotations

import math

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, exact, mutate
from solutions.exercises.compare import normal

# --- the dispatch layout, shared by dispatch and combine ------------------------------------


def dispatch_order(topk_ids: np.ndarray, experts_per_rank: int) -> np.ndarray:
    """The (source rank, token, slot) of every row of the concatenated receive buffers, as flat
    indices into topk_ids: by destination rank, then source rank, then expert, then token·k +
    slot."""
    r, t, k = topk_ids.shape
    src = np.repeat(np.arange(r), t * k)
    flat = np.tile(np.arange(t * k), r)
    expert = topk_ids.reshape(-1)
    dest = expert // experts_per_rank
    order = np.lexsort((flat, expert, src, dest))
    return order


def dispatch_reference(x: np.ndarray, topk_ids: np.ndarray, experts_per_rank: int) -> np.ndarray:
    r, t, k = topk_ids.shape
    rows = np.repeat(x.reshape(r * t, -1), k, axis=0)  # row (rank, token, slot)
    return rows[dispatch_order(topk_ids, experts_per_rank)]


def combine_reference(
    expert_out: np.ndarray,
    topk_ids: np.ndarray,
    topk_weights: np.ndarray,
    experts_per_rank: int,
) -> np.ndarray:
    r, t, k = topk_ids.shape
    order = dispatch_order(topk_ids, experts_per_rank)
    back = np.empty_like(expert_out, dtype=np.float64)
    back[order] = expert_out  # row i of the buffer belongs to (rank, token, slot) order[i]
    w = topk_weights.reshape(-1, 1).astype(np.float64)
    return (back * w).reshape(r, t, k, -1).sum(axis=2).astype(np.float32)


def _routing(rng: np.random.Generator, r: int, t: int, k: int, experts: int) -> np.ndarray:
    return (
        np.stack([rng.choice(experts, size=k, replace=False) for _ in range(r * t)])
        .reshape(r, t, k)
        .astype(np.int64)
    )


def _dispatch_fixed(
    rng: np.random.Generator, r: int, t: int, k: int, per_rank: int, d: int
) -> Case:
    return {
        "x": normal(rng, (r, t, d)),
        "topk_ids": _routing(rng, r, t, k, r * per_rank),
        "experts_per_rank": per_rank,
    }


def _dispatch_case(rng: np.random.Generator, size: float) -> Case:
    per_rank = int(rng.integers(1, 2 + int(3 * size)))
    r = int(rng.integers(1, 2 + int(3 * size)))
    k = int(rng.integers(1, 1 + min(3, r * per_rank)))
    return _dispatch_fixed(
        rng, r, int(rng.integers(1, 2 + int(10 * size))), k, per_rank, int(rng.integers(1, 5))
    )


DISPATCH_SOLUTION = '''\
import numpy as np


def moe_dispatch(x: np.ndarray, topk_ids: np.ndarray, experts_per_rank: int) -> np.ndarray:
    """x: (R, T, d) tokens on R ranks; topk_ids: (R, T, k) global expert ids; expert e lives on
    rank e // experts_per_rank. Each rank sorts its (token, slot) pairs by expert (stable) and
    sends each rank its contiguous group; every rank receives the groups in source-rank order.
    Returns the R receive buffers concatenated: (R*T*k, d)."""
    r_count, t, k = topk_ids.shape
    send = []  # send[src][dst]: the rows rank src sends to rank dst
    for src in range(r_count):
        ids = topk_ids[src].reshape(-1)  # (T*k,): token-major, slot-minor
        rows = np.repeat(x[src], k, axis=0)  # a token goes once to each of its k experts
        order = np.argsort(ids, kind="stable")  # permute: group by expert, keep token order
        ids, rows = ids[order], rows[order]
        dest = ids // experts_per_rank  # experts are placed in contiguous ranges per rank
        send.append([rows[dest == dst] for dst in range(r_count)])
    # all-to-all: rank dst's buffer is what every src sent it, in source-rank order.
    recv = [np.concatenate([send[src][dst] for src in range(r_count)]) for dst in range(r_count)]
    return np.concatenate(recv)
'''

MOE_DISPATCH = ExerciseSpec(
    reference=dispatch_reference,
    make_case=_dispatch_case,
    solution=DISPATCH_SOLUTION,
    compare=exact,
    examples=(
        {
            "x": np.array([[[0.0], [1.0]], [[2.0], [3.0]]], dtype=np.float32),
            "topk_ids": np.array([[[3], [0]], [[1], [2]]], dtype=np.int64),
            "experts_per_rank": 2,
        },
    ),
    edge_cases={
        "one rank (no communication)": lambda rng: _dispatch_fixed(rng, 1, 5, 2, 4, 3),
        "one expert per rank": lambda rng: _dispatch_fixed(rng, 4, 3, 2, 1, 2),
        "top-2 over 3 ranks x 2 experts": lambda rng: _dispatch_fixed(rng, 3, 6, 2, 2, 3),
        "top-1 (Switch)": lambda rng: _dispatch_fixed(rng, 3, 7, 1, 2, 2),
        "k equals the number of experts": lambda rng: _dispatch_fixed(rng, 2, 3, 4, 2, 2),
    },
    mutants=(
        Mutant(
            "experts placed round-robin (e % R)",
            mutate(DISPATCH_SOLUTION, "dest = ids // experts_per_rank", "dest = ids % r_count"),
            "expert e lives on rank e // experts_per_rank",
        ),
        Mutant(
            "received rows grouped by expert across sources",
            mutate(
                mutate(
                    DISPATCH_SOLUTION,
                    "        send.append([rows[dest == dst] for dst in range(r_count)])",
                    "        send.append([(ids[dest == dst], rows[dest == dst])"
                    " for dst in range(r_count)])",
                ),
                "    recv = [np.concatenate([send[src][dst] for src in range(r_count)]) "
                "for dst in range(r_count)]",
                "    recv = []\n"
                "    for dst in range(r_count):\n"
                "        ids = np.concatenate([send[src][dst][0] for src in range(r_count)])\n"
                "        rows = np.concatenate([send[src][dst][1] for src in range(r_count)])\n"
                '        recv.append(rows[np.argsort(ids, kind="stable")])',
            ),
            "all-to-all concatenates what each source sent, in source-rank order",
        ),
        Mutant(
            "slot-major flattening",
            mutate(
                mutate(
                    DISPATCH_SOLUTION,
                    "ids = topk_ids[src].reshape(-1)",
                    "ids = topk_ids[src].T.reshape(-1)",
                ),
                "rows = np.repeat(x[src], k, axis=0)",
                "rows = np.tile(x[src], (k, 1))",
            ),
            "within one expert, rows come in token order (token·k + slot)",
        ),
    ),
)


# --- combine --------------------------------------------------------------------------------


def _combine_fixed(rng: np.random.Generator, r: int, t: int, k: int, per_rank: int, d: int) -> Case:
    ids = _routing(rng, r, t, k, r * per_rank)
    w = rng.random((r, t, k)) + 0.1
    return {
        "expert_out": normal(rng, (r * t * k, d)),
        "topk_ids": ids,
        "topk_weights": (w / w.sum(axis=-1, keepdims=True)).astype(np.float32),
        "experts_per_rank": per_rank,
    }


def _combine_case(rng: np.random.Generator, size: float) -> Case:
    per_rank = int(rng.integers(1, 2 + int(3 * size)))
    r = int(rng.integers(1, 2 + int(3 * size)))
    k = int(rng.integers(1, 1 + min(3, r * per_rank)))
    return _combine_fixed(
        rng, r, int(rng.integers(1, 2 + int(10 * size))), k, per_rank, int(rng.integers(1, 5))
    )


COMBINE_SOLUTION = '''\
import numpy as np


def moe_combine(
    expert_out: np.ndarray,
    topk_ids: np.ndarray,
    topk_weights: np.ndarray,
    experts_per_rank: int,
) -> np.ndarray:
    """expert_out: (R*T*k, d), the experts' outputs in the dispatch layout (receive buffers of
    ranks 0..R-1 concatenated: by destination rank, source rank, expert, then token·k + slot).
    Sends every row back to its token and returns sum_slot weight · output: (R, T, d) float32."""
    r_count, t, k = topk_ids.shape
    n = r_count * t * k
    src = np.repeat(np.arange(r_count), t * k)  # row i of (rank, token, slot) order
    flat = np.tile(np.arange(t * k), r_count)  # token * k + slot within the rank
    expert = topk_ids.reshape(-1)
    dest = expert // experts_per_rank
    # The dispatch permutation: perm[j] = which (rank, token, slot) row sits at buffer row j.
    perm = np.lexsort((flat, expert, src, dest))
    back = np.empty((n, expert_out.shape[1]), dtype=np.float64)
    back[perm] = expert_out  # the reverse all-to-all plus un-permute: scatter rows home
    weighted = back * topk_weights.reshape(n, 1)  # each slot's gate weight
    return weighted.reshape(r_count, t, k, -1).sum(axis=2).astype(np.float32)
'''

MOE_COMBINE = ExerciseSpec(
    reference=combine_reference,
    make_case=_combine_case,
    solution=COMBINE_SOLUTION,
    examples=(
        {
            "expert_out": np.array([[10.0], [20.0], [30.0], [40.0]], dtype=np.float32),
            "topk_ids": np.array([[[3], [0]], [[1], [2]]], dtype=np.int64),
            "topk_weights": np.ones((2, 2, 1), dtype=np.float32),
            "experts_per_rank": 2,
        },
    ),
    edge_cases={
        "one rank": lambda rng: _combine_fixed(rng, 1, 5, 2, 4, 3),
        "top-2 over 3 ranks x 2 experts": lambda rng: _combine_fixed(rng, 3, 6, 2, 2, 3),
        "top-1 (weights all 1)": lambda rng: _combine_fixed(rng, 3, 7, 1, 2, 2),
        "k equals the number of experts": lambda rng: _combine_fixed(rng, 2, 3, 4, 2, 2),
    },
    mutants=(
        Mutant(
            "gate weights ignored",
            mutate(
                COMBINE_SOLUTION, "weighted = back * topk_weights.reshape(n, 1)", "weighted = back"
            ),
            "the token's output is the gate-weighted sum of its experts",
        ),
        Mutant(
            "permutation applied forward instead of inverted",
            mutate(COMBINE_SOLUTION, "back[perm] = expert_out", "back[:] = expert_out[perm]"),
            "buffer row j belongs to token perm[j]: scatter to perm, do not gather from it",
        ),
        Mutant(
            "weights taken in buffer order",
            mutate(
                COMBINE_SOLUTION,
                "weighted = back * topk_weights.reshape(n, 1)",
                "weighted = back * topk_weights.reshape(n, 1)[np.argsort(perm)]",
            ),
            "weights belong to (token, slot), not to buffer rows",
        ),
    ),
)


# --- top-k gating with capacity ---------------------------------------------------------------


def gating_reference(logits: np.ndarray, k: int, capacity_factor: float) -> np.ndarray:
    t, e = logits.shape
    z = logits.astype(np.float64)
    probs = np.exp(z - z.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    top = np.argsort(-probs, axis=1, kind="stable")[:, :k]
    w = np.take_along_axis(probs, top, axis=1)
    w /= w.sum(axis=1, keepdims=True)
    capacity = math.ceil(capacity_factor * t * k / e)
    load = np.zeros(e, dtype=np.int64)
    out = np.zeros((t, e))
    for slot in range(k):
        for tok in range(t):
            ex = int(top[tok, slot])
            if load[ex] < capacity:
                load[ex] += 1
                out[tok, ex] = w[tok, slot]
    return out.astype(np.float32)


def _gating_fixed(
    rng: np.random.Generator, t: int, e: int, k: int, cf: float, skew: float = 0.0
) -> Case:
    logits = normal(rng, (t, e), 1.5)
    logits[:, 0] += skew  # a popular expert overflows first
    return {"logits": logits, "k": k, "capacity_factor": cf}


def _gating_case(rng: np.random.Generator, size: float) -> Case:
    e = int(rng.integers(2, 3 + int(8 * size)))
    return _gating_fixed(
        rng,
        int(rng.integers(1, 2 + int(30 * size))),
        e,
        int(rng.integers(1, 1 + min(3, e))),
        float(rng.choice([0.5, 1.0, 1.25, 2.0])),
        float(rng.uniform(0, 3)),
    )


GATING_SOLUTION = '''\
import math

import numpy as np


def topk_gating(logits: np.ndarray, k: int, capacity_factor: float) -> np.ndarray:
    """logits: (T, E) router logits. Softmax per token, top-k experts, weights renormalized over
    the k; each expert takes at most C = ceil(capacity_factor * T * k / E) assignments, filled
    by priority: every token's 1st choice (in token order), then every 2nd choice, ...
    Overflowing assignments are dropped (weight 0). Returns the (T, E) combine weights."""
    t, e = logits.shape
    z = logits.astype(np.float64)
    probs = np.exp(z - z.max(axis=1, keepdims=True))
    probs = probs / probs.sum(axis=1, keepdims=True)
    top = np.argsort(-probs, axis=1, kind="stable")[:, :k]  # (T, k), best first
    w = np.take_along_axis(probs, top, axis=1)
    w = w / w.sum(axis=1, keepdims=True)  # renormalized over the chosen k
    capacity = math.ceil(capacity_factor * t * k / e)
    load = np.zeros(e, dtype=np.int64)
    out = np.zeros((t, e))
    for slot in range(k):  # first choices outrank second choices
        for tok in range(t):
            ex = top[tok, slot]
            if load[ex] < capacity:
                load[ex] += 1
                out[tok, ex] = w[tok, slot]
            # else: dropped; the token's residual connection carries it through
    return out.astype(np.float32)
'''

TOPK_GATING = ExerciseSpec(
    reference=gating_reference,
    make_case=_gating_case,
    solution=GATING_SOLUTION,
    examples=(
        {
            "logits": np.array(
                [[2.0, 1.0, 0.0], [3.0, 0.0, 1.0], [2.5, 2.0, 0.0], [0.0, 1.0, 2.0]],
                dtype=np.float32,
            ),
            "k": 2,
            "capacity_factor": 0.75,
        },
    ),
    edge_cases={
        "no drops (capacity factor 4)": lambda rng: _gating_fixed(rng, 8, 4, 2, 4.0),
        "top-1 (Switch), popular expert overflows": lambda rng: _gating_fixed(
            rng, 12, 4, 1, 1.0, 3.0
        ),
        "top-2, capacity factor 1.25, skewed": lambda rng: _gating_fixed(rng, 10, 4, 2, 1.25, 2.5),
        "capacity that is not an integer before ceil": lambda rng: _gating_fixed(
            rng, 7, 3, 2, 1.1, 1.0
        ),
        "tight capacity (factor 0.5)": lambda rng: _gating_fixed(rng, 9, 3, 2, 0.5, 1.0),
        "one token": lambda rng: _gating_fixed(rng, 1, 5, 2, 1.0),
    },
    mutants=(
        Mutant(
            "token-major priority",
            mutate(
                GATING_SOLUTION,
                "    for slot in range(k):  # first choices outrank second choices\n"
                "        for tok in range(t):",
                "    for tok in range(t):\n        for slot in range(k):",
            ),
            "an early token's 2nd choice must not take a slot a later token needs for its 1st",
        ),
        Mutant(
            "capacity rounded down",
            mutate(
                GATING_SOLUTION,
                "capacity = math.ceil(capacity_factor * t * k / e)",
                "capacity = int(capacity_factor * t * k / e)",
            ),
            "C = ceil(cf·T·k/E)",
        ),
        Mutant(
            "top-k weights not renormalized",
            mutate(
                GATING_SOLUTION,
                "    w = w / w.sum(axis=1, keepdims=True)  # renormalized over the chosen k\n",
                "",
            ),
            "the kept gate weights are renormalized over the k experts",
        ),
        Mutant(
            "weights renormalized after dropping",
            mutate(
                GATING_SOLUTION,
                "    return out.astype(np.float32)\n",
                "    s = out.sum(axis=1, keepdims=True)\n"
                "    out = np.where(s > 0, out / np.where(s > 0, s, 1), 0)\n"
                "    return out.astype(np.float32)\n",
            ),
            "a dropped slot's weight is lost, not handed to the surviving expert",
        ),
        Mutant(
            "no capacity limit",
            mutate(GATING_SOLUTION, "if load[ex] < capacity:", "if True:"),
            "experts overflow and nothing is dropped",
        ),
    ),
)
