"""Static checks of an exercise file, before anything runs: it must parse and compile, and import
only a short list of modules. Nothing here executes the file."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

ALLOWED_IMPORTS = (
    "numpy",
    "math",
    "typing",
    "functools",
    "itertools",
    "collections",
    "heapq",
    "dataclasses",
)
"""What an exercise file may import (plus `__future__`, and an exercise's own `imports`)."""
REFUSED_NAMES = frozenset(
    {"__import__", "exec", "eval", "compile", "open", "input", "breakpoint", "globals", "vars"}
)
"""Built-ins an operator never needs: they load code or touch files outside the checks."""
REFUSED_ATTRIBUTES = frozenset(
    {"__subclasses__", "__globals__", "__builtins__", "__code__", "__loader__", "__import__"}
)
"""Attributes that reach the interpreter's internals (the usual ways around the name check)."""
_MAY_IMPORT = "exercise files may import "


@dataclass(frozen=True)
class Refusal:
    """Why a file is not run: a syntax error or a refused import, at a line."""

    line: int
    col: int
    message: str
    code: str = ""


def scan_source(source: str, extra_imports: Sequence[str] = ()) -> Refusal | None:
    """The first reason not to run ``source`` (a syntax error, a refused import or built-in),
    or None. Parses and compiles without executing anything."""
    try:
        tree = ast.parse(source)
        compile(tree, "<exercise>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return Refusal(
            exc.lineno or 1, exc.offset or 1, f"SyntaxError: {exc.msg}", (exc.text or "").rstrip()
        )
    except ValueError as exc:  # null bytes
        return Refusal(1, 1, f"cannot be compiled: {exc}")
    allowed = {*ALLOWED_IMPORTS, *extra_imports}
    listed = ", ".join(sorted(allowed))
    lines = source.splitlines()
    found: list[Refusal] = []

    def refuse(node: ast.AST, message: str) -> None:
        line = getattr(node, "lineno", 1)
        code = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        found.append(Refusal(line, getattr(node, "col_offset", 0) + 1, message, code))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in allowed:
                    refuse(
                        node, f"`import {alias.name}` is not allowed here; {_MAY_IMPORT}{listed}"
                    )
        elif isinstance(node, ast.ImportFrom):
            top = (node.module or "").split(".")[0]
            if node.level:
                refuse(node, "relative imports are not allowed: the file is checked on its own")
            elif top != "__future__" and top not in allowed:
                refuse(
                    node,
                    f"`from {node.module} import ...` is not allowed here; {_MAY_IMPORT}{listed}",
                )
        elif isinstance(node, ast.Name) and node.id in REFUSED_NAMES:
            refuse(
                node,
                f"`{node.id}` is not available in exercises: an operator needs no files or "
                "dynamic code",
            )
        elif isinstance(node, ast.Attribute) and node.attr in REFUSED_ATTRIBUTES:
            refuse(node, f"`.{node.attr}` is not available in exercises")
    return min(found, key=lambda r: (r.line, r.col)) if found else None


def defines(source: str, name: str) -> bool:
    """Whether ``source`` defines ``name`` at its top level."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == name:
                return True
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
    return False
