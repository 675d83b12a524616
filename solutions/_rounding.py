"""Rounding that float noise cannot tip. A count that must be whole (GPUs, steps, blocks) is
taken with a tolerance, so that 8.000000000001 never adds a GPU and 2.9999999999999996 never
loses a step."""

from __future__ import annotations

import math

EPS = 1e-9
"""How far a float may stray from a whole number and still count as that number."""


def eps_floor(x: float) -> int:
    """floor(x) tolerant of float noise such as 2.9999999999999996."""
    return math.floor(x + EPS)


def eps_ceil(x: float) -> int:
    """ceil(x) tolerant of float noise such as 3.0000000000000004."""
    return math.ceil(x - EPS)


def ceil_div(a: int, b: int) -> int:
    """Integer ceil(a / b) for positive integers, free of float noise."""
    return -(-a // b)
