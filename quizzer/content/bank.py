"""Load and validate the question bank: YAML -> Bank, with every error as path:line:col.

The loader never stops at the first problem: it reads every file, validates every
question, checks every cross-reference, and returns all diagnostics together.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import hashlib
import json
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError
from pydantic_core import from_json  # pydantic's JSON parser: plain data, ~1.4x json.loads

if TYPE_CHECKING:
    from quizzer.content.yamlsrc import Located, Path_

from quizzer import __version__
from quizzer.content.language import reading_title, title_in
from quizzer.content.models import (
    ALL_KINDS,
    OPTION_LETTERS,
    AnyQuestion,
    Article,
    Chapter,
    ChoiceQuestion,
    CodeQuestion,
    Company,
    CompanyTag,
    InterviewPage,
    Module,
    NumericQuestion,
    ParamSpec,
    Reading,
    RecallQuestion,
    Reference,
    Strict,
    Topic,
    Track,
    ZhBlock,
    question_adapter,
)

CATALOGS = (
    "articles.yaml",
    "companies.yaml",
    "interviews.yaml",
    "readings.yaml",
    "topics.yaml",
    "tracks.yaml",
)
QUESTIONS_DIR = "questions"
MODULE_FOLDERS = ("prerequisites", "cuda", "distributed", "inference")
LAYOUT = f"questions/<module>/<topic>.yaml (module: {', '.join(MODULE_FOLDERS)})"
"""Where question files live; the wheel's package-data glob ``questions/*/*.yaml`` ships them."""
MAX_FILE_BYTES = 2 * 2**20
"""The largest bank file read (the biggest shipped question file is about 160 KB)."""
MAX_FOLDER_DEPTH = 8
"""How deep under questions/ misplaced files are still looked for (and reported)."""
SYMLINK_REFUSED = "is a symbolic link; the bank reads no links (put the file itself here)"
CACHE_FORMAT = "quizzer-bank-cache/2"
"""Names the cache file's JSON layout; a file with any other is ignored."""
MAX_CACHE_BYTES = 256 * 2**20
_QUESTION_MODELS: dict[str, type[AnyQuestion]] = {
    "recall": RecallQuestion,
    "choice": ChoiceQuestion,
    "numeric": NumericQuestion,
    "code": CodeQuestion,
}
_M = TypeVar("_M", bound=Strict)
_WORD = "(?<![A-Za-z0-9_]){}(?![A-Za-z0-9_])"
PLACEHOLDER = re.compile(_WORD.format("(TODO|TBD|FIXME|XXX)"))
"""Stub text left in a question: these words, upper-case and whole (so `a todo list`, `TODOs`
or `sm_XXX` are content; next to Chinese text, `翻译TODO`, they still count). Every stub
sentence `quizzer new` writes contains `TODO`."""
_PLACEHOLDER_HINT = re.compile(rb"TODO|TBD|FIXME|XXX")
"""The words anywhere in a file's bytes (fast: no look-around), to skip files without them."""
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One problem in the bank, pointing at a file, line and column."""

    path: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        if self.line == 0:  # about the whole file
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}:{self.col}: {self.message}"


@dataclass(frozen=True)
class SourceLoc:
    """Where a question is defined."""

    path: str
    line: int


@dataclass
class Bank:
    """The loaded, cross-checked question bank."""

    root: Path
    questions: list[AnyQuestion]
    articles: dict[str, Article]
    companies: dict[str, Company]
    modules: list[Module]
    topics: dict[str, Topic]
    topic_chapter: dict[str, str]
    """Topic key -> chapter key (m<module>-c<chapter>)."""
    locations: dict[str, SourceLoc]
    """Question id -> where it is defined."""
    files: list[str] = field(default_factory=list)
    """Question files, relative to the bank root."""
    previous: dict[str, str] = field(default_factory=dict)
    """Old id -> current id, from `previous_ids`."""
    interviews: dict[str, InterviewPage] = field(default_factory=dict)
    """Interview page file -> the page (question_bank/interviews.yaml)."""
    readings: dict[str, Reading] = field(default_factory=dict)
    """Reading key -> the deep-dive post (question_bank/readings.yaml)."""
    tracks: dict[str, Track] = field(default_factory=dict)
    """Track key -> the study track (question_bank/tracks.yaml)."""

    def __post_init__(self) -> None:
        self.by_id: dict[str, AnyQuestion] = {q.id: q for q in self.questions}

    @property
    def exercises(self) -> list[CodeQuestion]:
        """The code exercises (`kind: code`) among the questions, in bank order."""
        return [q for q in self.questions if isinstance(q, CodeQuestion)]

    def easiest_first(self) -> list[AnyQuestion]:
        """Questions by difficulty, bank order within a difficulty (computed once)."""
        cached: list[AnyQuestion] | None = self.__dict__.get("_easiest_first")
        if cached is None:
            cached = sorted(self.questions, key=lambda q: q.difficulty)
            self.__dict__["_easiest_first"] = cached
        return cached

    def get(self, question_id: str) -> AnyQuestion | None:
        """The question with this id (or an old id of it), if any."""
        found = self.by_id.get(question_id)
        if found is None and question_id in self.previous:
            found = self.by_id.get(self.previous[question_id])
        return found

    def module_of(self, question: AnyQuestion) -> int:
        """The module of the question's main article, or of its first topic's chapter when
        the question is beyond the guide (no article)."""
        if question.articles:
            return self.articles[question.articles[0]].module
        chapter = self.topic_chapter[question.topics[0]]
        return int(chapter[1 : chapter.index("-")])

    def links(self, question: AnyQuestion, lang: str = "en") -> list[tuple[str, str]]:
        """(title, url) of everything the question links back to: its articles first, then the
        interview pages that asked it, then its references. The first is the main link."""
        found = [
            (
                title_in(self.articles[key], lang),
                self.articles[key].url,
            )
            for key in question.articles
        ]
        for tag in question.companies:
            page = self.interviews.get(tag.source)
            if page is not None:
                found.append((page.title, page.url))
        found += [(ref.title, ref.url) for ref in question.references]
        return list(dict.fromkeys(found))

    def further_reading(self, question: AnyQuestion, lang: str = "en") -> list[str]:
        """One line per deep-dive post the question cites: its title, and its address when
        known, else where the site lists it (no address is ever guessed)."""
        lines = []
        for key in question.readings:
            reading = self.readings[key]
            title = reading_title(reading, lang)
            place = reading.url or f"find it by its title in {reading.section}"
            lines.append(f"{title}: {place}")
        return lines

    def main_link(self, question: AnyQuestion) -> tuple[str, str]:
        """(title, url) of the question's main link (see ``links``)."""
        return self.links(question)[0]

    def content_hash(self, question: AnyQuestion) -> str:
        """A short hash of the question's content, to notice edits after a review."""
        blob = question.model_dump_json(exclude={"previous_ids", "companies"})
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


class BankError(Exception):
    """The bank has problems; ``diagnostics`` lists every one."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__(f"{len(diagnostics)} problem(s) in the question bank")
        self.diagnostics = diagnostics


def display_path(path: Path) -> str:
    """A path as shown in messages: relative to the working directory when inside it. The last
    part is not resolved, so a symbolic link (even one in a loop) is named as itself."""
    try:
        return str((path.parent.resolve() / path.name).relative_to(Path.cwd().resolve()))
    except (ValueError, OSError, RuntimeError):
        return str(path)


def suggest(word: str, choices: Iterable[str]) -> str:
    """' (did you mean 'x'?)' for the closest choice, or ''."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def question_files(root: Path, errors: _Collector | None = None) -> list[Path]:
    """Every question file under the bank, in a stable order: exactly
    ``questions/<folder>/<name>.yaml``, the layout the wheel's package-data globs ship.

    YAML files anywhere else under questions/ (directly in it, in deeper folders, named .yml)
    and symbolic links are not read; each is reported to ``errors``. Links are never followed,
    so the walk cannot loop or leave the bank. Hidden entries (``.name``) are skipped, as the
    package-data globs skip them."""
    collect = errors if errors is not None else _Collector()
    base = root / QUESTIONS_DIR
    try:
        info = os.lstat(base)
    except FileNotFoundError:
        return []
    except OSError as exc:
        collect.add_file(base, f"cannot read: {exc.strerror}")
        return []
    if stat.S_ISLNK(info.st_mode):
        collect.add_file(base, SYMLINK_REFUSED)
        return []
    if not stat.S_ISDIR(info.st_mode):
        collect.add_file(base, "is not a folder")
        return []
    found: list[Path] = []
    pending = [(base, 0)]
    while pending:
        folder, depth = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as exc:
            collect.add_file(folder, f"cannot read: {exc.strerror}")
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            if entry.is_symlink():
                collect.add_file(path, SYMLINK_REFUSED)
            elif entry.is_dir(follow_symlinks=False):
                if depth + 1 < MAX_FOLDER_DEPTH:
                    pending.append((path, depth + 1))
                else:
                    collect.add_file(
                        path, f"folders nest too deep; question files live at {LAYOUT}"
                    )
            elif path.suffix.lower() in (".yaml", ".yml"):
                if path.suffix != ".yaml":
                    collect.add_file(
                        path, f"not read: a question file ends in .yaml; they live at {LAYOUT}"
                    )
                elif depth != 1:
                    collect.add_file(path, f"not read: question files live at {LAYOUT}")
                else:
                    found.append(path)
    return sorted(found)


class _Collector:
    """Gathers diagnostics while the bank loads."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []

    def add(self, path: Path, line: int, col: int, message: str) -> None:
        self.items.append(Diagnostic(display_path(path), line, col, message))

    def add_file(self, path: Path, message: str) -> None:
        """A problem with a whole file (shown as ``path: message``)."""
        self.items.append(Diagnostic(display_path(path), 0, 0, message))


class SourceProblem(Exception):
    """A bank file cannot be read safely; the message says why."""


def _check_kind(info: os.stat_result, limit: int, private: bool) -> None:
    mode = info.st_mode
    if stat.S_ISLNK(mode):
        raise SourceProblem(SYMLINK_REFUSED)
    if stat.S_ISDIR(mode):
        raise SourceProblem("is a folder, not a file")
    if not stat.S_ISREG(mode):
        kind = (
            "a named pipe (FIFO)"
            if stat.S_ISFIFO(mode)
            else "a socket"
            if stat.S_ISSOCK(mode)
            else "a device"
        )
        raise SourceProblem(f"is {kind}, not a regular file; the bank reads only plain files")
    if info.st_size > limit:
        raise SourceProblem(
            f"is {info.st_size / 2**20:.1f} MB; a bank file may be at most "
            f"{limit / 2**20:g} MB (split it)"
        )
    if private and hasattr(os, "getuid") and (info.st_uid != os.getuid() or mode & 0o022):
        raise SourceProblem("is not owned by you alone")


def read_bank_file(path: Path, limit: int = MAX_FILE_BYTES, *, private: bool = False) -> bytes:
    """The bytes of ``path``, read only if it is a regular file (never through a symbolic
    link, never a FIFO or device) of at most ``limit`` bytes; otherwise SourceProblem. With
    ``private``, the file must also belong to the current user and be writable by no one else.
    Bounded in time and memory whatever the path is."""
    try:
        _check_kind(os.lstat(path), limit, private)
        # O_NOFOLLOW and O_NONBLOCK: if the path was swapped for a link or a FIFO since lstat,
        # opening fails or returns at once, and fstat below refuses it.
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise SourceProblem("file not found") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SourceProblem(SYMLINK_REFUSED) from None
        raise SourceProblem(f"cannot read: {exc.strerror}") from None
    try:
        _check_kind(os.fstat(fd), limit, private)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise SourceProblem(f"cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise SourceProblem(f"is larger than {limit / 2**20:g} MB (split it)")
    return b"".join(chunks)


def _read_sources(root: Path, files: list[Path], errors: _Collector) -> dict[Path, bytes]:
    """The bytes of every catalog and question file that can be read safely; the others are
    reported to ``errors``."""
    sources: dict[Path, bytes] = {}
    for path in [root / name for name in CATALOGS] + files:
        if path.parent == root and not os.path.lexists(path):
            errors.add(path, 1, 1, f"missing catalog {path.name}")
            continue
        try:
            sources[path] = read_bank_file(path)
        except SourceProblem as exc:
            errors.add_file(path, str(exc))
    return sources


def _parse(path: Path, data: bytes, errors: _Collector) -> Located | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        errors.add(path, 1, 1, f"not UTF-8 text ({exc.reason} at byte {exc.start})")
        return None
    from quizzer.content.yamlsrc import YamlProblem, load_located

    try:
        return load_located(text)
    except YamlProblem as exc:
        errors.add(path, exc.line, exc.col, exc.message)
        return None


def _pydantic_errors(
    exc: ValidationError, path: Path, base: Path_, doc: Located, errors: _Collector
) -> None:
    for err in exc.errors():
        loc: list[Any] = list(err["loc"])
        # A discriminated union puts the kind tag first; it is not a field of the YAML.
        if loc and loc[0] in ALL_KINDS:
            loc = loc[1:]
        where = base + tuple(loc)
        field_name = ".".join(str(p) for p in loc) or "question"
        kind = err["type"]
        if kind == "extra_forbidden":
            line, col = doc.where(where, key=True)
            message = f"unknown field {field_name!r}"
            parent = doc.data
            for part in base:
                parent = parent[part]
            message += suggest(str(loc[-1]), _allowed_fields(parent, loc[:-1]))
        elif kind == "missing":
            line, col = doc.where(where[:-1])
            message = f"missing field {field_name!r}"
        elif kind == "union_tag_invalid" or kind == "union_tag_not_found":
            line, col = doc.where(where + ("kind",))
            message = f"field 'kind' must be one of {', '.join(ALL_KINDS)}"
            given = err.get("input")
            if isinstance(given, dict) and isinstance(given.get("kind"), str):
                message += suggest(given["kind"], ALL_KINDS)
        elif not loc and "is not among the options" in err["msg"]:
            continue  # reported by _check_refs with the option's own line
        else:
            line, col = doc.where(where)
            text = err["msg"].removeprefix("Value error, ")
            message = f"{field_name}: {text}"
        errors.add(path, line, col, message)


def _allowed_fields(question: Any, inner: list[Any]) -> list[str]:
    kind = question.get("kind") if isinstance(question, dict) else None
    model = _QUESTION_MODELS.get(kind) if isinstance(kind, str) else None
    if model is None:
        return list(RecallQuestion.model_fields)
    if inner == ["zh"]:
        return list(ZhBlock.model_fields)
    if not inner:
        return list(model.model_fields)
    return []


def _load_catalog(
    root: Path, name: str, top: str, sources: dict[Path, bytes], errors: _Collector
) -> tuple[Any, Located]:
    from quizzer.content.yamlsrc import Located

    path = root / name
    data = sources.get(path)
    if data is None:  # missing or unreadable: already reported
        return [], Located(data=None)
    doc = _parse(path, data, errors)
    if doc is None:
        return [], Located(data=None)
    if not isinstance(doc.data, dict) or not isinstance(doc.data.get(top), list):
        errors.add(path, 1, 1, f"expected a mapping with a list under {top!r}")
        return [], doc
    return doc.data[top], doc


def _interviews(
    root: Path, sources: dict[Path, bytes], errors: _Collector
) -> dict[str, InterviewPage]:
    pages: dict[str, InterviewPage] = {}
    rows, doc = _load_catalog(root, "interviews.yaml", "interviews", sources, errors)
    for index, row in enumerate(rows):
        try:
            page = InterviewPage.model_validate(row)
        except ValidationError as exc:
            _pydantic_errors(exc, root / "interviews.yaml", ("interviews", index), doc, errors)
            continue
        pages[page.file] = page
    return pages


def _readings(
    root: Path, sources: dict[Path, bytes], topics: dict[str, Topic], errors: _Collector
) -> dict[str, Reading]:
    found: dict[str, Reading] = {}
    rows, doc = _load_catalog(root, "readings.yaml", "readings", sources, errors)
    for index, row in enumerate(rows):
        try:
            reading = Reading.model_validate(row)
        except ValidationError as exc:
            _pydantic_errors(exc, root / "readings.yaml", ("readings", index), doc, errors)
            continue
        if reading.key in found:
            line, col = doc.where(("readings", index, "key"))
            errors.add(root / "readings.yaml", line, col, f"duplicate key {reading.key!r}")
        for i, tag in enumerate(reading.tags):
            if tag not in topics:
                line, col = doc.where(("readings", index, "tags", i))
                errors.add(
                    root / "readings.yaml",
                    line,
                    col,
                    f"unknown topic {tag!r}{suggest(tag, topics)}",
                )
        found[reading.key] = reading
    return found


def _catalogs(
    root: Path, sources: dict[Path, bytes], errors: _Collector
) -> tuple[dict[str, Article], dict[str, Company], list[Module], dict[str, Topic], dict[str, str]]:
    articles: dict[str, Article] = {}
    companies: dict[str, Company] = {}
    modules: list[Module] = []
    topics: dict[str, Topic] = {}
    topic_chapter: dict[str, str] = {}
    for name, top, model, table in (
        ("articles.yaml", "articles", Article, articles),
        ("companies.yaml", "companies", Company, companies),
    ):
        rows, doc = _load_catalog(root, name, top, sources, errors)
        for index, row in enumerate(rows):
            try:
                item = model.model_validate(row)
            except ValidationError as exc:
                _pydantic_errors(exc, root / name, (top, index), doc, errors)
                continue
            if item.key in table:
                line, col = doc.where((top, index))
                errors.add(root / name, line, col, f"duplicate key {item.key!r}")
            table[item.key] = item  # type: ignore[assignment]
    rows, doc = _load_catalog(root, "topics.yaml", "modules", sources, errors)
    for index, row in enumerate(rows):
        try:
            module = Module.model_validate(row)
        except ValidationError as exc:
            _pydantic_errors(exc, root / "topics.yaml", ("modules", index), doc, errors)
            continue
        modules.append(module)
        for chapter in module.chapters:
            for topic in chapter.topics:
                if topic.key in topics:
                    line, col = doc.where(("modules", index))
                    errors.add(root / "topics.yaml", line, col, f"duplicate topic {topic.key!r}")
                topics[topic.key] = topic
                topic_chapter[topic.key] = chapter.key
    return articles, companies, modules, topics, topic_chapter


def _check_refs(
    raw: dict[str, Any],
    path: Path,
    base: Path_,
    doc: Located,
    articles: dict[str, Article],
    companies: dict[str, Company],
    topics: dict[str, Topic],
    errors: _Collector,
) -> None:
    """Cross-reference checks on the raw mapping, so they run even when the schema failed."""

    def items(name: str) -> list[Any]:
        value = raw.get(name)
        return value if isinstance(value, list) else []

    for i, topic in enumerate(items("topics")):
        if isinstance(topic, str) and topic not in topics:
            line, col = doc.where(base + ("topics", i))
            errors.add(path, line, col, f"unknown topic {topic!r}{suggest(topic, topics)}")
    for i, article in enumerate(items("articles")):
        if isinstance(article, str) and article not in articles:
            line, col = doc.where(base + ("articles", i))
            errors.add(path, line, col, f"unknown article {article!r}{suggest(article, articles)}")
    for i, tag in enumerate(items("companies")):
        if not isinstance(tag, dict) or not isinstance(tag.get("key"), str):
            continue
        company = companies.get(tag["key"])
        source = tag.get("source")
        if company is None:
            line, col = doc.where(base + ("companies", i, "key"))
            errors.add(
                path,
                line,
                col,
                f"unknown company {tag['key']!r}{suggest(tag['key'], companies)}",
            )
        elif isinstance(source, str) and source not in company.pages:
            line, col = doc.where(base + ("companies", i, "source"))
            errors.add(
                path,
                line,
                col,
                f"{source!r} is not an interview page of {tag['key']!r}"
                f"{suggest(source, company.pages)}",
            )
    zh_block = raw.get("zh")
    if raw.get("kind") == "numeric" and isinstance(zh_block, dict) and "worked" not in zh_block:
        line, col = doc.where(base + ("zh",))
        errors.add(
            path,
            line,
            col,
            "zh.worked is missing (a numeric question's zh block needs the worked solution too)",
        )
    if raw.get("kind") != "numeric" and isinstance(zh_block, dict) and "worked" in zh_block:
        line, col = doc.where(base + ("zh", "worked"))
        errors.add(path, line, col, "zh.worked is only for numeric questions")
    if raw.get("kind") != "code" and isinstance(zh_block, dict) and "hints" in zh_block:
        line, col = doc.where(base + ("zh", "hints"))
        errors.add(path, line, col, "zh.hints is only for code questions")
    if raw.get("kind") == "choice":
        options = items("options")
        allowed = OPTION_LETTERS[: len(options)]
        correct = raw.get("correct")
        letters = [correct] if isinstance(correct, str) else correct
        for i, letter in enumerate(letters if isinstance(letters, list) else []):
            if isinstance(letter, str) and letter not in allowed:
                at = base + (("correct", i) if isinstance(correct, list) else ("correct",))
                line, col = doc.where(at)
                errors.add(
                    path,
                    line,
                    col,
                    f"correct answer {letter!r} is not among the options "
                    f"({allowed[:1]}–{allowed[-1:]})"
                    if allowed
                    else "choice has no options",
                )
        zh = raw.get("zh")
        if (
            isinstance(zh, dict)
            and isinstance(zh.get("options"), list)
            and len(zh["options"]) != len(options)
        ):
            line, col = doc.where(base + ("zh", "options"))
            errors.add(
                path,
                line,
                col,
                f"zh.options has {len(zh['options'])} options but options has {len(options)}",
            )


def _fingerprint(root: Path, sources: dict[Path, bytes]) -> str:
    """A digest of the version and of every file's name and content."""
    digest = hashlib.sha256(__version__.encode())
    for path, data in sources.items():
        name = str(path.relative_to(root)).encode()
        for part in (name, data):
            digest.update(len(part).to_bytes(8, "big"))
            digest.update(part)
    return digest.hexdigest()


def _cache_file(root: Path) -> Path:
    from quizzer.base.paths import cache_dir

    tag = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return cache_dir() / f"bank-{tag}.json"


def load_bank(
    root: Path | None = None,
    *,
    use_cache: bool = True,
    progress: Callable[[int, int], None] | None = None,
    allow_placeholders: bool = False,
) -> Bank:
    """Load the bank at ``root`` (default: paths.bank_dir()). Raises BankError listing every
    problem. A clean load is cached, keyed by the content of every file, so any edit is seen.

    ``allow_placeholders`` lets questions with stub text (TODO, ...) load, for `quizzer new`
    to add another stub beside them; such a load is never cached."""
    from quizzer.base.paths import bank_dir

    given = root or bank_dir()
    try:
        root = given.resolve()
        found = root.is_dir()
    except (OSError, RuntimeError):
        root, found = given, False
    if not found:
        raise BankError([Diagnostic(str(given), 0, 0, "question bank directory not found")])
    errors = _Collector()
    files = question_files(root, errors)
    sources = _read_sources(root, files, errors)
    fingerprint = _fingerprint(root, sources) if use_cache and not errors.items else ""
    if fingerprint and os.environ.get("QUIZZER_NO_CACHE") is None:
        cached = _read_cache(root, fingerprint)
        if cached is not None:
            return cached
    bank, unfinished = _load_uncached(root, files, sources, errors, progress, allow_placeholders)
    if fingerprint and not unfinished:
        _write_cache(root, fingerprint, bank)
    return bank


def _read_cache(root: Path, fingerprint: str) -> Bank | None:
    """The cached bank if the cache file is ours and was written for exactly these files.

    The cache is JSON: reading it runs no code whatever it holds. It is read only if it is a
    regular file of the current user that no one else can write, and used only if its format
    and fingerprint match and every record has exactly its model's fields; anything else (a
    corrupt, truncated, planted or stale file) is ignored and the bank is parsed again."""
    try:
        payload = from_json(read_bank_file(_cache_file(root), MAX_CACHE_BYTES, private=True))
        if (
            not isinstance(payload, dict)
            or payload.get("format") != CACHE_FORMAT
            or payload.get("fingerprint") != fingerprint
        ):
            return None
        return _bank_from_json(root, payload["bank"])
    except Exception:  # whatever is wrong with the file, it only costs a parse
        return None


def _write_cache(root: Path, fingerprint: str, bank: Bank) -> None:
    """Store a clean load for next time, if it survives the JSON round trip unchanged."""
    payload = {"format": CACHE_FORMAT, "fingerprint": fingerprint, "bank": _bank_to_json(bank)}
    try:
        blob = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        # A value JSON cannot carry exactly (a YAML date, bytes, a non-string key) would come
        # back different: then the bank is simply not cached.
        if _bank_from_json(root, from_json(blob)["bank"]) != bank:
            return
    except (TypeError, ValueError, KeyError, AttributeError):
        return
    import tempfile  # only when a cache is written, not on every start

    target = _cache_file(root)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # A new file of our own (O_EXCL, mode 0600), renamed over the old cache: nothing that
        # was planted at either name is ever opened for writing.
        fd, tmp = tempfile.mkstemp(prefix=f"{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(blob.encode("utf-8"))
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError:
        pass  # A cache that cannot be written only costs speed.


def _bank_to_json(bank: Bank) -> dict[str, Any]:
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
    model = _QUESTION_MODELS[values["kind"]]
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
    chapters = []
    for chapter in values["chapters"]:
        chapter["topics"] = [_construct(Topic, topic) for topic in chapter["topics"]]
        chapters.append(_construct(Chapter, chapter))
    values["chapters"] = chapters
    return _construct(Module, values)


def _bank_from_json(root: Path, data: dict[str, Any]) -> Bank:
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
    # JSON object keys are strings; a track's module numbers are ints.
    values["modules"] = {int(number): weight for number, weight in values["modules"].items()}
    return _construct(Track, values)


def _load_uncached(
    root: Path,
    files: list[Path],
    sources: dict[Path, bytes],
    errors: _Collector,
    progress: Callable[[int, int], None] | None = None,
    allow_placeholders: bool = False,
) -> tuple[Bank, bool]:
    """The bank parsed from ``sources``, and whether placeholder text was let through."""
    articles, companies, modules, topics, topic_chapter = _catalogs(root, sources, errors)
    interviews = _interviews(root, sources, errors)
    readings = _readings(root, sources, topics, errors)
    from quizzer.content.tracks import load_tracks

    tracks = load_tracks(root, sources, topics, modules, errors)
    questions: list[AnyQuestion] = []
    locations: dict[str, SourceLoc] = {}
    previous: dict[str, str] = {}
    seen_ids: dict[str, SourceLoc] = {}
    placeholders: list[Diagnostic] = []
    for done, path in enumerate(files, 1):
        if progress is not None:
            progress(done, len(files))
        data = sources.get(path)
        if data is None:  # unreadable: already reported
            continue
        doc = _parse(path, data, errors)
        if doc is None:
            continue
        if doc.data is None:
            continue
        # Only a file whose text has a placeholder word needs each of its strings searched.
        unfinished_file = _PLACEHOLDER_HINT.search(data) is not None
        shown = display_path(path)  # once per file, not per question (it resolves the path)
        if not isinstance(doc.data, list):
            errors.add(path, 1, 1, "a question file is a list of questions (start items with '- ')")
            continue
        for index, raw in enumerate(doc.data):
            base: Path_ = (index,)
            if not isinstance(raw, dict):
                line, col = doc.where(base)
                errors.add(path, line, col, "a question must be a mapping of fields")
                continue
            line, col = doc.where(base)
            raw_id = raw.get("id")
            if isinstance(raw_id, str):
                if raw_id in seen_ids:
                    first = seen_ids[raw_id]
                    errors.add(
                        path,
                        *doc.where(base + ("id",)),
                        f"duplicate id {raw_id!r} (also at {first.path}:{first.line})",
                    )
                else:
                    seen_ids[raw_id] = SourceLoc(shown, line)
            _check_refs(raw, path, base, doc, articles, companies, topics, errors)
            for i, key in enumerate(raw.get("readings") or []):
                if isinstance(key, str) and key not in readings:
                    line, col = doc.where(base + ("readings", i))
                    errors.add(path, line, col, f"unknown reading {key!r}{suggest(key, readings)}")
            if unfinished_file:
                placeholders += _placeholders(raw, path, base, doc, data)
            try:
                q = question_adapter().validate_python(raw)
            except ValidationError as exc:
                _pydantic_errors(exc, path, base, doc, errors)
                continue
            if q.id in locations:
                continue
            for old in q.previous_ids:
                previous[old] = q.id
            locations[q.id] = SourceLoc(shown, line)
            questions.append(q)
    for old, new in previous.items():
        if old in locations:
            loc = locations[new]
            errors.items.append(
                Diagnostic(loc.path, loc.line, 1, f"previous id {old!r} is still a live id")
            )
    problems = errors.items + ([] if allow_placeholders else placeholders)
    if problems:
        raise BankError(sorted(problems))
    bank = Bank(
        root=root,
        questions=questions,
        articles=articles,
        companies=companies,
        modules=modules,
        topics=topics,
        topic_chapter=topic_chapter,
        locations=locations,
        files=[str(p.relative_to(root)) for p in files],
        previous=previous,
        interviews=interviews,
        readings=readings,
        tracks=tracks,
    )
    return bank, bool(placeholders)


def _strings(value: Any, at: Path_) -> Iterable[tuple[Path_, str]]:
    if isinstance(value, str):
        yield at, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, at + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, at + (index,))


def _placeholders(
    raw: dict[str, Any], path: Path, base: Path_, doc: Located, data: bytes
) -> list[Diagnostic]:
    """Placeholder words in any text of one question, each at the word itself when it can be
    found in the source (else at the start of its value)."""
    found = []
    lines: list[str] | None = None
    for at, text in _strings(raw, base):
        match = PLACEHOLDER.search(text)
        if match is None:
            continue
        word = match.group(1)
        line, col = doc.where(at)
        if lines is None:
            lines = data.decode("utf-8").splitlines()
        # The word on the value's first line (from its column) or the lines its text spans.
        for number in range(line, min(line + text.count("\n") + 2, len(lines) + 1)):
            start = col - 1 if number == line else 0
            hit = re.compile(_WORD.format(word)).search(lines[number - 1], start)
            if hit is not None:
                line, col = number, hit.start() + 1
                break
        where = ".".join(str(part) for part in at[len(base) :])
        found.append(
            Diagnostic(
                display_path(path),
                line,
                col,
                f"placeholder text {word!r} in {where}: write the real text (a question with "
                "TODO, TBD, FIXME or XXX is not served)",
            )
        )
    return found
