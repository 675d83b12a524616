"""Training-loop exercises: gradient accumulation over micro-batches with FP16 dynamic loss
scaling — skip the step on overflow, halve the scale, grow it after a run of good steps."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, Tolerance, mutate


def loss_scaling_reference(
    w0: np.ndarray,
    grads: np.ndarray,
    lr: float,
    init_scale: float,
    growth_interval: int,
) -> np.ndarray:
    steps, micro, _ = grads.shape
    w = w0.astype(np.float32).copy()
    scale, good = float(init_scale), 0
    out = np.empty((steps, w.size), dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        for s in range(steps):
            acc = np.zeros(w.size, dtype=np.float32)
            for m in range(micro):
                g16 = (grads[s, m] * np.float32(scale) / np.float32(micro)).astype(np.float16)
                acc += g16.astype(np.float32)
            if not np.isfinite(acc).all():
                scale /= 2
                good = 0
            else:
                w = w - np.float32(lr) * (acc / np.float32(scale))
                good += 1
                if good == growth_interval:
                    scale *= 2
                    good = 0
            out[s] = w
    return out


def _grads(
    rng: np.random.Generator, steps: int, micro: int, p: int, spike_rate: float
) -> np.ndarray:
    g = rng.standard_normal((steps, micro, p)).astype(np.float32)
    spikes = rng.random((steps, micro, p)) < spike_rate
    return np.where(spikes, g * 300, g).astype(np.float32)


def _ls_fixed(
    rng: np.random.Generator,
    steps: int,
    micro: int,
    p: int,
    init_scale: float,
    growth: int,
    spike_rate: float = 0.05,
) -> Case:
    return {
        "w0": rng.standard_normal(p).astype(np.float32),
        "grads": _grads(rng, steps, micro, p, spike_rate),
        "lr": 0.01,
        "init_scale": init_scale,
        "growth_interval": growth,
    }


def _ls_case(rng: np.random.Generator, size: float) -> Case:
    return _ls_fixed(
        rng,
        int(rng.integers(2, 3 + int(14 * size))),
        int(rng.integers(1, 2 + int(4 * size))),
        int(rng.integers(1, 2 + int(12 * size))),
        float(2 ** int(rng.integers(8, 17))),
        int(rng.integers(1, 5)),
        float(rng.uniform(0.0, 0.15)),
    )


def _counter_reset_case() -> Case:
    """Scale 2^14, growth every 3 good steps. Step 0 is good; step 1 overflows (halving to 2^13
    and resetting the count); steps 2 and 3 are good. With the reset the scale stays 2^13 and
    step 4's gradient of 5 fits; without it the count reaches 3 at step 3, the scale doubles
    back to 2^14 and step 4 overflows."""
    grads = np.full((5, 1, 2), 0.5, dtype=np.float32)
    grads[1, 0, 0] = 10.0  # 10 * 2^14 = 163840 > 65504
    grads[4, 0, 1] = 5.0  # 5 * 2^13 = 40960 fits; 5 * 2^14 = 81920 does not
    return {
        "w0": np.zeros(2, dtype=np.float32),
        "grads": grads,
        "lr": 0.1,
        "init_scale": 2.0**14,
        "growth_interval": 3,
    }


LOSS_SCALING_SOLUTION = '''\
import numpy as np


def train_fp16_loss_scaling(
    w0: np.ndarray,
    grads: np.ndarray,
    lr: float,
    init_scale: float,
    growth_interval: int,
) -> np.ndarray:
    """w0: (P,) float32 parameters. grads: (S, M, P) float32, the true gradient of micro-batch m
    in step s. Each step: every micro-batch's backward pass yields the gradient of
    loss * scale / M in fp16, i.e. (g * scale / M).astype(float16), which is inf past 65504;
    accumulate those in float32. If anything is inf/NaN: skip the update, halve the scale, reset
    the good-step count. Otherwise w -= lr * acc / scale, count a good step, and double the
    scale after growth_interval good steps in a row. Returns (S, P): w after every step."""
    steps, micro, _ = grads.shape
    w = w0.astype(np.float32).copy()
    scale, good = float(init_scale), 0
    out = np.empty((steps, w.size), dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):  # fp16 overflow is expected, not an error
        for s in range(steps):
            acc = np.zeros(w.size, dtype=np.float32)  # fp32 accumulation buffer (.grad)
            for m in range(micro):
                # The loss is averaged over micro-batches (/ M) and scaled before backward.
                g16 = (grads[s, m] * np.float32(scale) / np.float32(micro)).astype(np.float16)
                acc += g16.astype(np.float32)
            if not np.isfinite(acc).all():  # one overflow anywhere poisons the whole step
                scale /= 2
                good = 0
            else:
                w = w - np.float32(lr) * (acc / np.float32(scale))  # unscale, then step
                good += 1
                if good == growth_interval:  # a long run without overflow: try a larger scale
                    scale *= 2
                    good = 0
            out[s] = w
    return out
'''

LOSS_SCALING = ExerciseSpec(
    reference=loss_scaling_reference,
    make_case=_ls_case,
    solution=LOSS_SCALING_SOLUTION,
    tolerances={"float32": Tolerance(1e-4, 1e-5)},
    examples=(
        {
            "w0": np.array([1.0, 1.0], dtype=np.float32),
            "grads": np.array(
                [[[1.0, 2.0], [3.0, 4.0]], [[600.0, 0.0], [0.0, 0.0]], [[2.0, 2.0], [2.0, 2.0]]],
                dtype=np.float32,
            ),
            "lr": 0.1,
            "init_scale": 256.0,
            "growth_interval": 2,
        },
    ),
    edge_cases={
        "the good-step count resets on overflow": lambda rng: _counter_reset_case(),
        "one micro-batch": lambda rng: _ls_fixed(rng, 8, 1, 4, 2.0**15, 2),
        "scale far too large at first (several skips)": lambda rng: _ls_fixed(
            rng, 10, 3, 5, 2.0**24, 3, 0.0
        ),
        "growth every step": lambda rng: _ls_fixed(rng, 10, 2, 3, 2.0**8, 1, 0.1),
        "no overflow at all": lambda rng: _ls_fixed(rng, 6, 4, 6, 2.0**4, 100, 0.0),
        "three micro-batches (division is inexact)": lambda rng: _ls_fixed(
            rng, 8, 3, 5, 2.0**12, 2
        ),
    },
    mutants=(
        Mutant(
            "overflowing micro-batch dropped, step kept",
            mutate(
                LOSS_SCALING_SOLUTION,
                "                acc += g16.astype(np.float32)",
                "                if np.isfinite(g16).all():\n"
                "                    acc += g16.astype(np.float32)",
            ),
            "an overflow means this step's gradient is unknown: the whole step is skipped",
        ),
        Mutant(
            "loss not divided by the number of micro-batches",
            mutate(
                LOSS_SCALING_SOLUTION,
                "(grads[s, m] * np.float32(scale) / np.float32(micro))",
                "(grads[s, m] * np.float32(scale))",
            ),
            "accumulating M unaveraged gradients makes the step M times too large",
        ),
        Mutant(
            "gradients not unscaled",
            mutate(LOSS_SCALING_SOLUTION, "(acc / np.float32(scale))", "acc"),
            "the optimizer must see acc / scale",
        ),
        Mutant(
            "good-step count not reset on overflow",
            mutate(
                LOSS_SCALING_SOLUTION,
                "                scale /= 2\n                good = 0",
                "                scale /= 2",
            ),
            "growth needs growth_interval consecutive good steps",
        ),
        Mutant(
            "update applied despite the overflow",
            mutate(
                LOSS_SCALING_SOLUTION,
                "                scale /= 2\n                good = 0\n",
                "                scale /= 2\n                good = 0\n"
                "                w = w - np.float32(lr) * (acc / np.float32(scale * 2))\n",
            ),
            "inf/NaN reach the weights and stay there",
        ),
    ),
)
