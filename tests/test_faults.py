"""Fault tolerance: kill -9 mid-drill, concurrent writers, a full disk, mutated YAML, old DBs.

Fast variants run by default; `pytest -m slow` runs the long ones (100 kills, 30 s of
concurrency, 1,000 mutated files)."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import pytest

from quizzer.content.bank import BankError, load_bank
from quizzer.progress.scheduling import Grade, SchedulerSettings, make_scheduler, new_card, review
from quizzer.progress.store import Store, StoreError
from tests.conftest import FIXTURES, make_bank, save_review, spawn_quizzer

SLOW = pytest.mark.slow
PROCESSES = pytest.mark.processes  # seconds of real processes each: `pytest -m processes`


def review_count(db: Path) -> int:
    if not db.exists():  # killed before it created the DB (and this probe must not create it)
        return 0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        # A drill killed while it was still creating the DB leaves it without tables: 0 reviews.
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'reviews'").fetchone() is None:
            return 0
        return int(conn.execute("SELECT count(*) FROM reviews").fetchone()[0])
    finally:
        conn.close()


def killed_drill(delay: float, db: Path) -> tuple[int, int]:
    """Start a drill on ``db`` feeding answers and ratings, SIGKILL it ``delay`` s later.
    Returns (ratings the drill reported saved, reviews in the DB)."""
    proc = spawn_quizzer(
        "drill",
        "--plain",
        "--kind",
        "recall",
        stderr=subprocess.DEVNULL,
        env={"QUIZZER_DB": str(db)},
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write("a\n\n3\nb\n\n1\nc\n\n4\nd\n\n2\n")  # answer, no checklist, rating
    proc.stdin.flush()
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    out, _ = proc.communicate(timeout=30)
    return out.count("saved:"), review_count(db)


def kill_lane(delays: list[float], db: Path) -> int:
    """Kill one drill after another on the same DB; the reviews it holds at the end."""
    before = 0
    for delay in delays:
        seen, total = killed_drill(delay, db)
        # Every rating reported saved is in the DB; at most one more was committed just
        # before the kill, before its "saved" line could be printed.
        assert before + seen <= total <= before + seen + 1
        before = total
        Store(db).close()  # the DB still opens cleanly after every kill
    return before


def run_kills(count: int, mini_bank: Path) -> None:
    """``count`` kills at random moments, in two lanes side by side, each killing drill after
    drill on its own DB: a drill waits most of its life for its kill, so two lanes halve the
    time without changing what any one kill sees."""
    rng = random.Random(1234)
    delays = [rng.uniform(0.05, 1.5) for _ in range(count)]
    db = Path(os.environ["QUIZZER_DB"])
    lanes = [(delays[0::2], db), (delays[1::2], db.with_name(f"{db.stem}-2{db.suffix}"))]
    with ThreadPoolExecutor(len(lanes)) as pool:
        saved = list(pool.map(lambda lane: kill_lane(*lane), lanes))
    assert sum(saved) > 0


@PROCESSES
def test_sigkill_at_random_points_loses_nothing(mini_bank: Path) -> None:
    run_kills(8, mini_bank)


@SLOW
def test_sigkill_100_drills(mini_bank: Path) -> None:
    run_kills(100, mini_bank)


def hammer(seconds: float, mini_bank: Path) -> None:
    """Two processes rate as fast as they can; every rating they report lands."""
    script = (
        "import sys, time\n"
        "from quizzer.content.bank import load_bank\n"
        "from quizzer.progress.store import open_store\n"
        "from quizzer.study.session import StudySession\n"
        "bank = load_bank(); store = open_store(); n = 0\n"
        "end = time.monotonic() + float(sys.argv[1])\n"
        "ids = ['t-recall-one', 't-recall-two'] if sys.argv[2] == 'a' else "
        "['t-recall-three', 't-recall-four']\n"
        "while time.monotonic() < end:\n"
        "    s = StudySession(bank, store, [bank.by_id[i] for i in ids], record_session=False)\n"
        "    while s.next():\n"
        "        s.submit('x'); s.rate(); n += 1\n"
        "print(n)\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(seconds), tag],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        for tag in ("a", "b")
    ]
    reported = 0
    for proc in procs:
        out, err = proc.communicate(timeout=seconds + 120)
        assert proc.returncode == 0, err
        reported += int(out.strip())
    assert reported > 0
    assert review_count(Path(os.environ["QUIZZER_DB"])) == reported


@PROCESSES
def test_two_writers_for_a_few_seconds(mini_bank: Path) -> None:
    hammer(2, mini_bank)


@SLOW
def test_two_writers_for_30_seconds(mini_bank: Path) -> None:
    hammer(30, mini_bank)


def test_full_disk_gives_a_clear_error_and_no_partial_rows(tmp_path: Path) -> None:
    db = tmp_path / "full.db"
    store = Store(db)
    scheduler = make_scheduler(SchedulerSettings(fuzz=False))
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count = {pages + 2}")  # the disk is now "full"
    moment = datetime(2026, 11, 30, tzinfo=UTC)
    saved = 0
    with pytest.raises(StoreError, match=r"could not save .* full"):
        for n in range(10_000):
            card = new_card(moment)
            save_review(
                store,
                f"q{n}",
                card,
                review(scheduler, card, Grade.GOOD, moment),
                3,
                moment,
                answer="x" * 200,
            )
            saved += 1
    reviews = store.conn.execute("SELECT count(*) FROM reviews").fetchone()[0]
    cards = store.conn.execute("SELECT count(*) FROM cards").fetchone()[0]
    assert reviews == cards == saved  # the failed review left neither a review nor a card


def mutate(text: str, rng: random.Random) -> str:
    """One random corruption: flip bytes, rename a key, swap a type, or truncate."""
    choice = rng.randrange(4)
    if choice == 0:
        data = bytearray(text.encode())
        for _ in range(rng.randint(1, 5)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return data.decode("utf-8", errors="replace")
    if choice == 1:
        keys = [
            "id:",
            "kind:",
            "prompt:",
            "topics:",
            "articles:",
            "options:",
            "correct:",
            "params:",
            "solution:",
            "difficulty:",
            "answer:",
        ]
        key = rng.choice(keys)
        return text.replace(key, rng.choice(["idd:", "Kind:", "promt:", "topic:", "x:"]), 1)
    if choice == 2:
        swaps = [
            ("difficulty: 2", "difficulty: [2]"),
            ("correct: B", "correct: {a: 1}"),
            ("topics: [kv-cache]", "topics: kv-cache"),
            ("unit: GB", "unit: 5"),
            ("step: 50", "step: fifty"),
            ("kind: recall", "kind: 7"),
        ]
        old, new = rng.choice(swaps)
        return text.replace(old, new, 1)
    return text[: rng.randrange(len(text))]


def run_mutations(count: int, tmp_path: Path) -> None:
    original = (FIXTURES / "mini-questions.yaml").read_text("utf-8")
    bank = make_bank(tmp_path / "bank", original)
    target = bank / "questions" / "test" / "mini.yaml"
    rng = random.Random(99)
    for _ in range(count):
        target.write_text(mutate(original, rng), "utf-8", errors="replace")
        try:
            load_bank(bank, use_cache=False)
        except BankError as exc:
            for diagnostic in exc.diagnostics:
                assert diagnostic.line >= 1 and diagnostic.path.endswith(".yaml")
                assert f":{diagnostic.line}:" in str(diagnostic)


def test_mutated_yaml_always_gives_located_messages(tmp_path: Path) -> None:
    run_mutations(150, tmp_path)


@SLOW
def test_1000_mutated_yaml_files(tmp_path: Path) -> None:
    run_mutations(1000, tmp_path)


def test_every_older_schema_version_migrates(tmp_path: Path) -> None:
    fixtures = sorted((FIXTURES / "db").glob("v*.db"))
    assert fixtures, "tests/fixtures/db holds a DB per older schema version"
    for fixture in fixtures:
        db = tmp_path / fixture.name
        shutil.copy(fixture, db)
        before = review_count(db)
        store = Store(db)
        from quizzer.progress import migrations

        assert migrations.pending(store.conn) == []
        uids = [r["uid"] for r in store.reviews()]
        assert len(uids) == before and len(set(uids)) == before and all(uids)
        assert store.card("t-recall-one") is not None
        per_day = store.conn.execute("SELECT sum(reviews) FROM review_days").fetchone()[0]
        assert per_day == before  # the day counts were backfilled
        store.close()
