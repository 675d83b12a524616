"""`quizzer new`: append a valid question stub, with a fresh id and schema comments, to the file
the layout gives its topic (questions/<module folder>/<topic>.yaml, see content/layout.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from quizzer.content.bank import QUESTIONS_DIR, Bank, SourceProblem, read_bank_file
from quizzer.content.layout import topic_file, topic_modules

HEADER = "# yaml-language-server: $schema=../../question.schema.json\n"

COMMON_TOP = """\
- id: {id}
  # recall | choice | numeric | code
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
  solution: solutions.memory.weight_bytes
  unit: GB
  tolerance: 0.02
  # Formula, then numbers, then unit, then a sanity check; {{param}} and {{answer}} are filled.
  worked: |
    weights = {{model.params:count}} x {{dtype.bytes}} B = **{{answer}}**
"""

CODE = """\
  # The function the user writes; the checks call it with each case's inputs as keyword arguments.
  entry: solve
  # What the user starts from: imports, the signature and a docstring. It must FAIL the checks.
  starter: |
    import numpy as np


    def solve(x: np.ndarray) -> np.ndarray:
        \"\"\"TODO: what it computes, with shapes and dtypes.\"\"\"
        raise NotImplementedError("write solve")
  # An ExerciseSpec in {spec_file}: the numpy reference, random and edge cases,
  # public examples, tolerances, a model solution and the mutants its checks must reject
  # (question_bank/README.md, "Code exercises in detail"). Name it here in place of TODO.
  checks: solutions.exercises.{module}.TODO
  # From a nudge to the key idea, one at a time.
  hints:
    - TODO first a nudge
    - TODO last the key idea
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


def spec_module(topic: str) -> str:
    """The solutions/exercises module a code stub points its checks at: the topic's key as a
    Python name (``kv-cache`` → ``kv_cache``)."""
    return topic.replace("-", "_")


def spec_file(topic: str) -> str:
    """Where that module's file is, from the project root: the ExerciseSpec is written there."""
    return f"solutions/exercises/{spec_module(topic)}.py"


def stub_text(question_id: str, kind: str, topic: str, article: str) -> str:
    """The YAML of one stub question."""
    body = {"recall": RECALL, "choice": CHOICE, "numeric": NUMERIC, "code": CODE}[kind]
    return (
        COMMON_TOP.format(id=question_id, kind=kind)
        + body.format(module=spec_module(topic), spec_file=spec_file(topic))
        + COMMON_BOTTOM.format(topic=topic, article=article)
    )


class ScaffoldError(Exception):
    """`quizzer new` will not write there; the message says why (starting with the path)."""


def target_file(bank: Bank, topic: str) -> Path:
    """The topic's file, questions/<module folder>/<topic>.yaml, where the stub (whose first and
    only topic it is) belongs. Refused (ScaffoldError) unless it resolves to exactly that file
    inside the bank: a topic key such as ``../../x``, or a link anywhere on the way, would
    otherwise send the stub outside the bank."""
    questions = bank.root.resolve() / QUESTIONS_DIR
    outside = f"refusing to write outside {questions}/<module>/"
    if len(Path(topic).parts) != 1 or topic in (".", ".."):  # checked before it names a folder
        raise ScaffoldError(f"{questions}/<module>/{topic}.yaml: {outside}")
    module = topic_modules(bank).get(topic)
    home = None if module is None else topic_file(topic, module)
    if home is None:
        raise ScaffoldError(f"topic {topic!r} is in no module with a questions folder")
    path = bank.root.resolve() / home
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):
        resolved = None
    if resolved != path or path.parent.parent != questions:
        raise ScaffoldError(f"{path}: {outside}")
    return path


def append_stub(bank: Bank, kind: str, topic: str, article: str) -> tuple[str, Path, int]:
    """Append a stub; returns (id, file, line of the new question). Raises ScaffoldError when
    the file is outside the bank or is not a plain file."""
    question_id = fresh_id(bank, topic)
    path = target_file(bank, topic)
    stub = stub_text(question_id, kind, topic, article)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if os.path.lexists(path):
            existing = read_bank_file(path).decode("utf-8")
            prefix = "" if existing.endswith("\n") else "\n"
            line = existing.count("\n") + len(prefix) + 1
            flags = os.O_WRONLY | os.O_APPEND
        else:
            prefix, line = HEADER, HEADER.count("\n") + 1
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
        # Never through a link, never blocking on a FIFO swapped in meanwhile.
        flags |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        with os.fdopen(os.open(path, flags, 0o644), "wb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise ScaffoldError(f"{path}: not a regular file")
            handle.write((prefix + stub).encode("utf-8"))
    except SourceProblem as exc:
        raise ScaffoldError(f"{path}: {exc}") from None
    except UnicodeDecodeError:
        raise ScaffoldError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise ScaffoldError(f"{path}: cannot write: {exc.strerror}") from None
    return question_id, path, line
