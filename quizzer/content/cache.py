"""The bank cache: a clean load stored as JSON in the cache directory, keyed by the content
of every bank file (the fingerprint), so the next start skips parsing and any edit is seen.

Reading it runs no code whatever the file holds: it is plain JSON, and the models are rebuilt
from their own dumps field by field."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from pydantic_core import from_json  # pydantic's JSON parser: plain data, ~1.4x json.loads

from quizzer import __version__
from quizzer.content.bank_model import Bank, SourceLoc
from quizzer.content.catalogs import (
    Article,
    Chapter,
    Company,
    InterviewPage,
    Module,
    Reading,
    Topic,
    Track,
)
from quizzer.content.models import (
    QUESTION_MODELS,
    AnyQuestion,
    CompanyTag,
    NumericQuestion,
    ParamSpec,
    Reference,
    ZhBlock,
)
from quizzer.content.sources import read_bank_file
from quizzer.content.strict import Strict

CACHE_FORMAT = "quizzer-bank-cache/2"
"""Names the cache file's JSON layout; a file with any other is ignored."""
MAX_CACHE_BYTES = 256 * 2**20
"""The largest cache file read."""
_M = TypeVar("_M", bound=Strict)


def bank_fingerprint(root: Path, sources: dict[Path, bytes]) -> str:
    """A digest of the version and of every file's name and content."""
    digest = hashlib.sha256(__version__.encode())
    for path, data in sources.items():
        name = str(path.relative_to(root)).encode()
        for part in (name, data):
            digest.update(len(part).to_bytes(8, "big"))
            digest.update(part)
    return digest.hexdigest()


def cache_file(root: Path) -> Path:
    """Where the cache of the bank at ``root`` is kept: one file per bank folder."""
    from quizzer.base.paths import cache_dir

    tag = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return cache_dir() / f"bank-{tag}.json"


KEPT_IN_MEMORY = 4
"""How many banks a process keeps in each memo below (a user's process loads one bank; the
tests load many)."""

_DECODED: dict[Path, tuple[tuple[int, ...], str, Bank]] = {}
"""Cache file -> (its identity, the fingerprint it holds, the bank decoded from it). A process
that loads the same bank again (the app's screens, tests running many commands in one process)
skips decoding an unchanged file; any change to the file (its content, mode or owner, another
file in its place) shows in its identity, and it is read and checked again."""

_PARSED: dict[tuple[str, Path, str], tuple[Bank, bytes | None]] = {}
"""(working directory, bank root, fingerprint) -> the bank parsed from exactly these files in
this process, and its verified cache file content (None: JSON cannot carry it). Messages name
files relative to the working directory, hence its place in the key."""


def read_cache(root: Path, fingerprint: str) -> Bank | None:
    """The cached bank if the cache file is ours and was written for exactly these files.

    The cache is JSON: reading it runs no code whatever it holds. It is read only if it is a
    regular file of the current user that no one else can write, and used only if its format
    and fingerprint match and every record has exactly its model's fields; anything else (a
    corrupt, truncated, planted or stale file) is ignored and the bank is parsed again. A file
    this process decoded (or wrote) before and that has not changed since is not read again."""
    path = cache_file(root)
    identity = _identity(path)
    kept = _DECODED.get(path)
    if kept is not None and identity is not None and kept[:2] == (identity, fingerprint):
        return kept[2]
    try:
        payload = from_json(read_bank_file(path, MAX_CACHE_BYTES, private=True))
        if (
            not isinstance(payload, dict)
            or payload.get("format") != CACHE_FORMAT
            or payload.get("fingerprint") != fingerprint
        ):
            return None
        bank = _bank_from_json(root, payload["bank"])
    except Exception:  # whatever is wrong with the file, it only costs a parse
        return None
    if identity is not None:
        _keep(_DECODED, path, (identity, fingerprint, bank))
    return bank


def recall_parsed(root: Path, fingerprint: str) -> Bank | None:
    """The bank this process parsed from exactly these files, if it is still kept."""
    kept = _PARSED.get((os.getcwd(), root, fingerprint))
    return kept[0] if kept is not None else None


def write_cache(root: Path, fingerprint: str, bank: Bank) -> None:
    """Store a clean load for next time, if it survives the JSON round trip unchanged, and keep
    it in memory for this process (parsing the same files again is then skipped)."""
    key = (os.getcwd(), root, fingerprint)
    kept = _PARSED.get(key)
    blob = kept[1] if kept is not None and kept[0] is bank else _encode(root, fingerprint, bank)
    _keep(_PARSED, key, (bank, blob))
    if blob is None:
        return
    path = cache_file(root)
    identity = _write_file(path, blob)
    if identity is not None:
        _keep(_DECODED, path, (identity, fingerprint, bank))


def _encode(root: Path, fingerprint: str, bank: Bank) -> bytes | None:
    """The cache file's content for ``bank``; None when a value would not come back the same."""
    payload = {"format": CACHE_FORMAT, "fingerprint": fingerprint, "bank": _bank_to_json(bank)}
    try:
        blob = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        # A value JSON cannot carry exactly (a YAML date, bytes, a non-string key) would come
        # back different: then the bank is simply not cached.
        if _bank_from_json(root, from_json(blob)["bank"]) != bank:
            return None
    except (TypeError, ValueError, KeyError, AttributeError):
        return None
    return blob.encode("utf-8")


def _write_file(target: Path, blob: bytes) -> tuple[int, ...] | None:
    """Write the cache file; its identity once written, or None if it could not be written
    (a cache that cannot be written only costs speed) or is not the file written."""
    import tempfile  # only when a cache is written, not on every start

    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # A new file of our own (O_EXCL, mode 0600), renamed over the old cache: nothing that
        # was planted at either name is ever opened for writing.
        fd, tmp = tempfile.mkstemp(prefix=f"{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(blob)
                handle.flush()
                written = os.fstat(handle.fileno())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError:
        return None
    identity = _identity(target)
    # Another process may have put its own file there since: then it is read when next used.
    if identity is None or identity[:2] != (written.st_dev, written.st_ino):
        return None
    return identity


def _identity(path: Path) -> tuple[int, ...] | None:
    """Everything about a file that changes when it is written, replaced or re-permissioned."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (
        info.st_dev,
        info.st_ino,
        info.st_size,
        info.st_mtime_ns,
        info.st_ctime_ns,
        info.st_mode,
        info.st_uid,
    )


def _keep(memo: dict[Any, Any], key: Any, value: Any) -> None:
    """Put ``value`` in ``memo`` as its newest entry, dropping the oldest beyond the limit."""
    memo.pop(key, None)
    memo[key] = value
    while len(memo) > KEPT_IN_MEMORY:
        memo.pop(next(iter(memo)))


def _bank_to_json(bank: Bank) -> dict[str, Any]:
    """The bank as plain JSON data (what ``_bank_from_json`` reads back)."""
    return {
        "questions": [q.model_dump() for q in bank.questions],
        "articles": [a.model_dump() for a in bank.articles.values()],
        "companies": [c.model_dump() for c in bank.companies.values()],
        "modules": [m.model_dump() for m in bank.modules],
        "interviews": [i.model_dump() for i in bank.interviews.values()],
        "readings": [r.model_dump() for r in bank.readings.values()],
        "locations": {key: [loc.path, loc.line] for key, loc in bank.locations.items()},
        "files": bank.files,
        "previous": bank.previous,
        "tracks": [t.model_dump() for t in bank.tracks.values()],
    }


@cache
def _field_names(model: type[Strict]) -> frozenset[str]:
    """The field names of ``model`` (computed once per model)."""
    return frozenset(model.model_fields)


def _construct(model: type[_M], values: dict[str, Any]) -> _M:
    """A model from its own dump, without validating it again (the bank was validated before
    it was cached, and the round trip was checked). Every field must be there and nothing
    else. This is what unpickling a model does (``__setstate__``), minus any code execution;
    it is several times faster than ``model_construct``."""
    if values.keys() != _field_names(model):
        raise ValueError(f"cached {model.__name__} has other fields")
    made = model.__new__(model)
    made.__setstate__(
        {
            "__dict__": values,
            "__pydantic_fields_set__": set(values),
            "__pydantic_extra__": None,
            "__pydantic_private__": None,
        }
    )
    return made


def _question_from_json(values: dict[str, Any]) -> AnyQuestion:
    """A question from its dump, nested models included."""
    model = QUESTION_MODELS[values["kind"]]
    values["companies"] = [_construct(CompanyTag, tag) for tag in values["companies"]]
    values["references"] = [_construct(Reference, ref) for ref in values["references"]]
    if values["zh"] is not None:
        values["zh"] = _construct(ZhBlock, values["zh"])
    if model is NumericQuestion:
        params = {}
        for name, spec in values["params"].items():
            if spec["range"] is not None:
                spec["range"] = tuple(spec["range"])
            params[name] = _construct(ParamSpec, spec)
        values["params"] = params
    return _construct(model, values)


def _module_from_json(values: dict[str, Any]) -> Module:
    """A taxonomy module from its dump, with its chapters and topics."""
    chapters = []
    for chapter in values["chapters"]:
        chapter["topics"] = [_construct(Topic, topic) for topic in chapter["topics"]]
        chapters.append(_construct(Chapter, chapter))
    values["chapters"] = chapters
    return _construct(Module, values)


def _bank_from_json(root: Path, data: dict[str, Any]) -> Bank:
    """The bank from ``_bank_to_json``'s data; the topic index is rebuilt from the modules."""
    articles = [_construct(Article, row) for row in data["articles"]]
    companies = [_construct(Company, row) for row in data["companies"]]
    interviews = [_construct(InterviewPage, row) for row in data["interviews"]]
    readings = [_construct(Reading, row) for row in data["readings"]]
    modules = [_module_from_json(row) for row in data["modules"]]
    topics: dict[str, Topic] = {}
    topic_chapter: dict[str, str] = {}
    for module in modules:
        for chapter in module.chapters:
            for topic in chapter.topics:
                topics[topic.key] = topic
                topic_chapter[topic.key] = chapter.key
    return Bank(
        root=root,
        questions=[_question_from_json(row) for row in data["questions"]],
        articles={a.key: a for a in articles},
        companies={c.key: c for c in companies},
        modules=modules,
        topics=topics,
        topic_chapter=topic_chapter,
        locations={
            key: SourceLoc(str(path), int(line)) for key, (path, line) in data["locations"].items()
        },
        files=[str(name) for name in data["files"]],
        previous={str(old): str(new) for old, new in data["previous"].items()},
        interviews={page.file: page for page in interviews},
        readings={reading.key: reading for reading in readings},
        tracks={row["key"]: _track_from_json(row) for row in data["tracks"]},
    )


def _track_from_json(values: dict[str, Any]) -> Track:
    """A track from its dump."""
    # JSON object keys are strings; a track's module numbers are ints.
    values["modules"] = {int(number): weight for number, weight in values["modules"].items()}
    return _construct(Track, values)
