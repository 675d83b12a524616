"""Safe YAML loading that remembers where every value came from.

PyYAML's SafeLoader builds plain data but forgets positions. We compose the node tree
(which keeps marks), refuse any tag a safe loader would not build, and construct the data
ourselves while recording ``path -> (line, col)`` for every key and value, so validation
errors can point at the offending field.

Building is bounded by the size of the text: an alias (``*name``) would let a few hundred bytes
stand for billions of values (an "alias bomb") or for a value that contains itself, so aliases
are refused (bank files never need them), and so is nesting deeper than MAX_DEPTH.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

Path_ = tuple[str | int, ...]
"""A location inside a document: mapping keys and sequence indexes."""

SAFE_TAG_PREFIX = "tag:yaml.org,2002:"
SAFE_TAGS = {
    SAFE_TAG_PREFIX + name
    for name in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp", "binary")
}
MAX_DEPTH = 64
"""Deepest nesting of mappings and lists accepted (a question file needs about five)."""


@dataclass
class Located:
    """A document's data plus the 1-based (line, column) of every value and key in it."""

    data: Any
    values: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    keys: dict[Path_, tuple[int, int]] = field(default_factory=dict)

    def where(self, path: Path_, *, key: bool = False) -> tuple[int, int]:
        """Line and column of ``path``, or of its nearest recorded ancestor."""
        table = self.keys if key else self.values
        probe = tuple(path)
        while probe:
            if probe in table:
                return table[probe]
            if not key and probe in self.keys:
                return self.keys[probe]
            probe = probe[:-1]
        return self.values.get((), (1, 1))


class YamlProblem(Exception):
    """A YAML document could not be read; ``line``/``col`` are 1-based."""

    def __init__(self, message: str, line: int, col: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


_SafeBase: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML was built with it (about 10x faster), else the pure one.
Both compose nodes with line/column marks and construct only plain data."""


class SafeLoader(_SafeBase):  # type: ignore[valid-type,misc]
    """PyYAML's safe loader, reading ``1e9`` and ``6.7e9`` as floats as YAML 1.2 does.

    YAML 1.1 (PyYAML's default) wants a dot and a signed exponent (``1.0e+9``), so ``70e9``
    would silently become a string; contributors write the short form."""


SafeLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def safe_load(text: str) -> Any:
    """Plain data from YAML text with the safe loader above (no positions)."""
    return yaml.load(text, Loader=SafeLoader)


def _reader_problem(text: str, exc: yaml.reader.ReaderError) -> YamlProblem:
    """A character YAML refuses (control characters and the like), located."""
    before = text[: exc.position]
    line = before.count("\n") + 1
    col = exc.position - (before.rfind("\n") + 1) + 1
    char = exc.character if isinstance(exc.character, str) else chr(exc.character)
    return YamlProblem(f"character {char!r} (U+{ord(char):04X}) is not allowed in YAML", line, col)


def _pos(mark: yaml.Mark | None) -> tuple[int, int]:
    if mark is None:
        return (1, 1)
    return (mark.line + 1, mark.column + 1)


def load_located(text: str) -> Located:
    """Parse one YAML document safely, keeping positions. Raises YamlProblem."""
    try:
        loader = SafeLoader(text)
    except yaml.reader.ReaderError as exc:
        raise _reader_problem(text, exc) from None
    try:
        try:
            root = loader.get_single_node()
        except yaml.MarkedYAMLError as exc:
            line, col = _pos(exc.problem_mark or exc.context_mark)
            message = f"YAML syntax: {exc.problem or exc.context}"
            if exc.context and exc.context_mark is not None and exc.problem:
                message += f" ({exc.context} started at line {exc.context_mark.line + 1})"
            raise YamlProblem(message, line, col) from None
        except yaml.reader.ReaderError as exc:
            raise _reader_problem(text, exc) from None
        except yaml.YAMLError as exc:
            raise YamlProblem(f"YAML: {exc}", 1, 1) from None
        located = Located(data=None)
        if root is None:
            return located
        # An alias needs an anchor (&name): without one, no node can be met twice.
        seen: set[int] | None = set() if "&" in text else None
        try:
            located.data = _build(loader, root, (), located, seen)
        except _AliasFound:
            raise _alias_problem(text) from None
        except RecursionError:
            raise YamlProblem(f"nested more than {MAX_DEPTH} levels deep", 1, 1) from None
        return located
    finally:
        loader.dispose()


class _AliasFound(Exception):
    """A node was reached a second time: the document uses an alias."""


def _alias_problem(text: str) -> YamlProblem:
    """Where the first alias is (found again from the events, which carry its own mark)."""
    line, col, name = 1, 1, ""
    try:
        for event in yaml.parse(text, Loader=SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                mark = event.start_mark
                if mark is not None:
                    line, col = mark.line + 1, mark.column + 1
                name = f" '*{event.anchor}'"
                break
    except yaml.YAMLError:
        pass
    return YamlProblem(
        f"YAML alias{name} is not allowed: question files never need anchors (&) or aliases (*); "
        "write the value out",
        line,
        col,
    )


def _build(
    loader: SafeLoader, node: yaml.Node, path: Path_, out: Located, seen: set[int] | None
) -> Any:
    # Without aliases the node graph is a tree; a node met twice is an alias, and following it
    # could expand exponentially (or forever, for a value that contains itself).
    if seen is not None:
        if id(node) in seen:
            raise _AliasFound
        seen.add(id(node))
    out.values[path] = _pos(node.start_mark)
    if node.tag not in SAFE_TAGS:
        line, col = _pos(node.start_mark)
        raise YamlProblem(f"tag {node.tag!r} is not allowed (only plain YAML data)", line, col)
    if len(path) >= MAX_DEPTH and isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
        line, col = _pos(node.start_mark)
        raise YamlProblem(f"nested more than {MAX_DEPTH} levels deep", line, col)
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                line, col = _pos(key_node.start_mark)
                raise YamlProblem("a mapping key must be a plain scalar", line, col)
            if key_node.tag == SAFE_TAG_PREFIX + "merge" or key_node.value == "<<":
                line, col = _pos(key_node.start_mark)
                raise YamlProblem("merge keys (<<) are not supported", line, col)
            key = _build(loader, key_node, path + ("<key>",), out, seen)
            if not isinstance(key, (str, int)):
                line, col = _pos(key_node.start_mark)
                raise YamlProblem(f"mapping key {key!r} must be a string", line, col)
            if key in result:
                line, col = _pos(key_node.start_mark)
                first = out.keys[path + (key,)]
                raise YamlProblem(f"duplicate key {key!r} (first at line {first[0]})", line, col)
            out.keys[path + (key,)] = _pos(key_node.start_mark)
            result[key] = _build(loader, value_node, path + (key,), out, seen)
        out.values.pop(path + ("<key>",), None)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [
            _build(loader, item, path + (index,), out, seen)
            for index, item in enumerate(node.value)
        ]
    try:
        return loader.construct_object(node, deep=True)
    except yaml.YAMLError as exc:
        line, col = _pos(node.start_mark)
        raise YamlProblem(f"cannot read value: {exc}", line, col) from None
