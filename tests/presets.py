"""Short names for presets in the hand-worked solution tests: m("llama-3-8b"), g("h100-sxm")."""

from __future__ import annotations

from quizzer.grading.calc import Preset, preset


def m(key: str) -> Preset:
    """A model preset."""
    return preset("models", key)


def g(key: str) -> Preset:
    """A GPU preset."""
    return preset("gpus", key)


def d(key: str) -> Preset:
    """A dtype preset."""
    return preset("dtypes", key)
