"""Temporary re-exports while the question files move to solutions.exercises.cuda."""

from __future__ import annotations

from solutions.exercises.cuda.elementwise import VECTOR_ADD  # noqa: F401
from solutions.exercises.cuda.reduction import BLOCK_SUM  # noqa: F401
