"""Scheduler exercises: one step of a continuous-batching scheduler with a token budget, chunked
prefill, a KV-block pool and preemption (vLLM V1's policy, simplified)."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, exact, mutate


def _blocks(tokens: int, block_size: int) -> int:
    return -(-tokens // block_size)


def schedule_reference(
    num_tokens: np.ndarray,
    num_computed: np.ndarray,
    running: np.ndarray,
    token_budget: int,
    max_num_seqs: int,
    block_size: int,
    free_blocks: int,
) -> np.ndarray:
    out = np.zeros(len(num_tokens), dtype=np.int64)
    budget, free = int(token_budget), int(free_blocks)
    run = [i for i in range(len(num_tokens)) if running[i]]
    wait = [i for i in range(len(num_tokens)) if not running[i]]
    preempted = False
    scheduled = 0
    idx = 0
    while idx < len(run) and budget > 0:
        i = run[idx]
        done = int(num_computed[i])
        n = min(int(num_tokens[i]) - done, budget)
        need = _blocks(done + n, block_size) - _blocks(done, block_size)
        while need > free:
            victim = run.pop()
            free += _blocks(int(num_computed[victim]), block_size)
            out[victim] = -1
            preempted = True
            if victim == i:
                break
        if out[i] == -1:
            break
        free -= need
        budget -= n
        out[i] = n
        scheduled += 1
        idx += 1
    if not preempted:
        for i in wait:
            if budget == 0 or scheduled >= max_num_seqs:
                break
            n = min(int(num_tokens[i]) - int(num_computed[i]), budget)
            need = _blocks(int(num_computed[i]) + n, block_size) - _blocks(
                int(num_computed[i]), block_size
            )
            if need > free:
                break
            free -= need
            budget -= n
            out[i] = n
            scheduled += 1
    return out


def _sched_fixed(
    tokens: list[int],
    computed: list[int],
    running: list[bool],
    budget: int,
    max_seqs: int,
    block_size: int,
    free: int,
) -> Case:
    return {
        "num_tokens": np.array(tokens, dtype=np.int64),
        "num_computed": np.array(computed, dtype=np.int64),
        "running": np.array(running, dtype=bool),
        "token_budget": budget,
        "max_num_seqs": max_seqs,
        "block_size": block_size,
        "free_blocks": free,
    }


def _sched_case(rng: np.random.Generator, size: float) -> Case:
    r = int(rng.integers(1, 3 + int(8 * size)))
    block_size = int(rng.choice([2, 4, 8, 16]))
    tokens, computed, running = [], [], []
    for _ in range(r):
        is_running = bool(rng.random() < 0.6)
        prompt = int(rng.integers(1, 60))
        if is_running:
            if rng.random() < 0.7:  # decoding: everything but the newest token is cached
                total = prompt + int(rng.integers(1, 30))
                done = total - 1
            else:  # still prefilling in chunks
                total = prompt
                done = int(rng.integers(0, prompt))
        else:
            total, done = prompt, 0
        tokens.append(total)
        computed.append(done)
        running.append(is_running)
    max_seqs = int(rng.integers(max(1, sum(running)), r + 2))
    return _sched_fixed(
        tokens,
        computed,
        running,
        int(rng.integers(1, 80)),
        max_seqs,
        block_size,
        int(rng.integers(0, 8)),
    )


SCHEDULE_SOLUTION = '''\
import numpy as np


def schedule_step(
    num_tokens: np.ndarray,
    num_computed: np.ndarray,
    running: np.ndarray,
    token_budget: int,
    max_num_seqs: int,
    block_size: int,
    free_blocks: int,
) -> np.ndarray:
    """One scheduling step. Request i knows num_tokens[i] tokens and has KV for
    num_computed[i] of them (a running request holds ceil(num_computed / block_size) blocks).
    Running requests (in index order) come first, then waiting ones (FCFS). Returns (R,) int64:
    tokens scheduled this step, 0 if not scheduled, -1 if preempted."""

    def blocks(t):
        return -(-t // block_size)  # ceil

    out = np.zeros(len(num_tokens), dtype=np.int64)
    budget, free = int(token_budget), int(free_blocks)
    run = [i for i in range(len(num_tokens)) if running[i]]
    wait = [i for i in range(len(num_tokens)) if not running[i]]
    preempted = False
    scheduled = 0
    idx = 0
    while idx < len(run) and budget > 0:
        i = run[idx]
        done = int(num_computed[i])
        n = min(int(num_tokens[i]) - done, budget)  # decode: 1; prefill: a chunk
        need = blocks(done + n) - blocks(done)  # the last block may still have room
        while need > free:
            victim = run.pop()  # lowest priority: the last running request
            free += blocks(int(num_computed[victim]))  # its KV is dropped (recompute later)
            out[victim] = -1
            preempted = True
            if victim == i:
                break
        if out[i] == -1:
            break  # i was the last one left to consider
        free -= need
        budget -= n
        out[i] = n
        scheduled += 1
        idx += 1
    if not preempted:  # memory is tight: admit nobody new in a step that had to preempt
        for i in wait:
            if budget == 0 or scheduled >= max_num_seqs:
                break
            done = int(num_computed[i])
            n = min(int(num_tokens[i]) - done, budget)  # chunked prefill: what fits
            need = blocks(done + n) - blocks(done)
            if need > free:
                break  # FCFS: do not let later requests jump the queue
            free -= need
            budget -= n
            out[i] = n
            scheduled += 1
    return out
'''

SCHEDULE_STEP = ExerciseSpec(
    reference=schedule_reference,
    make_case=_sched_case,
    solution=SCHEDULE_SOLUTION,
    compare=exact,
    examples=(
        _sched_fixed([20, 9, 30, 12], [19, 3, 0, 0], [True, True, False, False], 16, 4, 4, 3),
    ),
    edge_cases={
        "a long prompt is chunked to the budget": lambda rng: _sched_fixed(
            [11, 100], [10, 0], [True, False], 32, 4, 16, 10
        ),
        "preemption takes the last running request": lambda rng: _sched_fixed(
            [17, 33, 9], [16, 32, 8], [True, True, True], 64, 4, 4, 0
        ),
        "a request preempts itself when it is last": lambda rng: _sched_fixed(
            [8, 13], [7, 12], [True, True], 64, 4, 4, 0
        ),
        "no admissions after a preemption": lambda rng: _sched_fixed(
            [9, 17, 5], [8, 16, 0], [True, True, False], 64, 4, 4, 0
        ),
        "decode fills a partly used block (no new block)": lambda rng: _sched_fixed(
            [7, 10], [6, 0], [True, False], 64, 4, 4, 3
        ),
        "FCFS: a blocked head-of-line request stops admissions": lambda rng: _sched_fixed(
            [40, 4], [0, 0], [False, False], 64, 4, 4, 3
        ),
        "max_num_seqs caps admissions": lambda rng: _sched_fixed(
            [5, 5, 5, 5], [4, 0, 0, 0], [True, False, False, False], 64, 2, 4, 20
        ),
        "budget exhausted by running requests": lambda rng: _sched_fixed(
            [50, 3], [10, 0], [True, False], 24, 4, 8, 10
        ),
    },
    mutants=(
        Mutant(
            "no chunked prefill (whole prompt or nothing)",
            mutate(
                SCHEDULE_SOLUTION,
                "            n = min(int(num_tokens[i]) - done, budget)"
                "  # chunked prefill: what fits\n",
                "            n = int(num_tokens[i]) - done\n"
                "            if n > budget:\n"
                "                break\n",
            ),
            "a prompt longer than the remaining budget is split, not deferred",
        ),
        Mutant(
            "preempts the first running request",
            mutate(
                SCHEDULE_SOLUTION,
                "victim = run.pop()  #",
                "victim = run.pop(idx + 1 if idx + 1 < len(run) else idx)  #",
            ),
            "the victim is the lowest-priority request, the last in the running queue",
        ),
        Mutant(
            "admits waiting requests after a preemption",
            mutate(SCHEDULE_SOLUTION, "    if not preempted:  #", "    if True:  #"),
            "a step that had to preempt has no memory to spare for newcomers",
        ),
        Mutant(
            "block need ignores the partly filled last block",
            mutate(
                SCHEDULE_SOLUTION,
                "        need = blocks(done + n) - blocks(done)"
                "  # the last block may still have room",
                "        need = blocks(n)",
            ),
            "a decode step usually fits in the current block",
        ),
        Mutant(
            "skips a waiting request that does not fit",
            mutate(
                SCHEDULE_SOLUTION,
                "                break  # FCFS: do not let later requests jump the queue",
                "                continue",
            ),
            "FCFS stops at the first waiting request that cannot be admitted",
        ),
        Mutant(
            "max_num_seqs ignored",
            mutate(
                SCHEDULE_SOLUTION, "if budget == 0 or scheduled >= max_num_seqs:", "if budget == 0:"
            ),
            "the batch size is capped",
        ),
    ),
)
