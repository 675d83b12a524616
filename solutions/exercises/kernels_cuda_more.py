"""Temporary re-exports while the question files move to solutions.exercises.cuda."""

from __future__ import annotations

from solutions.exercises.cuda.elementwise import BIAS_GELU  # noqa: F401
from solutions.exercises.cuda.gemm import TILED_MATMUL  # noqa: F401
from solutions.exercises.cuda.layout import (
    NCHW_TO_NHWC,  # noqa: F401
    TRANSPOSE,  # noqa: F401
)
from solutions.exercises.cuda.normalization import LAYER_NORM  # noqa: F401
from solutions.exercises.cuda.reduction import HISTOGRAM  # noqa: F401
from solutions.exercises.cuda.scan import BLOCK_SCAN  # noqa: F401
from solutions.exercises.cuda.softmax import ROW_SOFTMAX  # noqa: F401
