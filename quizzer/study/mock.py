"""Company mock interviews: assemble a realistic set, time it, report on it.

A mock asks the company's tagged questions first, then questions on the topics its interview
pages show, mixed in kind and ordered warm-up (difficulty 1–2) → core (3) → hard (4–5). A mock
long enough for it ends with one code exercise (手撕), which takes CODE_MINUTES of its time. No
answer is shown until the end. How answers are rated is MockRatings below, which the plain mock
and the app both follow.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from quizzer.content.bank import Bank
from quizzer.content.models import AnyQuestion, CodeQuestion, RecallQuestion
from quizzer.progress.scheduling import Grade
from quizzer.progress.store import Store
from quizzer.study.session import Current, Outcome, Rated, StudySession

MINUTES_PER_QUESTION = 3.0
MIN_QUESTIONS = 3
MAX_QUESTIONS = 25
CODE_MINUTES = 15.0
"""The time budget of a mock's code exercise: about what an interviewer gives a hand-written
operator. A mock includes one only if this leaves room for MIN_QUESTIONS other questions."""


@dataclass
class MockPlan:
    """The questions of one mock, or why there are none."""

    company: str
    questions: list[AnyQuestion]
    message: str = ""
    """Why there are no questions, or (with questions) a notice to show before starting."""
    tier_mates: list[str] = field(default_factory=list)
    exercise_minutes: float = 0.0
    """The time budgeted for the code exercise that ends the mock (0 when it has none)."""


def phase(q: AnyQuestion) -> int:
    """0 warm-up, 1 core, 2 hard."""
    return 0 if q.difficulty <= 2 else (1 if q.difficulty == 3 else 2)


def tier_mates(bank: Bank, company: str, limit: int = 3) -> list[str]:
    """Companies of the same tier with the most tagged questions."""
    tier = bank.companies[company].tier
    counts: dict[str, int] = defaultdict(int)
    for q in bank.questions:
        for tag in q.companies:
            if tag.key != company and bank.companies[tag.key].tier == tier:
                counts[tag.key] += 1
    return sorted(counts, key=lambda key: (-counts[key], key))[:limit]


def assemble_mock(
    bank: Bank, store: Store, company: str, minutes: float = 45, seed: int | None = None
) -> MockPlan:
    """Pick and order the questions of a mock for ``company``."""
    if company not in bank.companies:
        from quizzer.content.keys import unknown_key_message

        return MockPlan(company, [], unknown_key_message(bank, "companies", company))
    tagged = [q for q in bank.questions if any(t.key == company for t in q.companies)]
    message, mates = "", []
    if not tagged:
        # As the README promises: the closest tier-mates' questions stand in.
        mates = tier_mates(bank, company)
        name = bank.companies[company].name_en
        if not mates:
            return MockPlan(
                company,
                [],
                f"No question in the bank is tagged {name} yet, nor any company of its tier "
                f"({bank.companies[company].tier}); `quizzer keys companies` lists those that are.",
            )
        message = (
            f"No question in the bank is tagged {name} yet; this mock asks those of its closest "
            f"tier-mates: {', '.join(mates)}."
        )
        tagged = [q for q in bank.questions if any(t.key in mates for t in q.companies)]
    rng = random.Random(seed if seed is not None else f"{company}")
    topics = {t for q in tagged for t in q.topics}
    related = [q for q in bank.questions if q not in tagged and topics & set(q.topics)]
    rng.shuffle(tagged)
    rng.shuffle(related)
    pool = tagged + related
    # One code exercise at most (the company's own first), if the mock has time for it.
    codes = [q for q in pool if isinstance(q, CodeQuestion)]
    room = minutes >= CODE_MINUTES + MIN_QUESTIONS * MINUTES_PER_QUESTION
    exercise = codes[0] if codes and room else None
    budget = minutes - (CODE_MINUTES if exercise else 0)
    count = max(MIN_QUESTIONS, min(MAX_QUESTIONS, round(budget / MINUTES_PER_QUESTION)))
    chosen = [q for q in pool if not isinstance(q, CodeQuestion)][:count]
    # Mix kinds inside each phase so the interview does not run a block of one kind.
    chosen.sort(key=lambda q: (phase(q), ("recall", "choice", "numeric").index(q.kind)))
    ordered: list[AnyQuestion] = []
    for band in (0, 1, 2):
        group = [q for q in chosen if phase(q) == band]
        by_kind: dict[str, list[AnyQuestion]] = defaultdict(list)
        for q in group:
            by_kind[q.kind].append(q)
        while any(by_kind.values()):
            for kind in ("recall", "choice", "numeric"):
                if by_kind[kind]:
                    ordered.append(by_kind[kind].pop(0))
    if exercise is None:
        return MockPlan(company, ordered, message, mates)
    # Last, as interviews usually end: the hand-written operator.
    return MockPlan(company, [*ordered, exercise], message, mates, exercise_minutes=CODE_MINUTES)


class MockRatings:
    """The rating policy of a mock, shared by the plain mock and the app.

    A choice or numeric answer is graded as it is given and saved at once (right: Good; wrong
    or blank: Again); so is a code exercise once it passes or is given up, with the rating its
    attempt suggests (quizzer.study.exercise). A recall answer waits, unrated, for the
    self-rating at the end, where the user sees it beside the model answer and key points and
    picks Again, Hard, Good or Easy.
    Ending early (`:quit`, Esc, time up) goes to that self-rating; stopping it (`:quit` or Esc
    again, end of input) keeps what was rated, and a recall answer never rated is not saved:
    it stays unreviewed rather than being counted as Good.
    """

    def __init__(self, session: StudySession) -> None:
        self.session = session
        self.pending: list[Current] = []
        """Recall answers given and not yet rated, in the order they were asked."""

    def answered(self, outcome: Outcome) -> Rated | None:
        """After ``session.submit``: save an auto-graded answer now (returned), or hold a recall
        answer for the self-rating (None)."""
        current = self.session.current
        assert current is not None and current.outcome is outcome, "submit an answer first"
        if isinstance(current.question, RecallQuestion):
            self.pending.append(current)
            self.session.leave_current()
            return None
        return self.session.rate(outcome.suggested)

    def next_to_rate(self) -> Current | None:
        """Open the next held recall answer for self-rating (it becomes the session's current
        question), or None when every one is rated."""
        if not self.pending:
            return None
        self.session.current = self.pending[0]
        return self.pending[0]

    @staticmethod
    def suggestion(current: Current) -> Grade:
        """The rating Enter takes: Good for an attempted answer, Again for a blank one."""
        assert current.outcome is not None
        return current.outcome.suggested

    def rate(self, grade: Grade) -> Rated:
        """Save the self-rating of the recall answer opened by next_to_rate. Its time is the
        time to answer, not the wait until the end."""
        current = self.pending[0]
        assert self.session.current is current, "open it with next_to_rate first"
        rated = self.session.rate(grade, until_answered=True)
        self.pending.pop(0)
        return rated

    def stop(self) -> list[AnyQuestion]:
        """Stop rating: the recall answers still held are not saved. Returns their questions."""
        left = [current.question for current in self.pending]
        if self.session.current in self.pending:
            self.session.leave_current()
        self.pending.clear()
        return left


def mock_report(
    bank: Bank,
    store: Store,
    session: StudySession,
    company: str,
    unrated: list[AnyQuestion] | None = None,
) -> dict[str, Any]:
    """Score by topic, time per question, what to review, and the last mock for comparison;
    ``unrated`` are recall answers given but never self-rated (not saved, not scored)."""
    by_topic: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    per_question = []
    review_next: dict[str, str] = {}
    further: list[str] = []
    for rated in session.done:
        passed = rated.grade > 1
        for topic in rated.question.topics:
            by_topic[topic][0] += int(passed)
            by_topic[topic][1] += 1
        per_question.append(
            {
                "id": rated.question.id,
                "kind": rated.question.kind,
                "seconds": round(rated.duration_ms / 1000, 1),
                "passed": passed,
                "rating": rated.grade.label,
            }
        )
        if not passed:
            title, url = bank.main_link(rated.question)
            review_next[title] = url
            further += [r for r in bank.further_reading(rated.question) if r not in further]
    total = len(session.done)
    passed_total = sum(1 for r in session.done if r.grade > 1)
    previous = None
    if session.session_id is not None:
        last = store.previous_mock(company, session.session_id)
        if last is not None:
            n, ok = store.session_pass_count(last.session_id)
            previous = {
                "started_at": last.started_at,
                "questions": n,
                "score": ok / n if n else None,
            }
    return {
        "company": company,
        "questions": total,
        "score": passed_total / total if total else None,
        "topics": [
            {"key": key, "passed": ok, "asked": n, "title": bank.topics[key].title_en}
            for key, (ok, n) in sorted(by_topic.items(), key=lambda kv: kv[1][0] / kv[1][1])
        ],
        "per_question": per_question,
        "review_next": [{"title": title, "url": url} for title, url in review_next.items()],
        "further_reading": further,
        "previous": previous,
        "unrated": [q.id for q in unrated or []],
    }


def mock_report_text(report: dict[str, Any], bank: Bank) -> str:
    """The report for the plain mock."""
    name = bank.companies[report["company"]].name_en
    lines = [f"\n=== Mock interview report: {name} ==="]
    unrated = report.get("unrated") or []
    note = (
        [f"Not rated, so not saved: {', '.join(unrated)} (recall answers you did not rate)."]
        if unrated
        else []
    )
    if report["score"] is None:
        return "\n".join([*lines, "No question was rated.", *note])
    lines.append(f"Score: {report['score']:.0%} of {report['questions']} question(s)")
    lines += note
    previous = report["previous"]
    if previous and previous["score"] is not None:
        delta = report["score"] - previous["score"]
        lines.append(
            f"Last mock ({previous['started_at'][:10]}): {previous['score']:.0%} "
            f"→ now {report['score']:.0%} ({delta:+.0%})"
        )
    else:
        lines.append("First mock for this company: nothing to compare yet.")
    lines.append("\nBy topic:")
    for row in report["topics"]:
        lines.append(f"  {row['title']:<40} {row['passed']}/{row['asked']}")
    lines.append("\nTime per question:")
    for row in report["per_question"]:
        mark = "✓" if row["passed"] else "✗"
        lines.append(f"  {mark} {row['id']:<44} {row['seconds']:>6.1f}s  {row['rating']}")
    if report["review_next"]:
        lines.append("\nReview next:")
        for row in report["review_next"]:
            lines.append(f"  {row['title']}: {row['url']}")
    if report.get("further_reading"):
        lines.append("\nFurther reading:")
        lines += [f"  {line}" for line in report["further_reading"]]
    return "\n".join(lines)


def mock_report_markdown(
    bank: Bank,
    store: Store,
    session: StudySession,
    company: str,
    unrated: list[AnyQuestion] | None = None,
) -> str:
    """The report for the TUI's summary screen."""
    report = mock_report(bank, store, session, company, unrated)
    text = mock_report_text(report, bank).strip().splitlines()
    title, body = text[0].strip("= "), text[1:]
    lines = [f"# {title}", ""]
    for line in body:
        if line.endswith(":") and not line.startswith(" "):
            lines += ["", f"## {line.rstrip(':').strip()}", ""]
        elif line.startswith("  "):
            lines.append(f"- {line.strip()}")
        elif line:
            lines += [line, ""]
    lines += ["", "Press Enter to go home."]
    return "\n".join(lines)


def deadline_passed(started: datetime, minutes: float, now: datetime) -> bool:
    """Whether a mock that started at ``started`` is out of time."""
    return (now - started).total_seconds() >= minutes * 60
