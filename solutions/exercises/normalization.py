"""Normalization exercises: LayerNorm and RMSNorm forward."""

from __future__ import annotations

import numpy as np

from quizzer.grading.exercise_spec import Case, ExerciseSpec, Mutant, Tolerance, mutate


def _rows(rng: np.random.Generator, size: float, max_d: int = 64) -> tuple[int, ...]:
    ndim = int(rng.integers(1, 4))
    d = int(rng.integers(1, 2 + int((max_d - 1) * size)))
    lead = [int(rng.integers(1, 2 + int(4 * size))) for _ in range(ndim - 1)]
    return (*lead, d)


# --- LayerNorm -----------------------------------------------------------------------------


def layer_norm_reference(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float
) -> np.ndarray:
    """(x - mean) / sqrt(var + eps) * gamma + beta over the last axis, biased variance, float64."""
    wide = x.astype(np.float64)
    mean = wide.mean(axis=-1, keepdims=True)
    var = ((wide - mean) ** 2).mean(axis=-1, keepdims=True)
    return ((wide - mean) / np.sqrt(var + eps) * gamma + beta).astype(x.dtype)


def _affine(rng: np.random.Generator, d: int) -> tuple[np.ndarray, np.ndarray]:
    gamma = rng.uniform(0.5, 1.5, d).astype(np.float32)
    beta = rng.uniform(-0.5, 0.5, d).astype(np.float32)
    return gamma, beta


def _layer_norm_case(rng: np.random.Generator, size: float) -> Case:
    shape = _rows(rng, size)
    center = float(rng.uniform(-3, 3))
    spread = float(rng.uniform(0.5, 4.0))
    x = (center + spread * rng.standard_normal(shape)).astype(np.float32)
    gamma, beta = _affine(rng, shape[-1])
    return {"x": x, "gamma": gamma, "beta": beta, "eps": 1e-5}


def _layer_norm_fixed(x: np.ndarray, rng: np.random.Generator) -> Case:
    gamma, beta = _affine(rng, x.shape[-1])
    return {"x": x.astype(np.float32), "gamma": gamma, "beta": beta, "eps": 1e-5}


LAYER_NORM_SOLUTION = '''\
import numpy as np


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """LayerNorm over the last axis of x; gamma and beta have shape (d,)."""
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    # Two passes: the variance of the centered values, not E[x^2] - E[x]^2, which cancels
    # catastrophically when the mean is large compared with the spread.
    var = (centered * centered).mean(axis=-1, keepdims=True)  # biased: divide by d
    return centered / np.sqrt(var + eps) * gamma + beta
'''

LAYER_NORM = ExerciseSpec(
    reference=layer_norm_reference,
    make_case=_layer_norm_case,
    solution=LAYER_NORM_SOLUTION,
    # float32 statistics of float32 inputs: a correct two-pass LayerNorm is off by up to ~1e-4
    # where the spread is small against the mean; the wrong ones are off by 1e-3 and more.
    tolerances={"float32": Tolerance(1e-3, 1e-4)},
    examples=(
        {
            "x": np.array([[1.0, 2.0, 3.0, 4.0]], dtype=np.float32),
            "gamma": np.ones(4, dtype=np.float32),
            "beta": np.zeros(4, dtype=np.float32),
            "eps": 1e-5,
        },
    ),
    edge_cases={
        "d = 1": lambda rng: _layer_norm_fixed(rng.standard_normal((3, 1)), rng),
        "d = 2": lambda rng: _layer_norm_fixed(rng.standard_normal((4, 2)), rng),
        "constant rows": lambda rng: _layer_norm_fixed(np.full((2, 6), 3.25), rng),
        "tiny spread (variance near eps)": lambda rng: _layer_norm_fixed(
            0.5 + 1e-3 * rng.standard_normal((3, 16)), rng
        ),
        "large mean, small spread (300 ± 1)": lambda rng: _layer_norm_fixed(
            300.0 + rng.standard_normal((3, 64)), rng
        ),
        "3-D input (batch, seq, d)": lambda rng: _layer_norm_fixed(
            rng.standard_normal((2, 3, 7)) * 2, rng
        ),
        "more rows than features": lambda rng: _layer_norm_fixed(rng.standard_normal((8, 5)), rng),
    },
    mutants=(
        Mutant(
            "unbiased variance (divides by d - 1)",
            mutate(
                LAYER_NORM_SOLUTION,
                "var = (centered * centered).mean(axis=-1, keepdims=True)  # biased: divide by d",
                "var = (centered * centered).sum(axis=-1, keepdims=True) / (x.shape[-1] - 1)",
            ),
            "LayerNorm uses the population variance; d - 1 is off for small d and divides by 0 "
            "at d = 1",
        ),
        Mutant(
            "eps outside the square root",
            mutate(LAYER_NORM_SOLUTION, "np.sqrt(var + eps)", "(np.sqrt(var) + eps)"),
            "wrong where the variance is near eps",
        ),
        Mutant(
            "variance as E[x^2] - E[x]^2 in float32",
            mutate(
                LAYER_NORM_SOLUTION,
                "var = (centered * centered).mean(axis=-1, keepdims=True)  # biased: divide by d",
                "var = (x * x).mean(axis=-1, keepdims=True) - mean * mean",
            ),
            "cancels catastrophically for a large mean and a small spread",
        ),
        Mutant(
            "normalized over the wrong axis",
            mutate(LAYER_NORM_SOLUTION, "mean = x.mean(axis=-1", "mean = x.mean(axis=0"),
            "statistics must be per row (per token), over the features",
        ),
        Mutant(
            "gamma and beta swapped",
            mutate(LAYER_NORM_SOLUTION, "* gamma + beta", "* beta + gamma"),
            "scale and shift are applied the wrong way round",
        ),
    ),
)


# --- RMSNorm -------------------------------------------------------------------------------


def rms_norm_reference(x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    """x / sqrt(mean(x^2) + eps) * weight over the last axis, in float64, returned in x's dtype."""
    wide = x.astype(np.float64)
    rms = np.sqrt((wide * wide).mean(axis=-1, keepdims=True) + eps)
    return (wide / rms * weight.astype(np.float64)).astype(x.dtype)


def _rms_case(rng: np.random.Generator, size: float) -> Case:
    shape = _rows(rng, size)
    dtype = np.float16 if rng.random() < 0.3 else np.float32
    x = np.asarray(rng.standard_normal(shape) * rng.uniform(0.5, 4.0) + rng.uniform(-1, 1))
    x = x.astype(dtype)
    weight = rng.uniform(0.5, 1.5, shape[-1]).astype(dtype)
    return {"x": x, "weight": weight, "eps": 1e-6}


def _rms_fixed(x: np.ndarray, rng: np.random.Generator, dtype: type = np.float32) -> Case:
    weight: np.ndarray = rng.uniform(0.5, 1.5, (x.shape[-1],)).astype(dtype)
    return {"x": x.astype(dtype), "weight": weight, "eps": 1e-6}


RMS_NORM_SOLUTION = '''\
import numpy as np


def rms_norm(x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    """RMSNorm over the last axis of x (float16 or float32); weight has shape (d,)."""
    # Square and sum in float32: in float16, x * x overflows to inf once |x| > 255.
    xf = x.astype(np.float32)
    inv_rms = 1.0 / np.sqrt((xf * xf).mean(axis=-1, keepdims=True) + eps)
    return (xf * inv_rms * weight.astype(np.float32)).astype(x.dtype)
'''

RMS_NORM = ExerciseSpec(
    reference=rms_norm_reference,
    make_case=_rms_case,
    solution=RMS_NORM_SOLUTION,
    examples=(
        {
            "x": np.array([[3.0, 4.0]], dtype=np.float32),
            "weight": np.ones(2, dtype=np.float32),
            "eps": 1e-6,
        },
    ),
    edge_cases={
        "d = 1": lambda rng: _rms_fixed(rng.standard_normal((3, 1)) * 2, rng),
        "rows with a nonzero mean": lambda rng: _rms_fixed(5.0 + rng.standard_normal((3, 8)), rng),
        "tiny activations (mean square near eps)": lambda rng: _rms_fixed(
            1e-3 * rng.standard_normal((2, 12)), rng
        ),
        "float16 activations up to ±1000": lambda rng: _rms_fixed(
            rng.uniform(-1000, 1000, (2, 16)), rng, np.float16
        ),
        "float16, ordinary values": lambda rng: _rms_fixed(
            rng.standard_normal((3, 10)) * 3, rng, np.float16
        ),
        "3-D input (batch, seq, d)": lambda rng: _rms_fixed(rng.standard_normal((2, 3, 7)), rng),
    },
    mutants=(
        Mutant(
            "subtracts the mean (that is LayerNorm)",
            mutate(
                RMS_NORM_SOLUTION,
                "xf = x.astype(np.float32)",
                "xf = x.astype(np.float32)\n    xf = xf - xf.mean(axis=-1, keepdims=True)",
            ),
            "RMSNorm does not center; rows with a nonzero mean come out different",
        ),
        Mutant(
            "divides by the L2 norm instead of the RMS",
            mutate(
                RMS_NORM_SOLUTION,
                "(xf * xf).mean(axis=-1, keepdims=True)",
                "(xf * xf).sum(axis=-1, keepdims=True)",
            ),
            "off by a factor sqrt(d)",
        ),
        Mutant(
            "eps outside the square root",
            mutate(
                RMS_NORM_SOLUTION,
                "np.sqrt((xf * xf).mean(axis=-1, keepdims=True) + eps)",
                "(np.sqrt((xf * xf).mean(axis=-1, keepdims=True)) + eps)",
            ),
            "wrong where the mean square is near eps",
        ),
        Mutant(
            "squares in float16",
            mutate(RMS_NORM_SOLUTION, "xf = x.astype(np.float32)", "xf = x"),
            "x * x overflows float16 for |x| > 255, so the row comes out as zeros",
        ),
    ),
)
