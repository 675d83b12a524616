"""`quizzer new`: append a valid question stub, with a fresh id and schema comments."""

from __future__ import annotations

from pathlib import Path

from quizzer.bank import Bank

MODULE_DIRS = {0: "inference", 1: "prerequisites", 2: "cuda", 3: "distributed", 4: "inference"}
HEADER = "# yaml-language-server: $schema=../../question.schema.json\n"

COMMON_TOP = """\
- id: {id}
  # recall | choice | numeric
  kind: {kind}
  # Ask it the way an interviewer would: one idea, in Markdown.
  prompt: |
    TODO: write the question.
"""

RECALL = """\
  # What a strong candidate says in 30-60 seconds.
  answer: |
    TODO: write the model answer.
  # The 3-5 things the interviewer listens for.
  key_points:
    - TODO first point
    - TODO second point
    - TODO third point
"""

CHOICE = """\
  # Distractors are the mistakes real candidates make; never "all of the above".
  options:
    - TODO option A
    - TODO option B
    - TODO option C
    - TODO option D
  # The letter(s) of the right option(s): B, or [A, C].
  correct: A
"""

NUMERIC = """\
  # How each parameter is drawn: range, choose, value, or a preset (models, gpus, dtypes).
  params:
    model: {{preset: models, choose: [llama-3-8b, llama-3-70b]}}
    dtype: {{preset: dtypes, choose: [bf16, fp8]}}
  # A function in solutions/ taking the params by name, returning base units (bytes, s, ...).
  solution: solutions.inference.weight_bytes
  unit: GB
  tolerance: 0.02
  # Formula, then numbers, then unit, then a sanity check; {{param}} and {{answer}} are filled.
  worked: |
    weights = {{model.params:count}} x {{dtype.bytes}} B = **{{answer}}**
"""

COMMON_BOTTOM = """\
  # Why it is so, the intuition, the common trap.
  explanation: |
    TODO: explain the why.
  # Keys from topics.yaml and articles.yaml (the first article is the main link).
  topics: [{topic}]
  articles: [{article}]
  # Only where an interview page asked it: {{key: company, source: page-file.md}}
  companies: []
  # 1 definition, 2 mechanism, 3 trade-off, 4 design, 5 senior follow-up
  difficulty: 2
"""


def fresh_id(bank: Bank, topic: str) -> str:
    """``<topic>-new-N`` not yet used in the bank (nor as a previous id)."""
    n = 1
    while f"{topic}-new-{n}" in bank.by_id or f"{topic}-new-{n}" in bank.previous:
        n += 1
    return f"{topic}-new-{n}"


def stub_text(question_id: str, kind: str, topic: str, article: str) -> str:
    """The YAML of one stub question."""
    body = {"recall": RECALL, "choice": CHOICE, "numeric": NUMERIC}[kind]
    return (
        COMMON_TOP.format(id=question_id, kind=kind)
        + body.format()
        + COMMON_BOTTOM.format(topic=topic, article=article)
    )


def target_file(bank: Bank, topic: str, article: str) -> Path:
    """questions/<module>/<topic>.yaml for the article's module."""
    module = bank.articles[article].module
    return bank.root / "questions" / MODULE_DIRS.get(module, "misc") / f"{topic}.yaml"


def append_stub(bank: Bank, kind: str, topic: str, article: str) -> tuple[str, Path, int]:
    """Append a stub; returns (id, file, line of the new question)."""
    question_id = fresh_id(bank, topic)
    path = target_file(bank, topic, article)
    path.parent.mkdir(parents=True, exist_ok=True)
    existing = path.read_text("utf-8") if path.exists() else HEADER
    if not existing.endswith("\n"):
        existing += "\n"
    line = existing.count("\n") + 1
    path.write_text(existing + stub_text(question_id, kind, topic, article), "utf-8")
    return question_id, path, line
