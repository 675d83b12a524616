"""KV-cache exercises: appending to a preallocated cache and one decode step of attention, the
paged cache's gather into contiguous K/V, the block allocator behind the block table, and the
chained block hashes of prefix caching."""

from __future__ import annotations

from collections import deque

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, exact, mutate
from solutions.exercises.compare import bitwise, normal

# --- KV cache append and one decode step ---------------------------------------------------


def decode_step_reference(
    q: np.ndarray,
    k_new: np.ndarray,
    v_new: np.ndarray,
    k_cache: np.ndarray,
    v_cache: np.ndarray,
    lengths: np.ndarray,
) -> np.ndarray:
    """Each sequence b attends over its lengths[b] cached positions plus the new token."""
    b_size, h, _, d = k_cache.shape
    out = np.empty((b_size, h, d))
    for b in range(b_size):
        n = int(lengths[b])
        k = np.concatenate([k_cache[b, :, :n], k_new[b][:, None]], axis=1).astype(np.float64)
        v = np.concatenate([v_cache[b, :, :n], v_new[b][:, None]], axis=1).astype(np.float64)
        scores = np.einsum("hd,hld->hl", q[b].astype(np.float64), k) / np.sqrt(d)
        w = np.exp(scores - scores.max(axis=-1, keepdims=True))
        w /= w.sum(axis=-1, keepdims=True)
        out[b] = np.einsum("hl,hld->hd", w, v)
    return out.astype(q.dtype)


def _decode_fixed(rng: np.random.Generator, h: int, d: int, s_max: int, lengths: list[int]) -> Case:
    b = len(lengths)
    # Slots past each sequence's length hold stale data from an earlier request: large values,
    # so attending to them cannot go unnoticed.
    k_cache = normal(rng, (b, h, s_max, d), 30.0)
    v_cache = normal(rng, (b, h, s_max, d), 30.0)
    for i, n in enumerate(lengths):
        k_cache[i, :, :n] = normal(rng, (h, n, d))
        v_cache[i, :, :n] = normal(rng, (h, n, d))
    return {
        "q": normal(rng, (b, h, d)),
        "k_new": normal(rng, (b, h, d)),
        "v_new": normal(rng, (b, h, d)),
        "k_cache": k_cache,
        "v_cache": v_cache,
        "lengths": np.array(lengths, dtype=np.int64),
    }


def _decode_case(rng: np.random.Generator, size: float) -> Case:
    b = int(rng.integers(1, 2 + int(3 * size)))
    h = int(rng.integers(1, 2 + int(3 * size)))
    d = int(rng.integers(1, 2 + int(15 * size)))
    s_max = int(rng.integers(2, 3 + int(20 * size)))
    lengths = [int(n) for n in rng.integers(0, s_max, b)]
    return _decode_fixed(rng, h, d, s_max, lengths)


DECODE_SOLUTION = '''\
import numpy as np


def decode_step(
    q: np.ndarray,
    k_new: np.ndarray,
    v_new: np.ndarray,
    k_cache: np.ndarray,
    v_cache: np.ndarray,
    lengths: np.ndarray,
) -> np.ndarray:
    """q, k_new, v_new: (B, H, d), the new token of each sequence. k_cache, v_cache:
    (B, H, S_max, d), sequence b's first lengths[b] slots are valid. Writes the new K/V into
    slot lengths[b], then attends over slots 0..lengths[b]. Returns (B, H, d) float32."""
    b_size, _, _, d = k_cache.shape
    out = np.empty(q.shape, dtype=np.float64)
    for b in range(b_size):
        n = int(lengths[b])
        k_cache[b, :, n] = k_new[b]  # append: the new token is position n
        v_cache[b, :, n] = v_new[b]
        k = k_cache[b, :, : n + 1]  # (H, n + 1, d): the cache plus the new token
        v = v_cache[b, :, : n + 1]
        scores = np.einsum("hd,hld->hl", q[b], k) / np.sqrt(d)
        scores = scores - scores.max(axis=-1, keepdims=True)
        w = np.exp(scores)
        w = w / w.sum(axis=-1, keepdims=True)
        out[b] = np.einsum("hl,hld->hd", w, v)
    return out.astype(q.dtype)
'''

KV_DECODE_STEP = ExerciseSpec(
    reference=decode_step_reference,
    make_case=_decode_case,
    solution=DECODE_SOLUTION,
    examples=(
        {
            "q": np.array([[[1.0, 0.0]]], dtype=np.float32),
            "k_new": np.array([[[1.0, 0.0]]], dtype=np.float32),
            "v_new": np.array([[[5.0, 5.0]]], dtype=np.float32),
            "k_cache": np.array([[[[0.0, 1.0], [9.0, 9.0], [9.0, 9.0]]]], dtype=np.float32),
            "v_cache": np.array([[[[1.0, 2.0], [9.0, 9.0], [9.0, 9.0]]]], dtype=np.float32),
            "lengths": np.array([1], dtype=np.int64),
        },
    ),
    edge_cases={
        "empty cache (the first decode step)": lambda rng: _decode_fixed(rng, 2, 4, 5, [0, 0]),
        "cache one slot short of full": lambda rng: _decode_fixed(rng, 2, 4, 6, [5, 2]),
        "different lengths in the batch": lambda rng: _decode_fixed(rng, 3, 8, 12, [1, 9, 4]),
        "head size 1": lambda rng: _decode_fixed(rng, 2, 1, 7, [3, 6]),
    },
    mutants=(
        Mutant(
            "new token not attended",
            mutate(
                mutate(DECODE_SOLUTION, "k = k_cache[b, :, : n + 1]", "k = k_cache[b, :, :n]"),
                "v = v_cache[b, :, : n + 1]",
                "v = v_cache[b, :, :n]",
            ),
            "the new token must see itself; with an empty cache the softmax is over nothing",
        ),
        Mutant(
            "no length mask (attends to every slot)",
            mutate(
                mutate(DECODE_SOLUTION, "k = k_cache[b, :, : n + 1]", "k = k_cache[b]"),
                "v = v_cache[b, :, : n + 1]",
                "v = v_cache[b]",
            ),
            "stale slots past the length enter the softmax",
        ),
        Mutant(
            "appended one slot early",
            mutate(
                mutate(
                    mutate(
                        mutate(
                            DECODE_SOLUTION,
                            "k_cache[b, :, n] = k_new[b]",
                            "k_cache[b, :, max(n - 1, 0)] = k_new[b]",
                        ),
                        "v_cache[b, :, n] = v_new[b]",
                        "v_cache[b, :, max(n - 1, 0)] = v_new[b]",
                    ),
                    "k = k_cache[b, :, : n + 1]",
                    "k = k_cache[b, :, : max(n, 1)]",
                ),
                "v = v_cache[b, :, : n + 1]",
                "v = v_cache[b, :, : max(n, 1)]",
            ),
            "writing at lengths[b] - 1 overwrites the last cached token",
        ),
        Mutant(
            "one length for the whole batch",
            mutate(DECODE_SOLUTION, "n = int(lengths[b])", "n = int(lengths.max())"),
            "shorter sequences attend to stale slots",
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


def _paged_fixed(
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


def _paged_case(rng: np.random.Generator, size: float) -> Case:
    bs = int(rng.choice([1, 2, 3, 4, 8, 16]))
    b = int(rng.integers(1, 2 + int(3 * size)))
    lens = [int(n) for n in rng.integers(1, 2 + int(40 * size), b)]
    num_blocks = sum(-(-n // bs) for n in lens) + int(rng.integers(0, 4))
    return _paged_fixed(rng, num_blocks, bs, int(rng.integers(1, 3)), int(rng.integers(1, 6)), lens)


PAGED_SOLUTION = '''\
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
    make_case=_paged_case,
    solution=PAGED_SOLUTION,
    examples=(
        {
            "k_pages": np.arange(8, dtype=np.float32).reshape(4, 2, 1, 1),
            "v_pages": -np.arange(8, dtype=np.float32).reshape(4, 2, 1, 1),
            "block_tables": np.array([[2, 0], [3, -1]], dtype=np.int32),
            "context_lens": np.array([3, 1], dtype=np.int64),
        },
    ),
    edge_cases={
        "block size 1": lambda rng: _paged_fixed(rng, 9, 1, 2, 3, [4, 5]),
        "lengths exact multiples of the block": lambda rng: _paged_fixed(rng, 8, 4, 1, 2, [8, 4]),
        "one token in a sequence": lambda rng: _paged_fixed(rng, 6, 4, 2, 2, [1, 7, 1]),
        "last block partly filled": lambda rng: _paged_fixed(rng, 10, 4, 2, 3, [9, 6]),
    },
    mutants=(
        Mutant(
            "block table ignored (logical block = physical block)",
            mutate(PAGED_SOLUTION, "blocks = block_tables[b, t // bs]", "blocks = t // bs"),
            "blocks are not contiguous in the pool; the table maps each logical block",
        ),
        Mutant(
            "slot and block swapped",
            mutate(
                mutate(
                    PAGED_SOLUTION,
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
            mutate(PAGED_SOLUTION, "t = np.arange(n)", "t = np.arange(-(-n // bs) * bs)"),
            "the unused slots of the last block are not tokens",
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


# --- prefix caching: chained block hashes ---------------------------------------------------

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK64 = (1 << 64) - 1


def block_hashes_reference(tokens: np.ndarray, block_size: int, salt: int) -> np.ndarray:
    """FNV-1a over 64-bit words: the salt, then each full block's tokens, chained."""
    h = ((FNV_OFFSET ^ salt) * FNV_PRIME) & MASK64
    out = []
    for start in range(0, len(tokens) - block_size + 1, block_size):
        for t in tokens[start : start + block_size].tolist():
            h = ((h ^ t) * FNV_PRIME) & MASK64
        out.append(h)
    return np.array(out, dtype=np.uint64)


def _hash_fixed(tokens: list[int] | np.ndarray, block_size: int, salt: int) -> Case:
    return {"tokens": np.array(tokens, dtype=np.int64), "block_size": block_size, "salt": salt}


def _hash_case(rng: np.random.Generator, size: float) -> Case:
    block_size = int(rng.integers(1, 2 + int(15 * size)))
    n = int(rng.integers(0, 2 + int(120 * size)))
    vocab = int(rng.choice([8, 1000, 152064]))
    salt = 0 if rng.random() < 0.5 else int(rng.integers(1, 2**31))
    return _hash_fixed(rng.integers(0, vocab, n), block_size, salt)


def _shared_prefix(rng: np.random.Generator) -> Case:
    """A prompt whose second block repeats its first: a per-block hash would give both the
    same value, a chained one must not."""
    block = rng.integers(0, 50, 4)
    return _hash_fixed(np.concatenate([block, block, block, rng.integers(0, 50, 3)]), 4, 0)


HASH_SOLUTION = '''\
import numpy as np

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK64 = (1 << 64) - 1  # Python ints do not wrap: keep 64 bits by hand


def block_hashes(tokens: np.ndarray, block_size: int, salt: int) -> np.ndarray:
    """tokens: (n,) int64 token ids. Returns the uint64 hash of every FULL block, each chained
    on the previous block's hash, so a block's hash names the whole prefix up to its end."""
    h = ((FNV_OFFSET ^ salt) * FNV_PRIME) & MASK64  # the salt seeds the chain
    out = []
    n_full = len(tokens) // block_size  # a partial last block is never cached
    for b in range(n_full):
        for t in tokens[b * block_size : (b + 1) * block_size].tolist():
            h = ((h ^ t) * FNV_PRIME) & MASK64  # FNV-1a step: xor, then multiply
        out.append(h)  # h carries over: the next block starts from this one's hash
    return np.array(out, dtype=np.uint64)
'''

PREFIX_HASH = ExerciseSpec(
    reference=block_hashes_reference,
    make_case=_hash_case,
    solution=HASH_SOLUTION,
    compare=bitwise,
    examples=(_hash_fixed([1, 2, 3, 4, 5], 2, 0),),
    edge_cases={
        "shorter than one block (nothing to hash)": lambda rng: _hash_fixed([7, 8, 9], 4, 0),
        "empty prompt": lambda rng: _hash_fixed([], 4, 0),
        "length an exact multiple of the block": lambda rng: _hash_fixed(
            rng.integers(0, 100, 12), 4, 0
        ),
        "repeated blocks": _shared_prefix,
        "block size 1": lambda rng: _hash_fixed(rng.integers(0, 100, 6), 1, 0),
        "with a cache salt": lambda rng: _hash_fixed(rng.integers(0, 100, 9), 3, 123456789),
        "large token ids": lambda rng: _hash_fixed(rng.integers(2**31, 2**40, 8), 4, 0),
    },
    mutants=(
        Mutant(
            "blocks hashed independently (no chain)",
            mutate(
                HASH_SOLUTION,
                "        for t in tokens[b * block_size",
                "        h = ((FNV_OFFSET ^ salt) * FNV_PRIME) & MASK64\n"
                "        for t in tokens[b * block_size",
            ),
            "equal blocks at different depths must not share a hash (their K/V differ)",
        ),
        Mutant(
            "partial last block hashed",
            mutate(
                HASH_SOLUTION,
                "n_full = len(tokens) // block_size",
                "n_full = -(-len(tokens) // block_size)",
            ),
            "a block that can still grow cannot be shared",
        ),
        Mutant(
            "salt ignored",
            mutate(
                HASH_SOLUTION,
                "h = ((FNV_OFFSET ^ salt) * FNV_PRIME)",
                "h = ((FNV_OFFSET ^ 0) * FNV_PRIME)",
            ),
            "tenants with different salts must not share cache entries",
        ),
        Mutant(
            "no 64-bit mask",
            mutate(HASH_SOLUTION, "h = ((h ^ t) * FNV_PRIME) & MASK64", "h = (h ^ t) * FNV_PRIME"),
            "Python ints grow without bound; the hash is defined modulo 2**64",
        ),
    ),
)
