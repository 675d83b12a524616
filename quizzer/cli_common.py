"""Helpers shared by the CLI modules: errors, JSON output, loading the bank."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import click

from quizzer.content.bank import Bank, BankError, load_bank


def fail(message: str, code: int = 1) -> NoReturn:
    """Print an error to stderr and exit with ``code``."""
    click.echo(f"quizzer: {message}", err=True)
    sys.exit(code)


def open_bank(*, allow_placeholders: bool = False) -> Bank:
    """Load the bank or exit 1 listing every problem (``allow_placeholders``: see load_bank)."""
    try:
        return load_bank(allow_placeholders=allow_placeholders)
    except BankError as exc:
        for diagnostic in exc.diagnostics:
            click.echo(str(diagnostic), err=True)
        fail(f"{len(exc.diagnostics)} problem(s) in the question bank; run `quizzer validate`")


def echo_json(data: Any) -> None:
    """Print data as indented UTF-8 JSON."""
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
