"""Deep checks beyond the schema: run every numeric question's solution on sampled parameters,
and every code exercise's checks against its model solution, mutants and starter.

A numeric question fails validation, at its file:line, when its solution is missing, its
parameters don't match the solution's signature, a draw raises, the answer is NaN, infinite
or negative where that is impossible, or its prompt/worked templates name unknown fields. A code
exercise fails when its model solution does not pass, a mutant passes (the checks have no
teeth) or the starter passes.
"""

from __future__ import annotations

import itertools
import math
import random
import sys
from typing import Any, TextIO

from quizzer.content.bank import Bank, Diagnostic
from quizzer.content.models import NumericQuestion
from quizzer.grading.units import UnitError, parse_unit

SAMPLED_SEEDS = 12
MAX_EXTREME_COMBOS = 64


def _combos(q: NumericQuestion, bank: Bank) -> list[dict[str, Any]]:
    """Extreme corners of the parameter space plus a few seeded draws."""
    from quizzer.grading import calc

    names = list(q.params)
    ends = [calc.extremes(q.params[name], bank.root) for name in names]
    corners = list(itertools.product(*ends))
    if len(corners) > MAX_EXTREME_COMBOS:
        corners = random.Random(q.id).sample(corners, MAX_EXTREME_COMBOS)
    combos = [dict(zip(names, corner, strict=True)) for corner in corners]
    for seed in range(SAMPLED_SEEDS):
        combos.append(calc.draw_params(q, seed, bank_root=bank.root))
    return combos


def check_numeric(q: NumericQuestion, bank: Bank) -> list[str]:
    """Problems with one numeric question, as messages."""
    from quizzer.grading import calc

    try:
        parse_unit(q.unit)
    except UnitError as exc:
        return [f"unit: {exc}"]
    try:
        problems = calc.signature_problems(q)
    except calc.CalcError as exc:
        return [f"solution: {exc}"]
    if problems:
        return problems
    try:
        combos = _combos(q, bank)
    except calc.CalcError as exc:
        return [f"params: {exc}"]
    for params in combos:
        shown = {k: getattr(v, "key", v) for k, v in params.items()}
        try:
            answer, intermediates = calc.run_solution(q, params)
        except Exception as exc:
            return [f"{q.solution} raised {type(exc).__name__}: {exc} with {shown}"]
        if not math.isfinite(answer):
            return [f"{q.solution} returned {answer} with {shown}"]
        if answer < 0 and not q.allow_negative:
            return [f"{q.solution} returned a negative answer ({answer:g}) with {shown}"]
        attempt = calc.Attempt(q, 0, params, answer, intermediates)
        for label, template in (
            ("prompt", q.prompt),
            ("worked", q.worked),
            ("zh.prompt", q.zh.prompt if q.zh else None),
            ("zh.worked", q.zh.worked if q.zh else None),
        ):
            if template is None:
                continue
            try:
                calc.render(template, attempt.context)
            except calc.CalcError as exc:
                return [f"{label}: {exc}"]
    return []


def deep_check(
    bank: Bank, progress: bool = False, stream: TextIO | None = None
) -> list[Diagnostic]:
    """Every problem found by running the bank's numeric solutions."""
    out = stream or sys.stderr
    numeric = [q for q in bank.questions if isinstance(q, NumericQuestion)]
    diagnostics: list[Diagnostic] = []
    for index, q in enumerate(numeric, 1):
        if progress and (index % 10 == 0 or index == len(numeric)):
            width = 30
            filled = width * index // len(numeric)
            out.write(
                f"\rchecking numeric solutions [{'#' * filled:<{width}}] {index}/{len(numeric)}"
            )
            out.flush()
        for message in check_numeric(q, bank):
            loc = bank.locations[q.id]
            diagnostics.append(Diagnostic(loc.path, loc.line, 3, f"{q.id}: {message}"))
    if progress and numeric:
        out.write("\n")
    return diagnostics + check_exercises(bank, progress, out)


def check_exercises(
    bank: Bank, progress: bool = False, stream: TextIO | None = None
) -> list[Diagnostic]:
    """Every problem found by running the code exercises' checks: each model solution must
    pass, each mutant and each starter must fail (see quizzer.grading.exercises)."""
    if not bank.exercises:
        return []
    from quizzer.grading.exercises import validate_exercises

    if progress:
        out = stream or sys.stderr
        out.write(f"checking {len(bank.exercises)} code exercises (solutions, mutants, starters)\n")
        out.flush()
    found = validate_exercises(bank.exercises)
    diagnostics = []
    for question in bank.exercises:
        loc = bank.locations[question.id]
        for message in found.get(question.id, []):
            diagnostics.append(Diagnostic(loc.path, loc.line, 3, f"{question.id}: {message}"))
    return diagnostics
