"""Unit constants for solutions, so no bare 1e9 hides in a formula."""

KB = 1e3
MB = 1e6
GB = 1e9
TB = 1e12
KiB = 2**10
MiB = 2**20
GiB = 2**30
TFLOPS = 1e12
"""FLOP/s in one TFLOPS."""
GBPS = 1e9
"""Bytes/s in one GB/s."""
MS = 1e-3
US = 1e-6
HOUR = 3600.0
DAY = 86400.0
