"""On-demand benchmarks: a synthetic bank of N questions and a store of M reviews.

    python tests/perf/bench.py --questions 10000 --reviews 1000000

Prints a table of median times, each with its target, and ends with `targets met: K/N`;
exits 1 unless every target is met. Not part of the default test run.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "question_bank"
NOW = datetime(2026, 11, 30, 10, tzinfo=UTC)
sys.path.insert(0, str(ROOT))

FIRST_FRAME = """
import time, sys
t0 = time.perf_counter()

def peak_rss_kib():
    # VmHWM is this process's own high-water mark; ru_maxrss would include the memory of the
    # (large) benchmark process it was forked from.
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

{body}
"""

PAINT_TIMER = """
# The first frame is the moment the first composed update of the named screen is handed to the
# driver for output (App._display; headless, the driver then discards it). Both apps are timed
# this way, so neither pays for what runs after its frame.
import textual.app
painted = []
_display = textual.app.App._display
def _timed_display(self, screen, renderable):
    if renderable is not None and not painted and type(screen).__name__ == "{screen}":
        painted.append(time.perf_counter() - t0)
    return _display(self, screen, renderable)
textual.app.App._display = _timed_display
"""

QUIZZER_FRAME = (
    PAINT_TIMER.format(screen="DashboardScreen")
    + """
from quizzer.progress.store import open_store
from quizzer.tui.app import QuizzerApp

# The same path as `quizzer` with no arguments: open the DB, build the app, and let the
# dashboard load the bank and its numbers in the background after the first frame.
class Probe(QuizzerApp):
    # Textual calls QuizzerApp.on_mount too (handlers run for every class in the MRO); this
    # one only schedules the report.
    def on_mount(self):
        self.call_after_refresh(self.report)
    def report(self):
        print(f"{painted[0]:.4f} {peak_rss_kib()} {time.perf_counter() - t0:.4f}")
        self.exit()

Probe(None, open_store()).run(headless=True, size=(100, 30))
"""
)

QUIZZER_LOADED = """
from quizzer.progress.store import open_store
from quizzer.tui.app import QuizzerApp

# The app until the dashboard shows its numbers: bank loaded, history aggregated.
class Probe(QuizzerApp):
    def on_mount(self):
        self.set_interval(0.02, self.check)
    def check(self):
        if getattr(self.screen, "loaded", False):
            now = time.perf_counter() - t0
            print(f"{now:.4f} {peak_rss_kib()} {now:.4f}")
            self.exit()

Probe(None, open_store()).run(headless=True, size=(100, 30))
"""

HELLO_FRAME = (
    PAINT_TIMER.format(screen="Screen")
    + """
from textual.app import App
from textual.widgets import Static

class Hello(App):
    def compose(self):
        yield Static("Hello, world")
    def on_mount(self):
        self.call_after_refresh(self.report)
    def report(self):
        print(f"{painted[0]:.4f} {peak_rss_kib()} {time.perf_counter() - t0:.4f}")
        self.exit()

Hello().run(headless=True, size=(100, 30))
"""
)


# ----------------------------------------------------------------------------- generators


def make_bank(target: Path, count: int, seed: int = 7) -> Path:
    """A valid bank of ``count`` questions (half recall, 30% choice, 20% numeric)."""
    import yaml

    from quizzer.content.bank import CATALOGS

    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for name in CATALOGS:
        shutil.copy(SHIPPED / name, target / name)
    shutil.copytree(SHIPPED / "data", target / "data")
    rng = random.Random(seed)
    articles = [
        a["key"] for a in yaml.safe_load((SHIPPED / "articles.yaml").read_text())["articles"]
    ]
    companies = yaml.safe_load((SHIPPED / "companies.yaml").read_text())["companies"]
    topics = [
        t["key"]
        for m in yaml.safe_load((SHIPPED / "topics.yaml").read_text())["modules"]
        for c in m["chapters"]
        for t in c["topics"]
    ]
    per_file = 500
    out = target / "questions" / "synthetic"
    out.mkdir(parents=True)
    for start in range(0, count, per_file):
        items = []
        for i in range(start, min(count, start + per_file)):
            roll = rng.random()
            company = rng.choice(companies)
            base = {
                "id": f"syn-{i:06d}",
                "prompt": f"Synthetic question {i}: why does mechanism {i % 97} matter?",
                "explanation": "Because the synthetic bank needs an explanation. " * 3,
                "topics": [rng.choice(topics)],
                "articles": [rng.choice(articles)],
                "companies": [{"key": company["key"], "source": company["pages"][0]}]
                if rng.random() < 0.3
                else [],
                "difficulty": rng.randint(1, 5),
                "zh": {"prompt": f"合成问题 {i}", "explanation": "合成解释。"},
            }
            if roll < 0.5:
                base.update(
                    kind="recall",
                    answer="A synthetic model answer. " * 4,
                    key_points=["first point", "second point", "third point"],
                )
                base["zh"].update(answer="合成答案", key_points=["一", "二", "三"])
            elif roll < 0.8:
                base.update(
                    kind="choice",
                    options=["alpha", "beta", "gamma", "delta"],
                    correct=rng.choice("ABCD"),
                )
                base["zh"]["options"] = ["甲", "乙", "丙", "丁"]
            else:
                base.update(
                    kind="numeric",
                    params={
                        "model": {"preset": "models"},
                        "dtype": {"preset": "dtypes", "choose": ["bf16", "fp8"]},
                    },
                    solution="solutions.inference.weight_bytes",
                    unit="GB",
                    worked="{model.params:count} x {dtype.bytes} B = {answer}",
                )
                base["prompt"] = "Weights of {model} in {dtype}? (" + str(i) + ")"
                base["zh"].update(prompt="{model} 的权重？", worked="{answer}")
            items.append(base)
        text = "# yaml-language-server: $schema=../../question.schema.json\n"
        text += yaml.safe_dump(items, allow_unicode=True, sort_keys=False)
        (out / f"part-{start // per_file:03d}.yaml").write_text(text, "utf-8")
    return target


def make_store(db: Path, question_ids: list[str], reviews: int, seed: int = 11) -> None:
    """A progress DB with ``reviews`` reviews spread over the two years before NOW."""
    from fsrs import Card, State

    from quizzer.base.clock import iso
    from quizzer.progress.scheduling import card_to_json
    from quizzer.progress.store import Store

    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    store = Store(db)
    rng = random.Random(seed)
    span = timedelta(days=730).total_seconds()
    reviewed = question_ids[: max(1, int(len(question_ids) * 0.8))]
    last: dict[str, datetime] = {}
    batch = []
    conn = store.conn
    conn.execute("BEGIN")
    for n in range(reviews):
        qid = rng.choice(reviewed)
        when = NOW - timedelta(seconds=rng.random() * span)
        rating = rng.choices((1, 2, 3, 4), weights=(15, 10, 60, 15))[0]
        last[qid] = max(last.get(qid, when), when)
        batch.append(
            (
                f"r{n}",
                qid,
                iso(when),
                rating,
                None,
                int(rating > 1),
                12000,
                None,
                None,
                "review",
                None,
                0.9,
                "drill",
            )
        )
        if len(batch) == 20000:
            conn.executemany(
                "INSERT INTO reviews (uid, question_id, reviewed_at, rating, answer, correct, "
                "duration_ms, seed, session_id, state_before, card_before, retrievability, mode) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                batch,
            )
            batch.clear()
    if batch:
        conn.executemany(
            "INSERT INTO reviews (uid, question_id, reviewed_at, rating, answer, correct, "
            "duration_ms, seed, session_id, state_before, card_before, retrievability, mode) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            batch,
        )
    rows = []
    for qid, when in last.items():
        stability = rng.uniform(1, 400)
        card = Card(
            state=State.Review,
            stability=stability,
            difficulty=rng.uniform(1, 10),
            due=when + timedelta(days=stability),
            last_review=when,
        )
        rows.append(
            (
                qid,
                card_to_json(card),
                "review",
                card.stability,
                card.difficulty,
                iso(card.due),
                iso(when),
                10,
                rng.randint(0, 3),
                7,
                9,
                0,
                iso(when),
            )
        )
    conn.executemany(
        "INSERT INTO cards (question_id, card_json, state, stability, difficulty, due, "
        "last_review, reps, lapses, correct, graded, suspended, created_at) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        rows,
    )
    conn.execute("COMMIT")
    store.close()


# ----------------------------------------------------------------------------- measurement


def run(args: list[str], env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(args)}\n{done.stderr[-2000:]}")
    return elapsed, done.stdout


def frame(body: str, env: dict[str, str]) -> tuple[float, int]:
    """Seconds from launching the interpreter to the probe's event (the first painted frame,
    or the numbers on screen), and the probe process's peak RSS in KiB when it reports.

    A probe prints `event_seconds rss_kib report_seconds`, both times counted from its own
    start; what it did between the event and its report is taken off the launch-to-report time
    measured here, so interpreter start-up is counted and the report's lag is not."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", FIRST_FRAME.format(body=body)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    reported = time.perf_counter() - started
    _, stderr = proc.communicate()
    if proc.returncode != 0 or not line.strip():
        raise SystemExit(f"first-frame probe failed:\n{stderr[-2000:]}")
    event, rss, report = line.split()
    return reported - (float(report) - float(event)), int(rss)


def median_of(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    return statistics.median(fn() for _ in range(repeat))


def human(n: int) -> str:
    """10000 -> 10k, 1000000 -> 1M, for the table's labels."""
    for div, suffix in ((1_000_000, "M"), (1_000, "k")):
        if n >= div and n % (div // 10) == 0:
            return f"{n / div:g}{suffix}"
    return str(n)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--reviews", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="Keep the generated data in this directory.")
    args = parser.parse_args()

    work = args.keep or Path(tempfile.mkdtemp(prefix="quizzer-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    print(
        f"generating {args.questions} questions and {args.reviews} reviews in {work} …", flush=True
    )
    t = time.perf_counter()
    bank_dir = make_bank(work / "bank", args.questions)
    from quizzer.content.bank import load_bank

    ids = [q.id for q in load_bank(bank_dir, use_cache=False).questions]
    make_store(work / "big.db", ids, args.reviews)
    print(f"generated in {time.perf_counter() - t:.1f}s\n", flush=True)

    # Both apps start from bytecode, as an installed package does (pip compiles it; an editable
    # install writes __pycache__ on first run). Some sandboxes set PYTHONDONTWRITEBYTECODE, which
    # would make every quizzer start compile its own sources while Textual's are precompiled.
    compileall.compile_dir(ROOT / "quizzer", quiet=1)
    base_env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("QUIZZER_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    base_env.update(QUIZZER_NOW=NOW.isoformat(), QUIZZER_CACHE=str(work / "cache"))
    big = {**base_env, "QUIZZER_BANK": str(bank_dir), "QUIZZER_DB": str(work / "big.db")}
    shipped = {**base_env, "QUIZZER_DB": str(work / "small.db")}
    quizzer = [sys.executable, "-m", "quizzer"]
    results: list[tuple[str, float, str, float | None, bool | None]] = []
    qs, rs = human(args.questions), human(args.reviews)

    def add(name: str, value: float, unit: str, limit: float | None) -> None:
        ok = None if limit is None else value <= limit
        results.append((name, value, unit, limit, ok))

    # cold validate: no parse cache, every numeric solution run
    def cold_validate() -> float:
        shutil.rmtree(work / "cache", ignore_errors=True)
        return run(quizzer + ["validate"], big)[0]

    add(f"cold validate ({qs} bank)", median_of(cold_validate, max(1, args.repeat // 2)), "s", None)
    run(quizzer + ["list", "--json"], big)  # warm the parse cache
    run(quizzer + ["list", "--json"], shipped)
    add(
        f"list --json ({qs} bank, warm)",
        median_of(lambda: run(quizzer + ["list", "--json"], big)[0], args.repeat),
        "s",
        None,
    )
    add(
        f"stats --json CLI wall ({qs}, {rs})",
        median_of(lambda: run(quizzer + ["stats", "--json"], big)[0], args.repeat),
        "s",
        None,
    )

    # first frame, measured from interpreter start, against a bare Textual app in this run
    for env in (big, shipped, base_env):
        frame(HELLO_FRAME, env)
        if env is not base_env:
            frame(QUIZZER_FRAME, env)
    # Interleaved in a shuffled order, so drift in the machine's speed and any effect of running
    # right after another probe hit all three alike; at least 15 rounds, as each takes ~1 s and
    # a single start-up swings by ±30% on a shared machine.
    hello: list[tuple[float, int]] = []
    small: list[tuple[float, int]] = []
    large: list[tuple[float, int]] = []
    probes = [
        (hello, HELLO_FRAME, base_env),
        (small, QUIZZER_FRAME, shipped),
        (large, QUIZZER_FRAME, big),
    ]
    order = random.Random(1)
    for _ in range(max(15, args.repeat)):
        order.shuffle(probes)
        for times, body, env in probes:
            times.append(frame(body, env))
    hello_t = statistics.median(h[0] for h in hello)
    add("bare Textual app first frame", hello_t, "s", None)
    add("TUI first frame, shipped bank", statistics.median(s[0] for s in small), "s", None)
    add("  ratio to bare Textual", statistics.median(s[0] for s in small) / hello_t, "x", 1.3)
    add(
        f"TUI first frame, {qs} bank + {rs} reviews",
        statistics.median(s[0] for s in large),
        "s",
        None,
    )
    add("  ratio to bare Textual", statistics.median(s[0] for s in large) / hello_t, "x", 1.5)
    loaded = [frame(QUIZZER_LOADED, big) for _ in range(max(1, args.repeat // 3))]
    add(
        f"TUI numbers on screen, {qs} bank + {rs} reviews",
        statistics.median(s[0] for s in loaded),
        "s",
        None,
    )
    add(f"peak RSS, TUI with {qs} bank + {rs} reviews", max(s[1] for s in loaded) / 1024, "MB", 200)

    # in-process: due queue and stats aggregates over the 1M-review store
    os.environ.update(big)
    from quizzer.progress.store import open_store
    from quizzer.study.session import due_queue
    from quizzer.study.stats import summary

    bank = load_bank(bank_dir)
    store = open_store()

    def timed(fn) -> float:  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        fn()
        return time.perf_counter() - started

    timed(lambda: due_queue(bank, store, NOW))
    add(
        f"due queue ({qs} bank, {rs} reviews)",
        median_of(lambda: timed(lambda: due_queue(bank, store, NOW)), args.repeat) * 1000,
        "ms",
        20,
    )
    add(
        f"stats aggregates ({qs} bank, {rs} reviews)",
        median_of(lambda: timed(lambda: summary(bank, store, NOW)), args.repeat) * 1000,
        "ms",
        200,
    )
    heavy = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, quizzer.cli, quizzer.tui.app, quizzer.study.session; "
            "print(sorted({'pint','numpy','genanki'} & {m.split('.')[0] for m in sys.modules}))",
        ],
        capture_output=True,
        text=True,
        env=big,
        check=True,
    ).stdout.strip()
    add(f"heavy imports on the start path: {heavy}", float(heavy != "[]"), "", 0)
    stats_rss = subprocess.run(
        [
            sys.executable,
            "-c",
            FIRST_FRAME.format(
                body=(
                    "from quizzer.cli import main\n"
                    "import contextlib, io\n"
                    "with contextlib.redirect_stdout(io.StringIO()):\n"
                    "    try:\n"
                    "        main(['stats', '--json'])\n"
                    "    except SystemExit:\n"
                    "        pass\n"
                    "print(peak_rss_kib())"
                )
            ),
        ],
        capture_output=True,
        text=True,
        env=big,
        check=True,
    ).stdout.split()[-1]
    add(f"peak RSS, quizzer stats --json ({qs}, {rs})", int(stats_rss) / 1024, "MB", 200)

    print(f"{'measurement':<46} {'median':>10} {'target':>10}  ok")
    for name, value, unit, limit, ok in results:
        target = "" if limit is None else f"≤ {limit:g}{unit}"
        mark = "" if ok is None else ("yes" if ok else "NO")
        print(f"{name:<46} {value:>9.3f}{unit:<2} {target:>10}  {mark}")
    judged = [r for r in results if r[4] is not None]
    met = sum(1 for r in judged if r[4])
    print(
        json.dumps({"questions": args.questions, "reviews": args.reviews, "cpus": os.cpu_count()})
    )
    print(f"targets met: {met}/{len(judged)}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if met == len(judged) else 1


if __name__ == "__main__":
    sys.exit(main())
