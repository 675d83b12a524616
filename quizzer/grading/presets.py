"""Presets: named hardware and model configurations (question_bank/data/*.yaml) that a
parameter can draw from."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from quizzer.grading.formatting import CalcError


class Preset(Mapping[str, Any]):
    """A named real-world configuration (a model, a GPU, a dtype) with attribute access."""

    def __init__(
        self,
        kind: str,
        key: str,
        fields: dict[str, Any],
        changed: dict[str, Any] | None = None,
    ) -> None:
        self._kind = kind
        self._key = key
        self._fields = dict(fields)
        self._changed = dict(changed or {})

    @property
    def key(self) -> str:
        """The preset's name, e.g. ``llama-3-70b``."""
        return self._key

    @property
    def kind(self) -> str:
        """Which data file it comes from."""
        return self._kind

    @property
    def overrides(self) -> dict[str, Any]:
        """The fields changed from the data file (by ``--set``), in the order they were set."""
        return dict(self._changed)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(f"{self._key} has no field {name!r}") from None

    def __getitem__(self, name: str) -> Any:
        return self._fields[name]

    def __iter__(self) -> Any:
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __str__(self) -> str:
        return str(self._fields.get("title", self._key))

    def __repr__(self) -> str:
        return f"Preset({self._kind}:{self._key})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def replace(self, **changes: Any) -> Preset:
        """A copy with some fields overridden (remembered in ``overrides``)."""
        return Preset(
            self._kind, self._key, {**self._fields, **changes}, {**self._changed, **changes}
        )


@cache
def _load_presets(path: str) -> dict[str, dict[str, Any]]:
    from quizzer.content.bank import SourceProblem, read_bank_file
    from quizzer.content.yamlsrc import YamlProblem, load_located

    # The same bounded reading as the question files: a regular file of at most 2 MB, no
    # link, no FIFO, no YAML alias.
    try:
        data = load_located(read_bank_file(Path(path)).decode("utf-8")).data or {}
    except SourceProblem as exc:
        raise CalcError(f"{path}: {exc}") from None
    except UnicodeDecodeError:
        raise CalcError(f"{path}: not UTF-8 text") from None
    except YamlProblem as exc:
        raise CalcError(f"{path}:{exc.line}:{exc.col}: {exc.message}") from None
    presets = data.get("presets", {}) if isinstance(data, dict) else None
    if not isinstance(presets, dict):
        raise CalcError(f"{path}: expected a mapping under 'presets'")
    return presets


def presets(kind: str, bank_root: Path | None = None) -> dict[str, dict[str, Any]]:
    """The presets of one kind (models, gpus, dtypes) from the bank's data directory."""
    from quizzer.base.paths import bank_dir

    root = bank_root or bank_dir()
    return _load_presets(str(root.resolve() / "data" / f"{kind}.yaml"))


def preset(kind: str, key: str, bank_root: Path | None = None) -> Preset:
    """One preset by name."""
    table = presets(kind, bank_root)
    if key not in table:
        from quizzer.content.bank import suggest

        raise CalcError(f"unknown {kind} preset {key!r}{suggest(key, table)}")
    return Preset(kind, key, table[key])
