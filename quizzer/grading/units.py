"""A closed table of the units interview arithmetic uses, with exact dimensions.

Why not pint: the answers here mix bytes with SI *and* binary prefixes (KB and KiB), FLOP
counts versus FLOP rates (FLOPs vs FLOPS), tokens, and a bare ``B`` that means bytes in one
question and billions in another. A small table handles those conventions exactly, gives
precise "did you mean" suggestions, and imports in microseconds.

A quantity is a value in base units (bytes, seconds, FLOP, tokens) plus a dimension vector.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, replace
from functools import cache, lru_cache

Dim = tuple[int, int, int, int]
"""Exponents of (byte, second, FLOP, token)."""

DIMENSIONLESS: Dim = (0, 0, 0, 0)
BYTES: Dim = (1, 0, 0, 0)
SECONDS: Dim = (0, 1, 0, 0)
FLOPS_COUNT: Dim = (0, 0, 1, 0)
TOKENS: Dim = (0, 0, 0, 1)

DIM_NAMES: dict[Dim, str] = {
    DIMENSIONLESS: "a pure number",
    BYTES: "an amount of memory (bytes)",
    SECONDS: "a time",
    FLOPS_COUNT: "an amount of compute (FLOPs)",
    TOKENS: "a number of tokens",
    (1, -1, 0, 0): "a bandwidth (bytes/s)",
    (0, -1, 1, 0): "a compute rate (FLOP/s)",
    (0, -1, 0, 1): "a token rate (tokens/s)",
    (0, -1, 0, 0): "a frequency (1/s)",
    (-1, 0, 1, 0): "an arithmetic intensity (FLOP/byte)",
    (1, 0, 0, -1): "bytes per token",
    (0, 1, 0, -1): "a time per token",
}

SHORT_DIM_NAMES: dict[Dim, str] = {
    DIMENSIONLESS: "a pure number",
    BYTES: "bytes",
    SECONDS: "a time",
    FLOPS_COUNT: "FLOPs",
    TOKENS: "tokens",
    (1, -1, 0, 0): "a bandwidth",
    (0, -1, 1, 0): "FLOP/s",
    (0, -1, 0, 1): "tokens/s",
    (-1, 0, 1, 0): "FLOP/byte",
    (1, 0, 0, -1): "bytes per token",
    (0, 1, 0, -1): "a time per token",
}


def dim_name(dim: Dim, short: bool = False) -> str:
    """Human name of a dimension."""
    table = SHORT_DIM_NAMES if short else DIM_NAMES
    return table.get(dim) or "a quantity in " + _dim_formula(dim)


def _dim_formula(dim: Dim) -> str:
    names = ("B", "s", "FLOP", "token")
    top = [f"{n}^{e}" if e != 1 else n for n, e in zip(names, dim, strict=True) if e > 0]
    bottom = [f"{n}^{-e}" if e != -1 else n for n, e in zip(names, dim, strict=True) if e < 0]
    return "·".join(top or ["1"]) + ("/" + "·".join(bottom) if bottom else "")


@dataclass(frozen=True)
class Unit:
    """A unit: how many base units one of it is, and its dimension."""

    name: str
    factor: float
    dim: Dim


DECIMAL = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
SMALL = {"m": 1e-3, "u": 1e-6, "µ": 1e-6, "μ": 1e-6, "n": 1e-9, "p": 1e-12}

COUNT_SUFFIXES = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "bn": 1e9, "T": 1e12}
"""Multipliers written after a plain number: 70B parameters, 1.5M tokens, 2T tokens."""


@cache
def unit_table() -> dict[str, Unit]:
    """Every unit name the parser accepts."""
    table: dict[str, Unit] = {}

    def add(names: list[str], factor: float, dim: Dim) -> None:
        for name in names:
            table.setdefault(name, Unit(name, factor, dim))

    add(["B", "byte", "bytes"], 1, BYTES)
    add(["bit", "bits", "b"], 1 / 8, BYTES)
    for p, f in {**DECIMAL, **BINARY}.items():
        add([f"{p}B", f"{p}byte", f"{p}bytes"], f, BYTES)
        add([f"{p}bit", f"{p}b"], f / 8, BYTES)
        add([f"{p}B/s", f"{p}Bps"], f, (1, -1, 0, 0))
        add([f"{p}bit/s", f"{p}bps", f"{p}b/s"], f / 8, (1, -1, 0, 0))
    add(["B/s"], 1, (1, -1, 0, 0))
    add(["s", "sec", "secs", "second", "seconds"], 1, SECONDS)
    for p, f in SMALL.items():
        add([f"{p}s", f"{p}sec"], f, SECONDS)
    add(["min", "mins", "minute", "minutes"], 60, SECONDS)
    add(["h", "hr", "hrs", "hour", "hours"], 3600, SECONDS)
    add(["d", "day", "days"], 86400, SECONDS)
    add(["FLOP", "FLOPs", "flop", "flops_count"], 1, FLOPS_COUNT)
    add(["FLOPS", "FLOP/s", "flop/s"], 1, (0, -1, 1, 0))
    for p, f in DECIMAL.items():
        add([f"{p}FLOP", f"{p}FLOPs", f"{p}flop"], f, FLOPS_COUNT)
        add([f"{p}FLOPS", f"{p}FLOP/s", f"{p}flops"], f, (0, -1, 1, 0))
        add([f"{p}tokens/s", f"{p}tok/s"], f, (0, -1, 0, 1))
        add([f"{p}tokens", f"{p}token"], f, TOKENS)
    add(["OPS", "TOPS"], 1, (0, -1, 1, 0))
    table["TOPS"] = Unit("TOPS", 1e12, (0, -1, 1, 0))
    add(["token", "tokens", "tok", "toks"], 1, TOKENS)
    add(["tokens/s", "tok/s", "token/s", "tps"], 1, (0, -1, 0, 1))
    add(["1", "x", "×"], 1, DIMENSIONLESS)
    add(["%", "percent"], 0.01, DIMENSIONLESS)
    add(["FLOP/B", "FLOP/byte", "FLOPs/byte", "FLOPs/B", "flop/byte"], 1, (-1, 0, 1, 0))
    add(["B/token", "bytes/token"], 1, (1, 0, 0, -1))
    for p, f in {**DECIMAL, **BINARY}.items():
        add([f"{p}B/token"], f, (1, 0, 0, -1))
    add(["ms/token", "ms/tok"], 1e-3, (0, 1, 0, -1))
    add(["s/token"], 1, (0, 1, 0, -1))
    add(["Hz"], 1, (0, -1, 0, 0))
    add(["GHz"], 1e9, (0, -1, 0, 0))
    add(["MHz"], 1e6, (0, -1, 0, 0))
    return table


class UnitError(ValueError):
    """A unit string that cannot be read."""


_SPLIT = re.compile(r"\s*([/*·])\s*")
_LOWER_BYTES = re.compile(r"([kmgtpe])(i?)(b|bytes?)")
"""`gb`, `gib`, `mbytes`: an all-lowercase prefixed byte unit, read as bytes (GB, GiB, MB).
Strict SI would make `gb` gigabits, but nobody types that meaning it; bits are written `Gb`,
`Gbit` or, for rates, `Gbps`."""


def _resolve(part: str, want: Dim | None) -> Unit:
    """One unit name: exact, or a lowercase byte unit, or a unique case-insensitive match
    (preferring the wanted dimension). Raises UnitError saying why not."""
    table = unit_table()
    lowered = _LOWER_BYTES.fullmatch(part)
    if lowered:
        prefix, binary, _ = lowered.groups()
        canonical = f"{'K' if prefix == 'k' and not binary else prefix.upper()}{binary}B"
        return replace(table[canonical], name=canonical)
    if part in table:
        return table[part]
    same: dict[tuple[float, Dim], Unit] = {}
    for name, unit in table.items():
        if name.lower() == part.lower():
            same.setdefault((unit.factor, unit.dim), replace(unit, name=name))
    if want is not None and len(same) > 1:
        same = {k: u for k, u in same.items() if u.dim == want} or same
    if len(same) == 1:
        return next(iter(same.values()))
    if same:
        names = " or ".join(sorted(u.name for u in same.values()))
        raise UnitError(f"{part!r} could be {names}: write it with its capitals (B bytes, b bits)")
    raise UnitError(f"unknown unit {part!r}{suggest_unit(part, want)}")


def parse_unit(text: str, want: Dim | None = None) -> Unit:
    """Read a unit such as ``GiB``, ``GB/s``, ``TFLOP/s`` or ``B/token``. ``want``: the
    dimension the caller expects, which settles a unit typed in the wrong case (``tflops``)
    and steers the "did you mean" suggestion. The returned unit's name is the unit as
    understood (``gb`` comes back as ``GB``)."""
    text = text.strip()
    table = unit_table()
    if text in table and not _LOWER_BYTES.fullmatch(text):
        return table[text]
    if not text:
        raise UnitError("empty unit")
    parts = _SPLIT.split(text)
    factor, dim = 1.0, [0, 0, 0, 0]
    op = "*"
    names = []
    for index, part in enumerate(parts):
        if index % 2 == 1:
            op = part
            names.append(part)
            continue
        unit = _resolve(part, want if len(parts) == 1 else None)
        names.append(unit.name)
        sign = -1 if op == "/" else 1
        factor = factor * unit.factor if sign > 0 else factor / unit.factor
        dim = [d + sign * e for d, e in zip(dim, unit.dim, strict=True)]
    recased = [n for n, p in zip(names, parts, strict=True) if n != p]
    name = "".join(names) if recased else text
    return Unit(name, factor, (dim[0], dim[1], dim[2], dim[3]))


@lru_cache(maxsize=1024)
def known_unit(text: str) -> Unit | None:
    """The unit ``text`` names, or None. For callers that only try whether a text is a unit (a
    template's format spec may be ``GB`` or ``.2f``): each text is tried once per process, so
    a miss does not build its did-you-mean message again and again."""
    try:
        return parse_unit(text)
    except UnitError:
        return None


COMMON_UNITS = [
    "B",
    "KB",
    "MB",
    "GB",
    "TB",
    "KiB",
    "MiB",
    "GiB",
    "TiB",
    "bit",
    "Gbit",
    "GB/s",
    "TB/s",
    "GiB/s",
    "Gbit/s",
    "s",
    "ms",
    "us",
    "µs",
    "ns",
    "min",
    "h",
    "day",
    "FLOP",
    "GFLOP",
    "TFLOP",
    "PFLOP",
    "TFLOPS",
    "PFLOPS",
    "tokens",
    "tokens/s",
    "%",
    "FLOP/byte",
    "B/token",
    "KB/token",
    "MB/token",
    "ms/token",
]


def suggest_unit(text: str, want: Dim | None = None) -> str:
    """' (did you mean X?)' for the closest common unit, or ''. With ``want``, units of that
    dimension come first: `GBs` on a question in bytes suggests GB, on one in GB/s, GB/s."""
    squashed = text.replace(" ", "")
    pools = [COMMON_UNITS]
    if want is not None:
        pools.insert(0, [u for u in COMMON_UNITS if parse_unit(u).dim == want])
    for pool in pools:
        close = difflib.get_close_matches(squashed, pool, n=1, cutoff=0.5)
        if not close:
            lowered = {u.lower(): u for u in pool}
            if squashed.lower() in lowered:
                close = [lowered[squashed.lower()]]
        if close:
            return f" (did you mean {close[0]}?)"
    return ""
