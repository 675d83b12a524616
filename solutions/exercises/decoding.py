"""Decoding exercises: beam search (and greedy search, its width-1 case) over a bigram log-prob
table with an end-of-sequence token and length normalization."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, exact, mutate


def beam_search_reference(
    logp: np.ndarray, bos: int, eos: int, beam_width: int, max_len: int, alpha: float
) -> np.ndarray:
    alive: list[tuple[list[int], float]] = [([bos], 0.0)]
    finished: list[tuple[list[int], float]] = []
    v = logp.shape[0]
    for _ in range(max_len):
        cands = [
            (score + float(logp[seq[-1], tok]), i, tok)
            for i, (seq, score) in enumerate(alive)
            for tok in range(v)
        ]
        cands.sort(key=lambda c: (-c[0], c[1], c[2]))
        nxt: list[tuple[list[int], float]] = []
        for score, i, tok in cands[:beam_width]:
            seq = [*alive[i][0], tok]
            (finished if tok == eos else nxt).append((seq, score))
        alive = nxt
        if not alive:
            break
    finished += alive
    best = max(finished, key=lambda h: h[1] / (len(h[0]) - 1) ** alpha)[0][1:]
    out = np.full(max_len, -1, dtype=np.int64)
    out[: len(best)] = best
    return out


def _table(rng: np.random.Generator, v: int, scale: float, eos: int, eos_bias: float) -> np.ndarray:
    z = rng.standard_normal((v, v)) * scale
    z[:, eos] += eos_bias
    z -= z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def _beam_fixed(
    rng: np.random.Generator,
    v: int,
    beam_width: int,
    max_len: int,
    alpha: float,
    eos_bias: float = 0.0,
    scale: float = 1.5,
) -> Case:
    return {
        "logp": _table(rng, v, scale, 1, eos_bias),
        "bos": 0,
        "eos": 1,
        "beam_width": beam_width,
        "max_len": max_len,
        "alpha": alpha,
    }


def _beam_case(rng: np.random.Generator, size: float) -> Case:
    return _beam_fixed(
        rng,
        int(rng.integers(3, 4 + int(8 * size))),
        int(rng.integers(1, 2 + int(4 * size))),
        int(rng.integers(1, 2 + int(8 * size))),
        float(rng.choice([0.0, 0.6, 1.0])),
        float(rng.uniform(-1.0, 1.0)),
        float(rng.uniform(0.5, 2.5)),
    )


def _greedy_trap() -> Case:
    """Greedy takes token 2 (-0.4) and then faces only bad continuations; the beam finds 3 then
    EOS with a better total."""
    lp = np.full((5, 5), -6.0)
    lp[0, 2], lp[0, 3] = np.log(0.6), np.log(0.35)
    lp[2, :] = np.log(0.2)
    lp[3, 1] = np.log(0.9)
    lp[4, 1] = np.log(0.9)
    lp[1, 1] = 0.0
    lp -= np.log(np.exp(lp).sum(axis=1, keepdims=True))
    return {"logp": lp, "bos": 0, "eos": 1, "beam_width": 2, "max_len": 4, "alpha": 0.0}


def _rows(rows: dict[int, dict[int, float]], v: int = 5) -> np.ndarray:
    """A log-prob table from a few explicit probabilities per row; the rest of each row's mass
    is spread evenly over the other tokens."""
    table = np.empty((v, v))
    for a in range(v):
        given = rows.get(a, {})
        rest = (1.0 - sum(given.values())) / (v - len(given))
        table[a] = [given.get(b, rest) for b in range(v)]
    return np.log(table)


def _early_eos() -> Case:
    """EOS right away (p = 0.5) or after one token (0.3 · 0.9): the raw sum prefers the short
    one, the per-token average the longer one. After EOS the table continues with likely
    tokens, which only a beam that keeps expanding finished hypotheses would follow."""
    lp = _rows({0: {1: 0.5, 2: 0.3, 3: 0.19}, 1: {4: 0.97}, 4: {4: 0.97}, 2: {1: 0.9}, 3: {1: 0.9}})
    return {"logp": lp, "bos": 0, "eos": 1, "beam_width": 2, "max_len": 3, "alpha": 1.0}


def _best_still_alive() -> Case:
    """EOS is rare, so the best hypothesis never finishes within max_len."""
    lp = _rows({0: {1: 0.05, 2: 0.9}, 2: {2: 0.95, 1: 0.01}, 1: {1: 0.9}})
    return {"logp": lp, "bos": 0, "eos": 1, "beam_width": 2, "max_len": 3, "alpha": 0.0}


BEAM_SOLUTION = '''\
import numpy as np


def beam_search(
    logp: np.ndarray, bos: int, eos: int, beam_width: int, max_len: int, alpha: float
) -> np.ndarray:
    """logp: (V, V), logp[a, b] = log P(next = b | previous = a). Returns the best hypothesis's
    generated tokens (bos excluded, eos included if reached), (max_len,) int64 padded with -1."""
    alive = [([bos], 0.0)]  # (tokens so far, sum of log-probs)
    finished = []
    v = logp.shape[0]
    for _ in range(max_len):
        # Every alive beam extended by every token, ranked together.
        cands = []
        for i, (seq, score) in enumerate(alive):
            for tok in range(v):
                cands.append((score + logp[seq[-1], tok], i, tok))
        cands.sort(key=lambda c: (-c[0], c[1], c[2]))  # best first; ties: beam, then token
        nxt = []
        for score, i, tok in cands[:beam_width]:
            seq = alive[i][0] + [tok]
            if tok == eos:
                finished.append((seq, score))  # done: it leaves the beam
            else:
                nxt.append((seq, score))
        alive = nxt
        if not alive:
            break
    finished += alive  # hypotheses cut off at max_len compete too

    def normalized(h):
        seq, score = h
        return score / (len(seq) - 1) ** alpha  # length = generated tokens, eos included

    best = max(finished, key=normalized)[0][1:]
    out = np.full(max_len, -1, dtype=np.int64)
    out[: len(best)] = best
    return out
'''

BEAM_SEARCH = ExerciseSpec(
    reference=beam_search_reference,
    make_case=_beam_case,
    solution=BEAM_SOLUTION,
    compare=exact,
    examples=(_greedy_trap(),),
    edge_cases={
        "EOS now or after one more token": lambda rng: _early_eos(),
        "the best hypothesis is cut off at max_len": lambda rng: _best_still_alive(),
        "beam width 1 is greedy search": lambda rng: _beam_fixed(rng, 6, 1, 6, 0.0),
        "EOS unlikely (no hypothesis finishes)": lambda rng: _beam_fixed(rng, 6, 3, 5, 1.0, -8.0),
        "EOS likely, no length normalization": lambda rng: _beam_fixed(rng, 6, 3, 6, 0.0, 1.5),
        "EOS likely, full length normalization": lambda rng: _beam_fixed(rng, 6, 3, 6, 1.0, 1.0),
        "beam wider than the vocabulary": lambda rng: _beam_fixed(rng, 3, 5, 4, 0.6),
        "max_len 1": lambda rng: _beam_fixed(rng, 5, 2, 1, 1.0),
        "long search, wide beam": lambda rng: _beam_fixed(rng, 8, 4, 9, 0.6, 0.0, 2.0),
    },
    mutants=(
        Mutant(
            "each beam keeps only its own best continuation",
            mutate(
                BEAM_SOLUTION,
                "cands.sort(key=lambda c: (-c[0], c[1], c[2]))",
                "cands.sort(key=lambda c: (-c[0], c[1], c[2]))\n"
                "        cands = [c for c in cands if c is max((d for d in cands if d[1] == c[1]),"
                " key=lambda d: d[0])] + [c for c in cands if c[1] > len(alive)]",
            ),
            "that is several greedy searches; the beam ranks all beams' continuations together",
        ),
        Mutant(
            "finished hypotheses keep expanding",
            mutate(
                BEAM_SOLUTION,
                "            if tok == eos:\n                finished.append((seq, score))",
                "            if tok == eos:\n                finished.append((seq, score))\n"
                "                nxt.append((seq, score))",
            ),
            "a beam that emitted EOS is complete and must leave the beam",
        ),
        Mutant(
            "no length normalization",
            mutate(BEAM_SOLUTION, "return score / (len(seq) - 1) ** alpha", "return score"),
            "raw log-prob sums favour short hypotheses",
        ),
        Mutant(
            "unfinished hypotheses dropped at max_len",
            mutate(
                BEAM_SOLUTION,
                "    finished += alive  # hypotheses cut off at max_len compete too\n",
                "    finished = finished or alive\n",
            ),
            "hypotheses still alive at max_len are candidates too",
        ),
        Mutant(
            "length counts the BOS token",
            mutate(BEAM_SOLUTION, "(len(seq) - 1) ** alpha", "len(seq) ** alpha"),
            "the penalty is over generated tokens",
        ),
    ),
)
