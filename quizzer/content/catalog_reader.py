"""The one way a catalog file is read: a YAML mapping with a list of rows under one key, each row
validated with its pydantic model, every problem reported at path:line:col, repeated keys
reported. Each catalog (catalog_loader.py, tracks.py) is a CatalogFile plus its own
cross-checks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, NamedTuple, TypeVar

from pydantic import ValidationError

if TYPE_CHECKING:
    from quizzer.content.yamlsrc import Located

from quizzer.content.diagnostics import Collector, Reporter
from quizzer.content.parse import parse_yaml, report_validation
from quizzer.content.strict import Strict

M = TypeVar("M", bound=Strict)


@dataclass(frozen=True)
class CatalogFile(Generic[M]):
    """One catalog of the bank: the file ``name`` holds a mapping whose list under ``top`` has
    one ``model`` per row."""

    name: str
    """The file, in the bank's root, e.g. `articles.yaml`."""
    top: str
    """The key of the list of rows, e.g. `articles`."""
    model: type[M]
    """What one row is."""
    key: str = "key"
    """The field that names a row: the table of rows is keyed by it."""
    duplicates: Literal["row", "key"] | None = "row"
    """Where a second row with an already used key is reported (`duplicate key 'x'`): at the
    row, or at its key field; None: not checked here (a later row replaces an earlier one)."""


RawCheck = Callable[[Any, Reporter], None]
"""Checks one raw row before validation, so its problems are reported even when the row fails
the schema."""


class Row(NamedTuple, Generic[M]):
    """One valid catalog row, and where to report problems with it."""

    item: M
    report: Reporter


@dataclass(frozen=True)
class CatalogReader:
    """Reads the catalogs of one bank from its files' bytes; every problem goes to ``errors``."""

    root: Path
    sources: dict[Path, bytes]
    errors: Collector

    def rows(self, catalog: CatalogFile[M], check_raw: RawCheck | None = None) -> list[Row[M]]:
        """Every row of ``catalog`` that passes its model, with a reporter pointing into it.
        Rows that fail are reported; a missing or unreadable file was reported when read."""
        path = self.root / catalog.name
        doc = self._document(path, catalog.top)
        if doc is None:
            return []
        found: list[Row[M]] = []
        for index, raw in enumerate(doc.data[catalog.top]):
            report = Reporter(self.errors, path, doc, (catalog.top, index))
            if check_raw is not None:
                check_raw(raw, report)
            try:
                item = catalog.model.model_validate(raw)
            except ValidationError as exc:
                report_validation(exc, path, report.base, report.doc, self.errors)
                continue
            found.append(Row(item, report))
        return found

    def table(
        self,
        catalog: CatalogFile[M],
        check_raw: RawCheck | None = None,
        check: Callable[[M, Reporter], None] | None = None,
    ) -> dict[str, M]:
        """The valid rows of ``catalog`` by key; ``check`` cross-checks each valid row."""
        table: dict[str, M] = {}
        for item, report in self.rows(catalog, check_raw):
            key = getattr(item, catalog.key)
            if catalog.duplicates is not None and key in table:
                at = (catalog.key,) if catalog.duplicates == "key" else ()
                report(at, f"duplicate key {key!r}")
            if check is not None:
                check(item, report)
            table[key] = item
        return table

    def _document(self, path: Path, top: str) -> Located | None:
        """The located YAML of a catalog, if it is a mapping with a list under ``top``."""
        data = self.sources.get(path)
        if data is None:  # missing or unreadable: already reported
            return None
        doc = parse_yaml(path, data, self.errors, remember=True)
        if doc is None:
            return None
        if not isinstance(doc.data, dict) or not isinstance(doc.data.get(top), list):
            self.errors.add(path, 1, 1, f"expected a mapping with a list under {top!r}")
            return None
        return doc
