"""Refresh the README's SVG screenshots of the dashboard, the study screen, a code exercise and
the Plan screen.

    python scripts/screenshots.py            # writes docs/screenshots/*.svg

Uses the shipped bank, a throwaway DB filled with a few weeks of simulated reviews and a study
plan, and a fixed clock, so the pictures only change when the app does.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
sys.path.insert(0, str(ROOT))


def simulate(db: Path) -> None:
    """Six weeks of plausible study: a few sessions a week, mostly Good, some Again."""
    from quizzer.content.bank import load_bank
    from quizzer.progress.scheduling import Grade
    from quizzer.progress.store import Store
    from quizzer.study.session import Filters, StudySession, due_queue

    bank = load_bank()
    store = Store(db)
    rng = random.Random(3)
    day = NOW - timedelta(days=42)
    while day < NOW - timedelta(hours=12):
        if rng.random() < 0.7:
            os.environ["QUIZZER_NOW"] = day.isoformat()
            # Code exercises need a file checked; the simulated history is of the other kinds.
            kinds = Filters(kinds=("recall", "choice", "numeric"))
            session = StudySession(bank, store, due_queue(bank, store, day, kinds, limit=12))
            while (current := session.next()) is not None:
                weak = "quant" in current.question.id or "occupancy" in current.question.id
                if current.attempt is not None:
                    answer = current.attempt.answer * (1.5 if weak else 1.0)
                    unit = current.question.unit
                    session.submit(f"{answer} {unit}" if unit != "1" else f"{answer}")
                elif current.question.kind == "choice":
                    letter = current.question.correct[0]  # type: ignore[union-attr]
                    session.submit("A" if weak and letter != "A" else letter)
                else:
                    session.submit("my answer")
                grade = Grade.AGAIN if weak and rng.random() < 0.6 else Grade.GOOD
                current.started -= rng.uniform(20, 100)  # the time a person takes to answer
                session.rate(grade if current.question.kind == "recall" else None)
            session.finish()
        day += timedelta(days=1)
    store.close()


def plan_goal() -> None:
    """A plan toward a ByteDance inference interview, as `quizzer plan` would set it."""
    from datetime import date

    from quizzer.progress.goal import StudyGoal
    from quizzer.progress.store import open_store

    store = open_store()
    store.set_study_goal(
        StudyGoal(date=date(2027, 1, 15), track="inference", companies=("bytedance",))
    )
    store.close()


async def shoot() -> None:
    from quizzer.content.bank import load_bank
    from quizzer.progress.store import open_store
    from quizzer.tui.app import QuizzerApp

    os.environ["QUIZZER_NOW"] = NOW.isoformat()
    OUT.mkdir(parents=True, exist_ok=True)
    plan_goal()
    app = QuizzerApp(load_bank(), open_store())
    async with app.run_test(size=(110, 32)) as pilot:
        await pilot.pause()
        await pilot.pause(0.3)
        (OUT / "dashboard.svg").write_text(app.export_screenshot(title="quizzer — dashboard"))
        await pilot.press("p")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause(0.3)
        (OUT / "plan.svg").write_text(app.export_screenshot(title="quizzer — plan"))
    bank = load_bank()
    app = QuizzerApp(bank, open_store(), ["calc-kv-bytes-per-token"])
    async with app.run_test(size=(110, 32)) as pilot:
        await pilot.pause()
        study = app.screen
        attempt = study.session.current.attempt  # type: ignore[attr-defined]
        await pilot.press(*f"{attempt.answer:.1f} KB")
        await pilot.press("enter")
        await pilot.pause(0.3)
        (OUT / "study.svg").write_text(app.export_screenshot(title="quizzer — study"))
    app = QuizzerApp(bank, open_store(), ["code-safe-softmax"])
    async with app.run_test(size=(110, 32)) as pilot:
        await pilot.pause()
        editor = app.screen.query_one("#editor")
        editor.load_text(NAIVE_SOFTMAX)  # type: ignore[attr-defined]
        await pilot.press("ctrl+r")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause(0.3)
        (OUT / "exercise.svg").write_text(app.export_screenshot(title="quizzer — code exercise"))


NAIVE_SOFTMAX = """\
import numpy as np


def softmax(x: np.ndarray) -> np.ndarray:
    \"\"\"Softmax over the last axis of x.\"\"\"
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)
"""


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "demo.db"
        os.environ["QUIZZER_DB"] = str(db)
        os.environ["QUIZZER_CACHE"] = str(Path(tmp) / "cache")
        os.environ["QUIZZER_NO_FUZZ"] = "1"
        os.environ["QUIZZER_EXERCISES"] = str(Path(tmp) / "exercises")
        simulate(db)
        asyncio.run(shoot())
    for name in ("dashboard.svg", "study.svg", "exercise.svg", "plan.svg"):
        print(OUT / name)


if __name__ == "__main__":
    main()
