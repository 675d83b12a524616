"""No rating shown as saved is ever lost while other quizzer commands use the same DB (issue 13).

Real processes throughout: the app runs in a pseudo-terminal exactly as a user starts it, the
plain drill reads lines from a pipe, and the other commands run in this test process (a
different process from the one rating). A rating counts as saved once a *separate* SQLite
reader sees it; after `kill -9` every saved rating must still be in the file.
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import Result

from tests.conftest import spawn_quizzer

RECALL_IDS = ["t-recall-one", "t-recall-two", "t-recall-three"]


def reviews_seen(db: Path) -> int:
    """How many reviews another process sees in the DB right now."""
    conn = sqlite3.connect(db, timeout=15)
    try:
        return int(conn.execute("SELECT count(*) FROM reviews").fetchone()[0])
    finally:
        conn.close()


def wait_for(predicate: Callable[[], bool], what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


class PtyApp:
    """`python -m quizzer drill --id …` (the Textual app) in a pseudo-terminal."""

    def __init__(self, *args: str) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: become the app
            os.environ["TERM"] = "xterm-256color"
            os.environ.pop("NO_COLOR", None)
            os.execv(sys.executable, [sys.executable, "-m", "quizzer", *args])
        import fcntl
        import struct
        import termios

        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        self.pid, self.fd = pid, fd
        self.screen = b""

    def _read_some(self, wait: float) -> bool | None:
        """Add what the app drew within ``wait`` seconds to the screen: whether it drew
        anything, or None once the terminal is closed."""
        ready, _, _ = select.select([self.fd], [], [], wait)
        if not ready:
            return False
        try:
            self.screen += os.read(self.fd, 65536)
        except OSError:
            return None
        return True

    def read(self, seconds: float = 0.2) -> None:
        """Drain what the app drew (so it never blocks on a full terminal)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if self._read_some(0.05) is None:
                return

    def wait_text(self, text: bytes, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.screen:
            assert time.monotonic() < deadline, f"app never showed {text!r}"
            self.read(0.1)

    def keys(self, data: bytes) -> None:
        """Type ``data``, then drain what the app draws until it has been quiet for 0.1 s (or
        0.3 s went by without a byte, or 2 s in all)."""
        os.write(self.fd, data)
        start = last = time.monotonic()
        drew = False
        while (now := time.monotonic()) < start + 2:
            if now - last >= (0.1 if drew else 0.3):
                return
            got = self._read_some(0.02)
            if got is None:
                return
            if got:
                drew, last = True, time.monotonic()

    def kill(self) -> None:
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.fd)

    def quit(self) -> int:
        """Leave the app the way a user does, and return its exit status."""
        self.keys(b"\x1b")  # escape: end the session (the summary opens)
        self.keys(b"\x1b")
        self.keys(b"q")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            self.read(0.1)
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
        self.kill()
        raise AssertionError("the app did not quit")


@pytest.fixture
def app_in_pty(mini_bank: Path) -> Iterator[Callable[[], PtyApp]]:
    started: list[PtyApp] = []

    def start() -> PtyApp:
        args = ["drill"]
        for qid in RECALL_IDS:
            args += ["--id", qid]
        app = PtyApp(*args)
        started.append(app)
        app.wait_text(b"Why does decode")  # the first question is on screen
        return app

    yield start
    for app in started:
        try:
            os.kill(app.pid, signal.SIGKILL)
            os.waitpid(app.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def other_commands(cli: Callable[..., Result], tmp_path: Path, round_: int) -> None:
    """Every CLI command that opens the DB, run by another process while the app is open."""
    assert cli("stats", "--json").exit_code == 0
    assert cli("settings").exit_code == 0
    assert cli("weak", "--json").exit_code == 0
    assert cli("show", "t-recall-one").exit_code == 0
    assert cli("backup", str(tmp_path / f"b{round_}.db")).exit_code == 0
    assert cli("export", "--format", "json", str(tmp_path / f"e{round_}.json")).exit_code == 0
    assert cli("export", "--format", "csv", str(tmp_path / f"e{round_}.csv")).exit_code == 0


def rate_in_app(app: PtyApp, db: Path, expected: int) -> None:
    """Reveal the current recall question and rate it Good; wait until another reader sees it."""
    app.keys(b"\r")  # empty answer: reveal
    app.keys(b"\t")  # from the key-point checklist to the rating buttons
    app.keys(b"3")  # Good
    wait_for(lambda: reviews_seen(db) >= expected, f"review {expected} to be visible")


@pytest.mark.processes  # the app in a pseudo-terminal, seconds each: `pytest -m processes`
@pytest.mark.parametrize("ending", ["kill -9", "quit"])
def test_app_in_a_terminal_keeps_every_rating_while_other_commands_run(
    app_in_pty: Callable[[], PtyApp], cli: Callable[..., Result], tmp_path: Path, ending: str
) -> None:
    db = Path(os.environ["QUIZZER_DB"])
    app = app_in_pty()
    other_commands(cli, tmp_path, 1)
    rate_in_app(app, db, 1)
    other_commands(cli, tmp_path, 2)
    rate_in_app(app, db, 2)
    stats = json.loads(cli("stats", "--json").output)
    assert stats["reviews_total"] == 2  # the other command sees the app's ratings
    other_commands(cli, tmp_path, 3)
    rate_in_app(app, db, 3)
    assert Path(str(db) + "-wal").exists()  # nobody deleted the app's WAL under it
    if ending == "kill -9":
        app.kill()
    else:
        assert app.quit() == 0
    assert reviews_seen(db) == 3
    assert json.loads(cli("stats", "--json").output)["reviews_total"] == 3


def plain_rate(proc: subprocess.Popen[str], answer: str = "x") -> str:
    """Answer and rate one question in a plain drill; returns the line that says it was saved."""
    assert proc.stdin and proc.stdout
    proc.stdin.write(f"{answer}\n\n3\n")  # an empty line skips the key-point checklist
    proc.stdin.flush()
    while True:
        line = proc.stdout.readline()
        assert line, "the drill ended early"
        if "saved:" in line:
            return line


def test_plain_drill_keeps_every_rating_while_other_commands_run(
    mini_bank: Path, cli: Callable[..., Result], tmp_path: Path
) -> None:
    db = Path(os.environ["QUIZZER_DB"])
    assert cli("settings", "new_per_day", "20").exit_code == 0  # the DB exists from the start
    proc = spawn_quizzer("drill", "--plain", "--kind", "recall", stderr=subprocess.DEVNULL)
    saved = 0
    for round_ in range(3):
        other_commands(cli, tmp_path, round_)
        plain_rate(proc)
        saved += 1
        assert reviews_seen(db) == saved
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert reviews_seen(db) == saved == 3


def test_restore_is_refused_while_a_drill_runs_and_the_drill_loses_nothing(
    mini_bank: Path, cli: Callable[..., Result], tmp_path: Path
) -> None:
    db = Path(os.environ["QUIZZER_DB"])
    assert cli("settings", "new_per_day", "20").exit_code == 0
    backup = tmp_path / "empty-history.db"
    assert cli("backup", str(backup)).exit_code == 0
    proc = spawn_quizzer("drill", "--plain", "--kind", "recall", stderr=subprocess.DEVNULL)
    plain_rate(proc)
    result = cli("restore", str(backup), "--yes")
    assert result.exit_code == 1
    assert "in use by another quizzer" in result.output
    plain_rate(proc)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert reviews_seen(db) == 2
    # With the drill gone, the same restore goes through.
    assert cli("restore", str(backup), "--yes").exit_code == 0
    assert reviews_seen(db) == 0
