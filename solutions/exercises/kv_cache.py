"""KV cache exercises: append the new token's K and V and run one decode step, and the
chained block hashes behind prefix caching (the paged gather is in paged_attention.py, the block
allocator in allocators.py)."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, mutate
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
