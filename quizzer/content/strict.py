"""The base every content model shares (Strict) and the key patterns of ids and catalog keys."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

ID_PATTERN = r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$"
"""Ids are stable kebab-case: lower-case letters, digits and single hyphens (dots allowed)."""

KEY_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
"""Topic and company keys: kebab-case, lower-case letters and digits joined by single hyphens.
A topic key names a file (questions/<module>/<topic>.yaml), so nothing else may appear in it."""
CHAPTER_PATTERN = r"^m[0-9]+-(?:c[0-9]+|beyond)$"
"""Chapter keys: ``m<module>-c<chapter>``, or ``m<module>-beyond`` for topics beyond the guide."""


def check_key(value: str, pattern: str, what: str) -> str:
    """``value`` if it matches ``pattern``; else a ValueError naming ``what`` it should be."""
    if re.fullmatch(pattern, value) is None:
        raise ValueError(f"{value!r} is not a valid {what}")
    return value


KEBAB_RULE = "key: lower-case letters and digits joined by single hyphens"
"""How a kebab-case key is spelled, as validation messages say it."""


class Strict(BaseModel):
    """Base for every content model: unknown fields are an error, docstrings become descriptions."""

    # defer_build: schemas are built on first validation, so loading a cached bank (which
    # never validates) does not pay for them at start-up. The attribute docstrings are read
    # from the source of models.py and catalogs.py by quizzer.content.schema_doc when the schema
    # is generated, rather than by pydantic at import (use_attribute_docstrings costs ~50 ms per
    # start).
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
