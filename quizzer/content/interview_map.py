"""The interview coverage map: every question line of every interview page, mapped to the bank
questions that prepare for it, or marked out of scope with a reason.

One file per company, ``question_bank/interview_map/<company>.yaml``::

    company: bytedance
    pages:
      - file: 字节跳动-AI-Infra-1.md
        lines:
          1: [inf-kv-cache-size, calc-kv-bytes-per-token]   # covered by these questions
          2: []                                             # in scope, not covered yet
          3: {out: behavioural, note: why this team}        # out of scope, and why

A line counts as covered only when a listed question would really prepare someone to answer it.
Lines are numbered as on the page (1-based, in the order of the page's question list). The map
holds no interview text: only page files, line numbers and question ids.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from quizzer.content.diagnostics import Collector, Diagnostic, Reporter, display_path, suggest

if TYPE_CHECKING:
    from quizzer.content.bank_model import Bank
    from quizzer.content.yamlsrc import Located

MAP_DIR = "interview_map"
OUT_REASONS = {
    "behavioural": "about the candidate, not the subject (motivation, strengths, plans)",
    "project": "about the candidate's own projects or internship",
    "too-company-specific": "about one company's internal system or product",
    "coding": "a pure algorithm or coding task (LeetCode style): the code-exercise kind's job",
}
"""Why a line can be out of scope, with what each reason means."""

THEMES: dict[str, list[str]] = {
    "RL post-training systems": ["rl-algorithms", "rl-systems"],
    "RAG, agents and LLM applications": ["rag-agents"],
    "OS internals": ["os-concurrency", "os-memory", "os-processes"],
    "Convolution and CV operators": ["cv-operators"],
    "C++ for infrastructure": ["cpp-infra", "cpp-fundamentals"],
    "Fine-tuning, SFT and distillation": ["fine-tuning"],
    "Classic ML/DL basics": ["ml-basics"],
    "Other software engineering": ["software-engineering"],
    "CPU parallel programming": ["cpu-parallel"],
    "Diffusion and multimodal serving": ["diffusion-multimodal"],
    "CPU architecture": ["cpu-architecture"],
    "Compilers: TVM": ["tvm"],
    "TensorRT, ONNX, OpenVINO": ["deploy-toolchains"],
    "Networking": ["networking-tcp"],
    "KV-cache compression and sparse attention": ["kv-compression"],
}
"""The themes interviewers ask beyond the guide (issue 16), by topic key."""


@dataclass
class Line:
    """One question line of an interview page, as mapped."""

    page: str
    number: int
    ids: list[str] = field(default_factory=list)
    out: str | None = None
    note: str | None = None

    @property
    def status(self) -> str:
        """`covered`, `out` (of scope) or `uncovered`."""
        if self.out is not None:
            return "out"
        return "covered" if self.ids else "uncovered"


class Counts(TypedDict):
    """Lines by status, and the share of in-scope lines covered."""

    lines: int
    covered: int
    out_of_scope: int
    uncovered: int
    in_scope_covered: float | None


@dataclass
class InterviewMap:
    """Every mapped line, and the problems found reading the map."""

    lines: list[Line] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)


def load_map(bank: Bank) -> InterviewMap:
    """Read and check every map file against the bank's interview catalog and questions."""
    folder = bank.root / MAP_DIR
    if not folder.is_dir():
        return InterviewMap()  # a bank without a map (a contributor's own) is not held to one
    errors = Collector()
    result = InterviewMap(problems=errors.items)
    seen: dict[str, str] = {}
    """Page file -> the map file that maps it."""
    for path in sorted(folder.glob("*.yaml")):
        doc = _read_map_file(path, errors)
        if doc is not None:
            _read_company(bank, path, doc, errors, seen, result)
    for file, page in bank.interviews.items():
        if file not in seen and page.lines:
            result.problems.append(
                Diagnostic(
                    display_path(folder / f"{page.company}.yaml"),
                    1,
                    1,
                    f"interview page {file} ({page.lines} lines) is not mapped",
                )
            )
    return result


def _read_map_file(path: Path, errors: Collector) -> Located | None:
    """The located YAML of one map file, or None with the reason reported."""
    from quizzer.content.sources import SourceProblem, read_bank_file
    from quizzer.content.yamlsrc import YamlProblem, load_located

    try:
        return load_located(read_bank_file(path).decode("utf-8"))
    except (YamlProblem, UnicodeDecodeError, OSError, SourceProblem) as exc:
        line, col = getattr(exc, "line", 1), getattr(exc, "col", 1)
        errors.add(path, line, col, f"cannot read the map: {getattr(exc, 'message', exc)}")
        return None


def _read_company(
    bank: Bank,
    path: Path,
    doc: Located,
    errors: Collector,
    seen: dict[str, str],
    result: InterviewMap,
) -> None:
    """The lines of every page one company's map file maps, checked against the catalog."""
    report = Reporter(errors, path, doc)
    data = doc.data if isinstance(doc.data, dict) else {}
    company = data.get("company")
    if company not in bank.companies:
        report(("company",), f"unknown company {company!r}")
        return
    if path.stem != company:
        report(("company",), f"the file for {company!r} is {company}.yaml")
    raw_pages = data.get("pages")
    pages: list[Any] = raw_pages if isinstance(raw_pages, list) else []
    for p_index, page in enumerate(pages):
        at = ("pages", p_index)
        if not isinstance(page, dict) or page.get("file") not in bank.interviews:
            name = page.get("file") if isinstance(page, dict) else page
            report(at, f"unknown interview page {name!r}")
            continue
        file = page["file"]
        catalog = bank.interviews[file]
        if catalog.company != company:
            report(at + ("file",), f"{file} is a page of {catalog.company!r}")
        if file in seen:
            report(at + ("file",), f"{file} is mapped twice (also {seen[file]})")
            continue
        seen[file] = display_path(path)
        raw_lines = page.get("lines")
        lines: dict[Any, Any] = raw_lines if isinstance(raw_lines, dict) else {}
        page_report = Reporter(errors, path, doc, at)
        _check_line_numbers(file, catalog.lines, lines, page_report)
        for number, value in lines.items():
            line = Line(file, number if isinstance(number, int) else 0)
            _read_line(bank, line, value, page_report.where(("lines", number)), page_report)
            result.lines.append(line)


def _check_line_numbers(file: str, count: int, lines: dict[Any, Any], report: Reporter) -> None:
    """A page's map lists exactly its lines 1..count."""
    expected = set(range(1, count + 1))
    if set(lines) != expected:
        missing = sorted(expected - set(lines))
        extra = sorted(set(lines) - expected, key=str)
        report(
            ("lines",),
            f"{file} has lines 1-{count}: missing {missing or 'none'}, "
            f"not on the page {extra or 'none'}",
        )


def _read_line(
    bank: Bank, line: Line, value: Any, where: tuple[int, int], report: Reporter
) -> None:
    """One mapped line into ``line``: a list of question ids, or an out-of-scope reason with a
    note; every problem reported at the line's place ``where``."""

    def problem(message: str) -> None:
        report.errors.add(report.path, where[0], where[1], message)

    if isinstance(value, list):
        if len(set(map(str, value))) != len(value):
            problem("a question id is listed twice on this line")
        for qid in value:
            if not isinstance(qid, str) or qid not in bank.by_id:
                problem(f"unknown question {qid!r}{suggest(str(qid), bank.by_id)}")
            else:
                line.ids.append(qid)
    elif isinstance(value, dict) and value.get("out") in OUT_REASONS:
        line.out, line.note = value["out"], value.get("note")
        if not isinstance(line.note, str) or not line.note.strip():
            problem("an out-of-scope line needs a short `note`")
        unknown = ", ".join(map(str, set(value) - {"out", "note"}))
        if unknown:
            problem(f"unknown key(s) {unknown} (quote a note with commas)")
    else:
        problem(
            "a line is a list of question ids, or {out: REASON, note: ...} with "
            f"REASON one of {', '.join(OUT_REASONS)}"
        )


def _counts(lines: list[Line]) -> Counts:
    covered = sum(line.status == "covered" for line in lines)
    out = sum(line.status == "out" for line in lines)
    uncovered = len(lines) - covered - out
    in_scope = covered + uncovered
    return {
        "lines": len(lines),
        "covered": covered,
        "out_of_scope": out,
        "uncovered": uncovered,
        "in_scope_covered": round(covered / in_scope, 4) if in_scope else None,
    }


def coverage_report(bank: Bank, mapped: InterviewMap) -> dict[str, Any]:
    """Lines covered, out of scope and uncovered, overall and per company; questions per theme."""
    by_company: dict[str, list[Line]] = {}
    for line in mapped.lines:
        by_company.setdefault(bank.interviews[line.page].company, []).append(line)
    themes = {
        theme: sum(1 for q in bank.questions if set(q.topics) & set(keys))
        for theme, keys in THEMES.items()
    }
    reasons: dict[str, int] = {}
    for line in mapped.lines:
        if line.out is not None:
            reasons[line.out] = reasons.get(line.out, 0) + 1
    return {
        "overall": _counts(mapped.lines),
        "out_of_scope_reasons": reasons,
        "companies": {key: _counts(lines) for key, lines in sorted(by_company.items())},
        "themes": themes,
        "problems": [str(p) for p in mapped.problems],
    }
