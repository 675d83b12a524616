"""Shared fixtures: a fixed clock, fuzzing off, a temporary DB and cache for every test."""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from quizzer.content.bank import CATALOGS, Bank, load_bank
from quizzer.progress.store import Store

ROOT = Path(__file__).resolve().parent.parent
SHIPPED_BANK = ROOT / "question_bank"
CATALOG_FILES = CATALOGS  # every catalog a test bank copies from the shipped one
FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIXED_NOW = "2026-11-30T10:00:00+00:00"


def _settle_textual_pilot_faster() -> None:
    """Pilot waits after every key press until the app looks idle: it sleeps in steps of
    ``SLEEP_GRANULARITY`` (20 ms) and stops once a step used under ``SLEEP_IDLE`` of CPU. The
    20 ms steps, twice per key, were a third of the TUI tests' time; 5 ms steps with the same
    5 % idle ratio wait for the same work and no longer (README, Development)."""
    import textual._wait as wait

    assert hasattr(wait, "SLEEP_GRANULARITY") and hasattr(wait, "SLEEP_IDLE"), (
        "textual._wait changed: review _settle_textual_pilot_faster in tests/conftest.py"
    )
    wait.SLEEP_GRANULARITY = 0.005
    wait.SLEEP_IDLE = wait.SLEEP_GRANULARITY / 20


_settle_textual_pilot_faster()


def _share_textual_css_parses() -> None:
    """Every Textual app parses the same stylesheets again (quizzer.tcss and each widget's
    default CSS): about 30 ms of CPU per app, over the 60 or so apps the Pilot tests start. A
    parse depends only on its arguments (the CSS text, where it came from, the theme's
    variables), so the test process keeps one result per distinct parse for every app."""
    import textual.css.stylesheet as stylesheet

    assert callable(getattr(stylesheet, "parse", None)), (
        "textual.css.stylesheet changed: review _share_textual_css_parses in tests/conftest.py"
    )
    parse = stylesheet.parse
    parsed: dict[tuple[Any, ...], list[Any]] = {}
    themes: dict[int, tuple[Any, tuple[Any, ...]]] = {}  # id -> (the dict, kept alive; its key)

    def shared_parse(
        scope: str,
        css: str,
        read_from: Any,
        variable_tokens: Any = None,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
    ) -> Iterable[Any]:
        theme: tuple[Any, ...] = ()
        if variable_tokens:
            known = themes.get(id(variable_tokens))
            if known is None or known[0] is not variable_tokens:
                key = tuple(
                    (name, tuple((t.name, t.value) for t in tokens))
                    for name, tokens in sorted(variable_tokens.items())
                )
                known = themes[id(variable_tokens)] = (variable_tokens, key)
            theme = known[1]
        key = (scope, css, read_from, theme, is_default_rules, tie_breaker)
        if key not in parsed:
            parsed[key] = list(
                parse(
                    scope,
                    css,
                    read_from,
                    variable_tokens=variable_tokens,
                    is_default_rules=is_default_rules,
                    tie_breaker=tie_breaker,
                )
            )
        return iter(parsed[key])

    stylesheet.parse = shared_parse  # type: ignore[assignment]


_share_textual_css_parses()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Python's cycle collector, tuned for a test process: everything collection loaded (the
    modules, the test items and the bank data their parameters came from) is frozen out of its
    scans, and it runs every 300,000 new objects instead of every 2,000. The Textual tests
    allocate millions of short-lived objects; with the defaults, full scans of everything loaded
    took a sixth of the run's CPU. A worker peaks at about 400 MB this way."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(300_000, 100, 1000)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """After the last test: one full collection (a finaliser it runs still reaches pytest's
    unraisable-exception check, which runs later), then what is left is frozen, so that check's
    own five full collections in a row scan only what is made after, not the whole heap five
    times (about 0.5 s less per worker)."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own DB and cache, a fixed clock and no fuzzing."""
    monkeypatch.setenv("QUIZZER_DB", str(tmp_path / "progress.db"))
    monkeypatch.setenv("QUIZZER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("QUIZZER_NOW", FIXED_NOW)
    monkeypatch.setenv("QUIZZER_NO_FUZZ", "1")
    # setenv first so monkeypatch restores the variable even though --bank sets it in-process
    monkeypatch.setenv("QUIZZER_BANK", "")
    monkeypatch.delenv("QUIZZER_BANK")
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def make_bank(target: Path, questions: str | None = None) -> Path:
    """A bank with the shipped catalogs and data, and the given questions (default: the
    mini fixture) in one file, questions/test/mini.yaml. That file is outside the topic layout
    (content/layout.py) on purpose: tests name its lines, and validate only warns about it."""
    target.mkdir(parents=True, exist_ok=True)
    for name in CATALOG_FILES:
        shutil.copy(SHIPPED_BANK / name, target / name)
    shutil.copytree(SHIPPED_BANK / "data", target / "data")
    qdir = target / "questions" / "test"
    qdir.mkdir(parents=True)
    text = (
        questions
        if questions is not None
        else (FIXTURES / "mini-questions.yaml").read_text("utf-8")
    )
    (qdir / "mini.yaml").write_text(text, "utf-8")
    return target


@cache
def _shipped_question_files() -> tuple[str, ...]:
    return tuple(
        path.read_text("utf-8") for path in sorted((SHIPPED_BANK / "questions").glob("*/*.yaml"))
    )


def shipped_questions(ids: Iterable[str]) -> list[dict[str, Any]]:
    """The YAML mappings of these shipped questions, in the order given, from whichever question
    file holds each (a question's file follows its first topic, so tests select by id). Only the
    files holding them are parsed."""
    from quizzer.content.yamlsrc import safe_load

    wanted = list(ids)
    found: dict[str, dict[str, Any]] = {}
    for text in _shipped_question_files():
        if any(f"- id: {qid}\n" in text for qid in wanted if qid not in found):
            found.update((q["id"], q) for q in safe_load(text) if q["id"] in wanted)
    missing = [qid for qid in wanted if qid not in found]
    assert not missing, f"no shipped question with id {missing}"
    return [found[qid] for qid in wanted]


@cache
def _shipped_parse() -> tuple[Bank, Path]:
    """The shipped bank parsed from its files, once per test process, and the cache folder that
    parse wrote its cache file to (a new temporary folder, removed when the process ends)."""
    folder = Path(tempfile.mkdtemp(prefix="quizzer-shipped-cache-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("QUIZZER_CACHE", str(folder))
        bank = load_bank(SHIPPED_BANK)  # the folder is new: parsed, never read from a cache
    assert list(folder.glob("bank-*.json")), "the shipped bank was not cached"
    return bank, folder


def shipped_bank() -> Bank:
    """The shipped bank parsed from its files, once per test process: the tests that only read
    it share one parse instead of each taking a second or so."""
    return _shipped_parse()[0]


@pytest.fixture
def shipped_cache() -> Path:
    """A cache directory holding the shipped bank's cache file (written by the one parse of
    ``shipped_bank``), for tests that start quizzer processes on the shipped bank: each then
    reads the cache, as a user's second start does, instead of parsing 1,000+ questions again."""
    return _shipped_parse()[1]


@pytest.fixture
def warm_cache(shipped_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """QUIZZER_CACHE at the cache that already holds the shipped bank, as on the machine of a
    user who has run quizzer before: for tests of what a command does on the shipped bank (the
    cache itself has its own tests), which then read that file instead of each parsing the
    bank again and writing a cache of their own."""
    monkeypatch.setenv("QUIZZER_CACHE", str(shipped_cache))
    return shipped_cache


@pytest.fixture
def mini_bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The small test bank, selected through QUIZZER_BANK."""
    bank = make_bank(tmp_path / "bank")
    monkeypatch.setenv("QUIZZER_BANK", str(bank))
    return bank


@pytest.fixture
def cli() -> Callable[..., Result]:
    """Run the CLI in-process: cli("stats", "--json", input="...")."""
    from quizzer.cli import main

    def run(*args: str, input: str | None = None) -> Result:
        return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)

    return run


def run_quizzer(
    *args: str, input: str | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run a quizzer command as a user's shell would, but in this process (click's CliRunner,
    far faster than a new interpreter): its exit code, stdout and stderr. The environment is
    put back afterwards, as a subprocess would leave it. ``timeout`` is kept for the callers
    that pass it; tests that need a real process (kills, concurrency) use spawn_quizzer."""
    from quizzer.cli import main

    saved = os.environ.copy()
    try:
        result = CliRunner().invoke(
            main, list(args), input=input, env=env, catch_exceptions=False, prog_name="quizzer"
        )
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return subprocess.CompletedProcess(
        ["quizzer", *args], result.exit_code, result.stdout, result.stderr
    )


def plain_mock(bank: Bank, qids: list[str], fed: str) -> tuple[str, Store]:
    """Run the line-mode mock over these questions, in this order, on ``fed``: what it printed,
    and the progress store it saved to (QUIZZER_DB)."""
    import io

    from quizzer.cli.plain_mock import run_plain_mock
    from quizzer.study.mock import MockPlan

    store = Store(Path(os.environ["QUIZZER_DB"]))
    out = io.StringIO()
    plan = MockPlan("bytedance", [bank.by_id[qid] for qid in qids])
    run_plain_mock(bank, store, plan, 45, stdin=io.StringIO(fed), stdout=out)
    return out.getvalue(), store


def spawn_quizzer(
    *args: str, stderr: int = subprocess.PIPE, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """Start `python -m quizzer` with piped stdin and stdout, for tests that feed it lines while
    it runs, or kill it. ``env`` adds to (or replaces) this process's environment."""
    return subprocess.Popen(
        [sys.executable, "-m", "quizzer", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env={**os.environ, **(env or {})},
    )


def save_review(
    store,
    question_id: str,
    before,
    after,
    rating: int,
    when,  # type: ignore[no-untyped-def]
    answer: str = "",
) -> int:
    """Record one review straight into a store (for tests that build history by hand)."""
    return store.record_review(
        question_id=question_id,
        before=before,
        after=after,
        rating=rating,
        reviewed_at=when,
        answer=answer,
        correct=None,
        duration_ms=1,
        seed=None,
        session_id=None,
        retrievability=0.0,
        content_hash=None,
    )
