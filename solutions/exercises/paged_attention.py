"""PagedAttention: decode attention computed block by block straight from the paged KV pool
through the block table, with an online softmax (no gathered copy of K and V); and the gather
of a sequence's blocks into contiguous K and V that a non-paged kernel needs."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, mutate
from solutions.exercises.compare import normal


def paged_decode_reference(
    q: np.ndarray,
    k_pages: np.ndarray,
    v_pages: np.ndarray,
    block_tables: np.ndarray,
    context_lens: np.ndarray,
) -> np.ndarray:
    bs = k_pages.shape[1]
    b_size, h, d = q.shape
    out = np.empty((b_size, h, d))
    for b in range(b_size):
        t = np.arange(int(context_lens[b]))
        blocks = block_tables[b, t // bs]
        k = k_pages[blocks, t % bs].astype(np.float64)  # (n, H, d)
        v = v_pages[blocks, t % bs].astype(np.float64)
        s = np.einsum("hd,nhd->hn", q[b].astype(np.float64), k) / np.sqrt(d)
        w = np.exp(s - s.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        out[b] = np.einsum("hn,nhd->hd", w, v)
    return out.astype(np.float32)


def _paged_fixed(
    rng: np.random.Generator,
    bs: int,
    h: int,
    d: int,
    lens: list[int],
    spare: int = 2,
    q_scale: float = 1.0,
) -> Case:
    need = [-(-n // bs) for n in lens]
    num_blocks = sum(need) + spare
    physical = rng.permutation(num_blocks)
    tables = np.full((len(lens), max(need) + 1), -1, dtype=np.int32)
    used = 0
    for b, m in enumerate(need):
        tables[b, :m] = physical[used : used + m]
        used += m
    # Slots that hold no token of the sequence (the tail of a last block, unused blocks) carry
    # large stale values, so reading them cannot go unnoticed.
    k_pages = normal(rng, (num_blocks, bs, h, d), 25.0)
    v_pages = normal(rng, (num_blocks, bs, h, d), 25.0)
    for b, n in enumerate(lens):
        t = np.arange(n)
        blocks = tables[b, t // bs]
        k_pages[blocks, t % bs] = normal(rng, (n, h, d))
        v_pages[blocks, t % bs] = normal(rng, (n, h, d))
    return {
        "q": normal(rng, (len(lens), h, d), q_scale),
        "k_pages": k_pages,
        "v_pages": v_pages,
        "block_tables": tables,
        "context_lens": np.array(lens, dtype=np.int64),
    }


def _paged_case(rng: np.random.Generator, size: float) -> Case:
    bs = int(rng.choice([1, 2, 4, 8, 16]))
    lens = [
        int(n) for n in rng.integers(1, 2 + int(50 * size), int(rng.integers(1, 2 + int(3 * size))))
    ]
    return _paged_fixed(
        rng,
        bs,
        int(rng.integers(1, 2 + int(2 * size))),
        int(rng.integers(1, 2 + int(15 * size))),
        lens,
    )


PAGED_DECODE_SOLUTION = '''\
import numpy as np


def paged_decode_attention(
    q: np.ndarray,
    k_pages: np.ndarray,
    v_pages: np.ndarray,
    block_tables: np.ndarray,
    context_lens: np.ndarray,
) -> np.ndarray:
    """q: (B, H, d), one decode query per sequence. k_pages, v_pages: (num_blocks, block_size,
    H, d). block_tables: (B, max_blocks), -1 padded. context_lens: (B,). Attends over each
    sequence's tokens one block at a time with an online softmax. Returns (B, H, d) float32."""
    b_size, h, d = q.shape
    bs = k_pages.shape[1]
    out = np.empty((b_size, h, d), dtype=np.float32)
    for b in range(b_size):
        n = int(context_lens[b])
        m = np.full(h, -np.inf)  # running max of the scores, per head
        l = np.zeros(h)  # running sum of exp(score - m)
        acc = np.zeros((h, d))  # running sum of exp(score - m) * v
        for j in range(-(-n // bs)):  # logical blocks, the last one possibly partial
            block = block_tables[b, j]
            valid = min(bs, n - j * bs)  # tokens of this sequence in the block
            k = k_pages[block, :valid]  # (valid, H, d): contiguous in memory
            v = v_pages[block, :valid]
            s = np.einsum("hd,nhd->hn", q[b], k) / np.sqrt(d)  # (H, valid)
            m_new = np.maximum(m, s.max(axis=1))
            scale = np.exp(m - m_new)  # rescale what was summed against the old max
            p = np.exp(s - m_new[:, None])
            l = l * scale + p.sum(axis=1)
            acc = acc * scale[:, None] + np.einsum("hn,nhd->hd", p, v)
            m = m_new
        out[b] = acc / l[:, None]
    return out
'''

PAGED_DECODE = ExerciseSpec(
    reference=paged_decode_reference,
    make_case=_paged_case,
    solution=PAGED_DECODE_SOLUTION,
    examples=(
        {
            "q": np.array([[[1.0, 0.0]]], dtype=np.float32),
            "k_pages": np.array(
                [[[[0.0, 1.0]], [[9.0, 9.0]]], [[[1.0, 0.0]], [[0.0, 1.0]]]], dtype=np.float32
            ),
            "v_pages": np.array(
                [[[[2.0, 0.0]], [[9.0, 9.0]]], [[[3.0, 4.0]], [[5.0, 6.0]]]], dtype=np.float32
            ),
            "block_tables": np.array([[1, 0]], dtype=np.int32),
            "context_lens": np.array([3], dtype=np.int64),
        },
    ),
    edge_cases={
        "one token": lambda rng: _paged_fixed(rng, 4, 2, 4, [1]),
        "block size 1": lambda rng: _paged_fixed(rng, 1, 2, 3, [5, 2]),
        "lengths exact multiples of the block": lambda rng: _paged_fixed(rng, 4, 1, 5, [8, 4]),
        "last block partly filled": lambda rng: _paged_fixed(rng, 8, 2, 4, [9, 15, 3]),
        "large scores (the max moves between blocks)": lambda rng: _paged_fixed(
            rng, 4, 2, 8, [13, 6], q_scale=30.0
        ),
    },
    mutants=(
        Mutant(
            "whole last block read",
            mutate(PAGED_DECODE_SOLUTION, "valid = min(bs, n - j * bs)", "valid = bs"),
            "the slots after the context length hold stale data",
        ),
        Mutant(
            "accumulator not rescaled",
            mutate(
                PAGED_DECODE_SOLUTION,
                "acc = acc * scale[:, None] + np.einsum",
                "acc = acc + np.einsum",
            ),
            "when the max grows, everything summed so far must shrink by exp(m_old - m_new)",
        ),
        Mutant(
            "block table ignored",
            mutate(PAGED_DECODE_SOLUTION, "block = block_tables[b, j]", "block = j"),
            "logical block j is not physical block j",
        ),
        Mutant(
            "last partial block skipped",
            mutate(
                PAGED_DECODE_SOLUTION,
                "for j in range(-(-n // bs)):",
                "for j in range(max(n // bs, 1)):",
            ),
            "ceil, not floor: the tail tokens are part of the context",
        ),
    ),
)


# --- paged KV cache: gather into contiguous K/V ---------------------------------------------


def paged_gather_reference(
    k_pages: np.ndarray, v_pages: np.ndarray, block_tables: np.ndarray, context_lens: np.ndarray
) -> np.ndarray:
    """Token t of sequence b lives in physical block block_tables[b, t // bs], slot t % bs."""
    bs = k_pages.shape[1]
    ks, vs = [], []
    for b, n in enumerate(context_lens):
        t = np.arange(int(n))
        blocks = block_tables[b, t // bs]
        ks.append(k_pages[blocks, t % bs])
        vs.append(v_pages[blocks, t % bs])
    h, d = k_pages.shape[2:]
    if not ks:
        return np.zeros((2, 0, h, d), dtype=k_pages.dtype)
    return np.stack([np.concatenate(ks), np.concatenate(vs)])


def _gather_fixed(
    rng: np.random.Generator, num_blocks: int, bs: int, h: int, d: int, lens: list[int]
) -> Case:
    need = [-(-n // bs) for n in lens]
    assert sum(need) <= num_blocks
    physical = rng.permutation(num_blocks)  # blocks are handed out in no particular order
    width = max([*need, 1]) + int(rng.integers(0, 3))
    tables = np.full((len(lens), width), -1, dtype=np.int32)
    used = 0
    for b, m in enumerate(need):
        tables[b, :m] = physical[used : used + m]
        used += m
    return {
        "k_pages": normal(rng, (num_blocks, bs, h, d)),
        "v_pages": normal(rng, (num_blocks, bs, h, d)),
        "block_tables": tables,
        "context_lens": np.array(lens, dtype=np.int64),
    }


def _gather_case(rng: np.random.Generator, size: float) -> Case:
    bs = int(rng.choice([1, 2, 3, 4, 8, 16]))
    b = int(rng.integers(1, 2 + int(3 * size)))
    lens = [int(n) for n in rng.integers(1, 2 + int(40 * size), b)]
    num_blocks = sum(-(-n // bs) for n in lens) + int(rng.integers(0, 4))
    return _gather_fixed(
        rng, num_blocks, bs, int(rng.integers(1, 3)), int(rng.integers(1, 6)), lens
    )


PAGED_GATHER_SOLUTION = '''\
import numpy as np


def gather_kv(
    k_pages: np.ndarray, v_pages: np.ndarray, block_tables: np.ndarray, context_lens: np.ndarray
) -> np.ndarray:
    """k_pages, v_pages: (num_blocks, block_size, H, d). block_tables: (B, max_blocks) int,
    padded with -1. context_lens: (B,). Returns (2, sum(context_lens), H, d): K then V of
    every sequence, packed one after another in batch order."""
    bs = k_pages.shape[1]
    ks, vs = [], []
    for b in range(len(context_lens)):
        n = int(context_lens[b])
        t = np.arange(n)  # logical token positions of sequence b
        blocks = block_tables[b, t // bs]  # logical block -> physical block
        slots = t % bs  # position inside the block
        ks.append(k_pages[blocks, slots])  # (n, H, d)
        vs.append(v_pages[blocks, slots])
    return np.stack([np.concatenate(ks), np.concatenate(vs)])
'''

PAGED_GATHER = ExerciseSpec(
    reference=paged_gather_reference,
    make_case=_gather_case,
    solution=PAGED_GATHER_SOLUTION,
    examples=(
        {
            "k_pages": np.arange(8, dtype=np.float32).reshape(4, 2, 1, 1),
            "v_pages": -np.arange(8, dtype=np.float32).reshape(4, 2, 1, 1),
            "block_tables": np.array([[2, 0], [3, -1]], dtype=np.int32),
            "context_lens": np.array([3, 1], dtype=np.int64),
        },
    ),
    edge_cases={
        "block size 1": lambda rng: _gather_fixed(rng, 9, 1, 2, 3, [4, 5]),
        "lengths exact multiples of the block": lambda rng: _gather_fixed(rng, 8, 4, 1, 2, [8, 4]),
        "one token in a sequence": lambda rng: _gather_fixed(rng, 6, 4, 2, 2, [1, 7, 1]),
        "last block partly filled": lambda rng: _gather_fixed(rng, 10, 4, 2, 3, [9, 6]),
    },
    mutants=(
        Mutant(
            "block table ignored (logical block = physical block)",
            mutate(PAGED_GATHER_SOLUTION, "blocks = block_tables[b, t // bs]", "blocks = t // bs"),
            "blocks are not contiguous in the pool; the table maps each logical block",
        ),
        Mutant(
            "slot and block swapped",
            mutate(
                mutate(
                    PAGED_GATHER_SOLUTION,
                    "blocks = block_tables[b, t // bs]",
                    "blocks = block_tables[b, t % bs]",
                ),
                "slots = t % bs",
                "slots = np.minimum(t // bs, bs - 1)",
            ),
            "block index is t // block_size, the slot inside it t % block_size",
        ),
        Mutant(
            "whole blocks copied (partial last block not trimmed)",
            mutate(PAGED_GATHER_SOLUTION, "t = np.arange(n)", "t = np.arange(-(-n // bs) * bs)"),
            "the unused slots of the last block are not tokens",
        ),
    ),
)
