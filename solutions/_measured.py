"""Observation parameters: a number the question shows as if it had been measured (a throughput,
a kernel time, an nccl-tests line), or the one the user types instead."""

from __future__ import annotations

import math
from typing import Any

MEASURED = "measured"
"""What an observation parameter (a throughput, a kernel time) receives when the question draws
it: the solution then generates a realistic measurement from a hidden true value. Any number
given instead (`--set time_us=4720`, a figure from a paper) is used as the measurement."""


def observed(value: float | str, generate: Any) -> float:
    """The measurement: generated when the parameter says `measured`, else the number given."""
    return float(generate()) if value == MEASURED else float(value)


def sig3(value: float) -> float:
    """Round to 3 significant figures, as a measured number is quoted."""
    if value == 0:
        return 0.0
    return round(value, 2 - math.floor(math.log10(abs(value))))
