"""The progress store and scheduling: the FSRS-6 reference replay, undo, suspend, renames,
and refusing damaged or foreign files without touching them."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fsrs import Card, State

from quizzer.content.bank import load_bank
from quizzer.progress.scheduling import Grade, SchedulerSettings, make_scheduler, new_card, review
from quizzer.progress.store import Store, StoreError
from quizzer.study.session import Filters, StudySession, due_queue
from tests.conftest import run_quizzer, save_review


def at(days: float) -> str:
    return (datetime(2026, 1, 1, 9, tzinfo=UTC) + timedelta(days=days)).isoformat()


def test_fsrs6_reference_replay_through_the_scheduler() -> None:
    scheduler = make_scheduler(SchedulerSettings(fuzz=False))
    card = new_card(datetime(2026, 1, 1, tzinfo=UTC))
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    for grade, offset in zip([Grade.AGAIN] + [Grade.GOOD] * 5, [0, 0, 1, 3, 8, 21], strict=True):
        moment += timedelta(days=offset)
        card = review(scheduler, card, grade, moment)
    assert card.stability == pytest.approx(53.6269, abs=1e-3)
    assert card.difficulty == pytest.approx(6.3575, abs=1e-3)


def test_fsrs6_reference_replay_through_plain_drill(mini_bank: Path) -> None:
    elapsed = 0
    for rating, offset in zip("133333", [0, 0, 1, 3, 8, 21], strict=True):
        elapsed += offset
        done = run_quizzer(
            "drill",
            "--plain",
            "--id",
            "t-recall-one",
            input=f"my answer\n\n{rating}\n",
            env={"QUIZZER_NOW": at(elapsed)},
        )
        assert done.returncode == 0, done.stderr
    shown = run_quizzer("show", "t-recall-one", "--json", env={"QUIZZER_NOW": at(elapsed)})
    card = json.loads(shown.stdout)["card"]
    assert card["stability"] == pytest.approx(53.6269, abs=1e-3)
    assert card["difficulty"] == pytest.approx(6.3575, abs=1e-3)
    assert card["reps"] == 6 and card["state"] == "review"


def test_random_bytes_db_is_refused_and_untouched(mini_bank: Path, tmp_path: Path) -> None:
    db = tmp_path / "garbage.db"
    db.write_bytes(os.urandom(8192))
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    result = run_quizzer("stats", "--json", env={"QUIZZER_DB": str(db)})
    assert result.returncode != 0
    assert "not a quizzer database" in result.stderr and "left untouched" in result.stderr
    assert "Traceback" not in result.stderr
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not Path(str(db) + "-wal").exists()


def test_damaged_sqlite_file_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    Store(db).close()
    data = bytearray(db.read_bytes())
    data[100:4096] = os.urandom(3996)  # smash the schema page after the header
    db.write_bytes(bytes(data))
    before = db.read_bytes()
    with pytest.raises(StoreError, match=r"damaged|not a quizzer"):
        Store(db)
    assert db.read_bytes() == before


def test_another_programs_sqlite_db_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "other.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="another program"):
        Store(db)


def session_over(mini_bank: Path, ids: list[str]) -> tuple[StudySession, Store]:
    bank = load_bank(mini_bank, use_cache=False)
    store = Store(Path(os.environ["QUIZZER_DB"]))
    return StudySession(bank, store, [bank.by_id[i] for i in ids]), store


def test_choice_wrong_is_forced_again_right_defaults_good(mini_bank: Path) -> None:
    session, store = session_over(mini_bank, ["t-choice-one", "t-choice-one"])
    session.next()
    outcome = session.submit("A")
    assert outcome.correct is False and outcome.allowed == (Grade.AGAIN,)
    assert session.rate(Grade.EASY).grade == Grade.AGAIN
    session.next()
    outcome = session.submit("2")
    assert outcome.correct is True and outcome.suggested == Grade.GOOD
    assert session.rate(Grade.EASY).grade == Grade.EASY
    rows = store.reviews()
    assert [(r["rating"], r["correct"]) for r in rows] == [(1, 0), (4, 1)]


def test_intervals_are_shown_before_rating(mini_bank: Path) -> None:
    session, _ = session_over(mini_bank, ["t-recall-one"])
    session.next()
    outcome = session.submit("")
    assert outcome.answered is False and outcome.suggested == Grade.AGAIN
    assert outcome.intervals == {
        Grade.AGAIN: "1m",
        Grade.HARD: "6m",
        Grade.GOOD: "10m",
        Grade.EASY: "8d",
    }


def test_undo_restores_card_and_removes_review(mini_bank: Path) -> None:
    session, store = session_over(mini_bank, ["t-recall-one", "t-recall-two"])
    session.next()
    session.submit("x")
    session.rate(Grade.GOOD)
    assert store.review_count() == 1 and store.card("t-recall-one") is not None
    assert session.undo().id == "t-recall-one"  # type: ignore[union-attr]
    assert store.review_count() == 0 and store.card("t-recall-one") is None
    assert session.next().question.id == "t-recall-one"  # type: ignore[union-attr]


def test_suspend_and_bury_leave_the_queue(mini_bank: Path) -> None:
    bank = load_bank(mini_bank, use_cache=False)
    store = Store(Path(os.environ["QUIZZER_DB"]))
    now = datetime.fromisoformat(os.environ["QUIZZER_NOW"])
    ids = [q.id for q in due_queue(bank, store, now)]
    assert "t-recall-one" in ids and "t-recall-two" in ids
    store.set_suspended("t-recall-one", True, now)
    store.bury("t-recall-two", now + timedelta(hours=20), now)
    ids = [q.id for q in due_queue(bank, store, now)]
    assert "t-recall-one" not in ids and "t-recall-two" not in ids
    ids = [q.id for q in due_queue(bank, store, now + timedelta(days=1))]
    assert "t-recall-two" in ids and "t-recall-one" not in ids


def test_queue_puts_due_reviews_first_lowest_retrievability_first(mini_bank: Path) -> None:
    bank = load_bank(mini_bank, use_cache=False)
    store = Store(Path(os.environ["QUIZZER_DB"]))
    scheduler = make_scheduler(SchedulerSettings(fuzz=False))
    start = datetime(2026, 11, 1, tzinfo=UTC)
    for qid, grade in (("t-recall-three", Grade.EASY), ("t-recall-four", Grade.GOOD)):
        before = new_card(start)
        after = review(scheduler, before, grade, start)
        save_review(store, qid, before, after, int(grade), start)
    now = datetime.fromisoformat(os.environ["QUIZZER_NOW"])
    queue = [q.id for q in due_queue(bank, store, now)]
    assert queue[:2] == ["t-recall-four", "t-recall-three"]  # GOOD card is less stable
    assert due_queue(bank, store, now, Filters(kinds=("choice",)))[0].id == "t-choice-one"
    assert [q.id for q in due_queue(bank, store, now, due_only=True)] == queue[:2]


def test_daily_new_limit(mini_bank: Path) -> None:
    bank = load_bank(mini_bank, use_cache=False)
    store = Store(Path(os.environ["QUIZZER_DB"]))
    store.set_setting("new_per_day", 2)
    now = datetime.fromisoformat(os.environ["QUIZZER_NOW"])
    assert len(due_queue(bank, store, now)) == 2


def test_renamed_question_keeps_its_history(mini_bank: Path, cli) -> None:  # type: ignore[no-untyped-def]
    cli("drill", "--plain", "--id", "t-recall-two", input="x\n\n3\n")
    path = mini_bank / "questions" / "test" / "mini.yaml"
    text = path.read_text("utf-8").replace(
        "- id: t-recall-two\n", "- id: t-block-table\n  previous_ids: [t-recall-two]\n"
    )
    path.write_text(text, "utf-8")
    cli("drill", "--plain", "--id", "t-block-table", input="x\n\n3\n")
    card = json.loads(cli("show", "t-block-table", "--json").output)["card"]
    assert card["reps"] == 2


def test_removed_question_history_is_kept(mini_bank: Path, cli) -> None:  # type: ignore[no-untyped-def]
    cli("drill", "--plain", "--id", "t-recall-four", input="x\n\n3\n")
    path = mini_bank / "questions" / "test" / "mini.yaml"
    text = path.read_text("utf-8")
    start = text.index("- id: t-recall-four")
    end = text.index("- id: t-choice-one")
    path.write_text(text[:start] + text[end:], "utf-8")
    stats = json.loads(cli("stats", "--json").output)
    assert stats["reviews_total"] == 1


def test_edited_question_is_flagged_not_reset(mini_bank: Path, cli) -> None:  # type: ignore[no-untyped-def]
    cli("drill", "--plain", "--id", "t-recall-one", input="x\n\n3\n")
    path = mini_bank / "questions" / "test" / "mini.yaml"
    path.write_text(
        path.read_text("utf-8").replace(
            "Why does decode read every weight", "Why must decode read every weight"
        ),
        "utf-8",
    )
    out = cli("drill", "--plain", "--id", "t-recall-one", input="x\n\n3\n").output
    assert "edited since your last review" in out
    assert json.loads(cli("show", "t-recall-one", "--json").output)["card"]["reps"] == 2


def test_leech_after_eight_lapses(mini_bank: Path) -> None:
    bank = load_bank(mini_bank, use_cache=False)
    store = Store(Path(os.environ["QUIZZER_DB"]))
    scheduler = make_scheduler(SchedulerSettings(fuzz=False))
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    card = new_card(moment)
    for _ in range(8):
        for grade in (Grade.GOOD, Grade.GOOD, Grade.AGAIN):
            after = review(scheduler, card, grade, moment)
            save_review(store, "t-recall-one", card, after, int(grade), moment)
            card = after
            moment = max(moment, after.due) + timedelta(minutes=1)
    row = store.card("t-recall-one")
    assert row is not None and row.lapses >= 8 and row.leech
    from quizzer.study.stats import summary

    assert summary(bank, store, moment)["leeches"] == ["t-recall-one"]


def test_forecast_counts_due_days_and_ignores_far_ones(mini_bank: Path) -> None:
    from quizzer.study.stats import forecast

    store = Store(Path(os.environ["QUIZZER_DB"]))
    scheduler = make_scheduler(SchedulerSettings(fuzz=False))
    now = datetime.fromisoformat(os.environ["QUIZZER_NOW"])
    for qid, grade in (("t-recall-one", Grade.EASY), ("t-recall-two", Grade.AGAIN)):
        before = new_card(now)
        after = review(scheduler, before, grade, now)
        save_review(store, qid, before, after, int(grade), now)
    far = Card(
        state=State.Review,
        stability=400.0,
        difficulty=5.0,
        due=now + timedelta(days=400),
        last_review=now,
    )
    save_review(store, "t-recall-three", new_card(now), far, 3, now)
    counts = forecast(store.cards(), now)
    assert len(counts) == 14 and sum(counts) == 2  # 1m (today) and 8d; 400d is out of range
    assert counts[0] == 1 and counts[8] == 1


def test_recall_probability_matches_fsrs() -> None:
    """The column-based forgetting curve used for ranking equals fsrs's own."""
    from quizzer.base.clock import iso
    from quizzer.progress.scheduling import recall_probability, retrievability

    scheduler = make_scheduler(SchedulerSettings(fuzz=False))
    last = datetime(2026, 1, 1, 9, tzinfo=UTC)
    for stability, days in ((0.5, 0), (3.2, 1), (12.0, 40), (250.0, 365), (1.0, 0.4)):
        card = Card(
            state=State.Review, stability=stability, difficulty=5.0, due=last, last_review=last
        )
        now = last + timedelta(days=days)
        assert recall_probability(scheduler, stability, iso(last), now) == pytest.approx(
            retrievability(scheduler, card, now), abs=1e-12
        )
