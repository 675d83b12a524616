"""`--set` on `quizzer solve` / `quizzer check` (issue 13, items 11a and 12): every value is
checked against the question's parameter spec before the solution runs, a solution that fails
is exit 2 with a message, and preset fields apply after presets whatever the order."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizzer.grading import calc
from tests.conftest import FIXTURES, make_bank

Cli = Callable[..., Result]


def refused(result: Result, message: str) -> None:
    """Exit 2, the message on stderr, and no traceback."""
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def solved_params(cli: Cli, *args: str) -> dict[str, Any]:
    result = cli("solve", *args, "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)  # type: ignore[no-any-return]


@pytest.fixture
def spy_solutions(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, Any]]]:
    """Record every call of a reference solution (the parameters it got)."""
    calls: list[dict[str, Any]] = []
    real = calc.run_solution

    def recording(q: Any, params: dict[str, Any]) -> Any:
        calls.append(params)
        return real(q, params)

    monkeypatch.setattr(calc, "run_solution", recording)
    yield calls


# 11a: values are checked against the spec -------------------------------------------------


@pytest.mark.usefixtures("warm_cache")
def test_set_text_for_a_choice_parameter_is_refused_before_the_solution_runs(
    cli: Cli, spy_solutions: list[dict[str, Any]]
) -> None:
    # The shipped question that took 29 s and 12.6 GB before a MemoryError ("abc" * 8192²).
    result = cli("solve", "calc-naive-attention-score-memory", "--set", "batch=abc")
    refused(result, "--set batch=abc: batch takes one of 1, 2, 4, 8")
    assert spy_solutions == []
    refused(
        cli("check", "calc-naive-attention-score-memory", "--answer", "64", "--set", "batch=3"),
        "--set batch=3: batch takes one of 1, 2, 4, 8",
    )
    assert spy_solutions == []


def test_set_integer_range_with_step_refuses_off_grid_fractions_and_out_of_range(
    cli: Cli, mini_bank: Path
) -> None:
    qid = "t-numeric-allreduce"  # size_gb: range [1, 10]; bw_gbps: [50, 400] step 50
    grid = "bw_gbps takes an integer from 50 to 400 in steps of 50"
    for raw in ("75", "450", "0", "-50", "abc", "", "1e999", "nan", "inf"):
        refused(cli("solve", qid, "--set", f"bw_gbps={raw}"), f"--set bw_gbps={raw}: {grid}")
    for raw in ("2.5", "11", "0", "-3", "10.000001"):
        refused(
            cli("solve", qid, "--set", f"size_gb={raw}"),
            f"--set size_gb={raw}: size_gb takes an integer from 1 to 10",
        )
    refused(cli("solve", qid, "--set", "gpus=3"), "--set gpus=3: gpus takes one of 2, 4, 8")
    params = solved_params(
        cli, qid, "--set", "bw_gbps=150", "--set", "size_gb=4.0", "--set", "gpus=8"
    )["params"]
    assert params == {"size_gb": 4, "gpus": 8, "bw_gbps": 150}


@pytest.mark.usefixtures("warm_cache")
def test_set_fixed_value_accepts_only_that_value(cli: Cli) -> None:
    qid = "calc-naive-attention-score-memory"  # head_dim: {value: 128}
    assert solved_params(cli, qid, "--set", "head_dim=128")["params"]["head_dim"] == 128
    refused(
        cli("solve", qid, "--set", "head_dim=64"),
        "--set head_dim=64: head_dim is fixed at 128 in this question",
    )


def test_set_unknown_name_says_did_you_mean(cli: Cli, mini_bank: Path) -> None:
    refused(
        cli("solve", "t-numeric-allreduce", "--set", "bw_gbs=100"),
        "--set bw_gbs=100: no parameter or preset field 'bw_gbs' (did you mean 'bw_gbps'?)",
    )
    refused(
        cli("solve", "t-numeric-weights", "--set", "model.layrs=40"),
        "has no field 'layrs' (did you mean 'layers'?)",
    )


def test_set_preset_must_be_one_the_question_offers(cli: Cli, mini_bank: Path) -> None:
    # model: {preset: models, choose: [llama-3-8b, llama-3-70b]}
    refused(
        cli("solve", "t-numeric-weights", "--set", "model=llama-2-7b"),
        "--set model=llama-2-7b: model takes one of the models presets llama-3-8b, llama-3-70b",
    )
    refused(
        cli("solve", "t-numeric-weights", "--set", "model=llama-3-70"),
        "(did you mean 'llama-3-70b'?)",
    )


def test_set_preset_field_takes_a_number_like_the_data_file(cli: Cli, mini_bank: Path) -> None:
    qid = "t-numeric-weights"
    pinned = ("--set", "model=llama-3-70b")
    for raw in ("abc", "2.5", "0", "-8", "nan", "1e999"):
        refused(
            cli("solve", qid, *pinned, "--set", f"model.layers={raw}"),
            f"--set model.layers={raw}: model.layers (a models field; llama-3-70b has 80) "
            "takes a positive integer up to",
        )
    refused(
        cli("solve", qid, *pinned, "--set", "dtype.title=huge"),
        "--set dtype.title=huge: title is a label, not a number",
    )
    # bytes is 0.5 for the 4-bit formats, so a fraction is fine there.
    assert solved_params(cli, qid, "--set", "dtype.bytes=0.5")["params"]["dtype.bytes"] == 0.5


# 11a: whatever goes wrong inside a solution is exit 2 ---------------------------------------


@pytest.fixture
def zero_bandwidth_bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The mini bank, with a bandwidth range that lets 0 GB/s through to the solution."""
    text = (FIXTURES / "mini-questions.yaml").read_text("utf-8")
    text = text.replace("bw_gbps: {range: [50, 400], step: 50}", "bw_gbps: {range: [0, 400]}")
    bank = make_bank(tmp_path / "zero-bw", text)
    monkeypatch.setenv("QUIZZER_BANK", str(bank))
    return bank


def test_solution_raising_is_exit_2_cannot_compute_in_solve_and_check(
    cli: Cli, zero_bandwidth_bank: Path
) -> None:
    args = ("t-numeric-allreduce", "--seed", "1", "--set", "bw_gbps=0")
    message = "cannot compute with these parameters: ZeroDivisionError"
    refused(cli("solve", *args), message)
    refused(cli("solve", *args, "--json"), message)
    refused(cli("check", *args, "--answer", "12 ms"), message)  # 2, never 1 ("wrong")


@pytest.mark.parametrize(
    ("returned", "message"),
    [
        (float("nan"), "the solution gives nan"),
        (float("inf"), "the solution gives inf"),
        ("12 GB", "solutions.comm.ring_allreduce_time returned str, not a number"),
        (
            {"note": "no answer key"},
            "solutions.comm.ring_allreduce_time returned NoneType, not a number",
        ),
        (10**400, "OverflowError"),
    ],
    ids=["nan", "inf", "text", "dict-without-answer", "int-too-big-for-a-float"],
)
def test_solution_returning_nan_inf_or_a_non_number_is_exit_2(
    cli: Cli, mini_bank: Path, monkeypatch: pytest.MonkeyPatch, returned: Any, message: str
) -> None:
    import solutions.comm

    monkeypatch.setattr(solutions.comm, "ring_allreduce_time", lambda **_: returned)
    calc.load_solution.cache_clear()
    try:
        for command in (("solve",), ("check", "--answer", "1 ms")):
            result = cli(*command, "t-numeric-allreduce", "--seed", "1")
            refused(result, f"cannot compute with these parameters: {message}")
    finally:
        calc.load_solution.cache_clear()


# 12: presets first, then fields, whatever the order ------------------------------------------


@pytest.mark.parametrize(
    "sets",
    [
        ["params=1e9", "model=llama-3-70b", "dtype=bf16"],  # the field first: it was dropped
        ["model=llama-3-70b", "dtype=bf16", "params=1e9"],
        ["dtype=bf16", "model.params=1e9", "model=llama-3-70b"],
    ],
    ids=["field-before-preset", "field-after-preset", "dotted-field-before-preset"],
)
def test_field_override_applies_after_its_preset_whatever_the_order(
    cli: Cli, mini_bank: Path, sets: list[str]
) -> None:
    args = [arg for item in sets for arg in ("--set", item)]
    solved = solved_params(cli, "t-numeric-weights", *args)
    assert solved["answer"]["value"] == pytest.approx(2.0)  # 1e9 params x 2 B, not 141.2 GB
    assert solved["params"] == {
        "model": "llama-3-70b",
        "model.params": 1e9,
        "dtype": "bf16",
    }
    text = cli("solve", "t-numeric-weights", "--seed", "1", *args).output
    assert "model.params = 1000000000" in text and "Answer: 2 GB" in text


# 11a: fuzz ------------------------------------------------------------------------------------

FUZZ_QUESTIONS = [
    "calc-naive-attention-score-memory",  # choose, value and a preset
    "calc-chunked-prefill-steps",  # an integer range on a step grid
    "calc-symmetric-scale",  # a float range
    "calc-theoretical-occupancy",  # a GPU preset with many fields
    "calc-nvlink-vs-pcie-copy",
    "calc-mfu-from-throughput",
    "calc-kv-bytes-per-token",
    "calc-weight-memory",
]
JUNK = ["abc", "", "0", "-1", "1e999", "nan", "-inf", "1e308", "9" * 5000, "0x10", "2**10", "1_0"]
NAMES = st.sampled_from(
    [
        "batch",
        "seq",
        "head_dim",
        "dtype",
        "dtype.bytes",
        "bytes",
        "model",
        "model.params",
        "model.layers",
        "layers",
        "gpu",
        "gpu.nvlink_gbps",
        "gpu.max_threads_per_sm",
        "prompt_tokens",
        "absmax",
        "bits",
        "tokens_per_s",
        "kv_heads",
        "title",
    ]
) | st.text(max_size=12)
VALUES = st.one_of(
    st.sampled_from(JUNK),
    st.text(max_size=20),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["1", "2", "8", "128", "4096", "0.5", "fp16", "h100-sxm", "llama-3-70b"]),
)


@pytest.mark.usefixtures("warm_cache")
@settings(
    max_examples=int(os.environ.get("QUIZZER_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    qid=st.sampled_from(FUZZ_QUESTIONS),
    sets=st.lists(st.tuples(NAMES, VALUES), min_size=1, max_size=3),
)
def test_fuzzed_set_values_give_exit_0_or_2_never_a_traceback(
    qid: str, sets: list[tuple[str, str]]
) -> None:
    from quizzer.cli import main

    args = [arg for name, value in sets for arg in ("--set", f"{name}={value}")]
    runner = CliRunner()
    solved = runner.invoke(main, ["solve", qid, "--seed", "7", *args])
    assert solved.exit_code in (0, 2), (args, solved.output, solved.exception)
    assert "Traceback" not in solved.output
    checked = runner.invoke(main, ["check", qid, "--seed", "7", "--answer", "1", *args])
    assert checked.exit_code in ((2,) if solved.exit_code == 2 else (0, 1)), (
        args,
        checked.output,
        checked.exception,
    )
    assert "Traceback" not in checked.output


# 11b: settings ------------------------------------------------------------------------------


def test_settings_negative_number_reaches_the_range_check_not_the_option_parser(
    cli: Cli,
) -> None:
    result = cli("settings", "new_per_day", "-3")
    refused(result, "new_per_day must be a whole number between 0 and 1000 (got '-3')")
    assert "No such option" not in result.output
    refused(
        cli("settings", "desired_retention", "-0.5"),
        "desired_retention must be a number between 0.70 and 0.99 (got '-0.5')",
    )
    assert cli("settings", "new_per_day").output.strip() == "15"  # unchanged


@pytest.mark.parametrize("raw", ["nan", "inf", "-inf", "1e999", "NaN"])
@pytest.mark.parametrize(
    "key", ["desired_retention", "new_per_day", "learning_steps_min", "relearning_steps_min"]
)
def test_settings_non_finite_values_are_refused_and_drill_still_runs(
    cli: Cli, mini_bank: Path, key: str, raw: str
) -> None:
    refused(cli("settings", key, raw), f"{key} must be ")
    drilled = cli("drill", "--plain", "--id", "t-recall-one", input="x\n\n3\n")
    assert drilled.exit_code == 0 and "saved: good" in drilled.output


@pytest.mark.parametrize(
    ("key", "raw"),
    [
        ("desired_retention", "0.5"),
        ("desired_retention", "1"),
        ("new_per_day", "1001"),
        ("new_per_day", "2.5"),
        ("learning_steps_min", "1,0"),
        ("learning_steps_min", "1,-10"),
        ("learning_steps_min", "50000"),
        ("relearning_steps_min", ",".join(["1"] * 11)),
        ("relearning_steps_min", "ten"),
        ("theme", "blue"),
        ("language", "fr"),
    ],
)
def test_settings_out_of_range_values_are_refused_with_the_range(
    cli: Cli, key: str, raw: str
) -> None:
    from quizzer.progress.settings import SETTINGS

    refused(cli("settings", key, raw), f"{key} must be {SETTINGS[key].rule} (got {raw!r})")


def test_settings_misspelt_name_says_did_you_mean(cli: Cli) -> None:
    refused(cli("settings", "new_per_dya", "3"), "no setting 'new_per_dya' (did you mean")
    refused(cli("settings", "learning_step"), "(did you mean 'learning_steps_min'?)")


def test_settings_in_range_values_are_saved_and_shown(cli: Cli) -> None:
    assert cli("settings", "new_per_day", "0").exit_code == 0
    assert cli("settings", "learning_steps_min", "1, 10, 60").exit_code == 0
    assert cli("settings", "theme", "Light").exit_code == 0
    shown = cli("settings").output
    assert "new_per_day            0 " in shown
    assert "learning_steps_min     1,10,60" in shown
    assert "theme                  light" in shown


def test_unusable_setting_saved_by_an_older_version_does_not_crash_the_drill(
    cli: Cli, mini_bank: Path
) -> None:
    from quizzer.progress.store import Store

    store = Store(Path(os.environ["QUIZZER_DB"]))
    store.set_setting("learning_steps_min", [float("nan")])  # what the unchecked CLI stored
    store.set_setting("desired_retention", float("inf"))
    store.close()
    drilled = cli("drill", "--plain", "--id", "t-recall-one", input="x\n\n3\n")
    assert drilled.exit_code == 0 and "saved: good, next in 10m" in drilled.output  # defaults


async def test_app_settings_screen_refuses_what_the_cli_refuses(mini_bank: Path) -> None:
    from quizzer.content.bank import load_bank
    from quizzer.progress.settings import SETTINGS
    from quizzer.progress.store import Store
    from quizzer.tui.app import QuizzerApp

    app = QuizzerApp(load_bank(mini_bank, use_cache=False), Store(Path(os.environ["QUIZZER_DB"])))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("comma")
        await pilot.pause()
        screen = app.screen
        for field, raw, key in (
            ("#retention", "nan", "desired_retention"),
            ("#retention", "inf", "desired_retention"),
            ("#new-per-day", "-3", "new_per_day"),
        ):
            screen.query_one("#retention").value = "0.9"  # type: ignore[attr-defined]
            screen.query_one("#new-per-day").value = "15"  # type: ignore[attr-defined]
            screen.query_one(field).value = raw  # type: ignore[attr-defined]
            await pilot.press("ctrl+s")
            await pilot.pause()
            error = str(screen.query_one("#settings-error").render())
            assert SETTINGS[key].rule in error, (raw, error)
        assert app.store.setting("desired_retention") is None  # nothing was saved
        assert app.store.setting("new_per_day") is None


# 11c: `quizzer show` for a card that was set aside before its first review ---------------------


def test_show_a_suspended_question_never_reviewed_says_so(cli: Cli, mini_bank: Path) -> None:
    assert cli("suspend", "t-recall-two").exit_code == 0
    shown = cli("show", "t-recall-two")
    assert shown.exit_code == 0, shown.output
    assert "What does a block table map?" in shown.output
    assert "Card: new, never reviewed, suspended" in shown.output
    data = json.loads(cli("show", "t-recall-two", "--json").output)["card"]
    assert data["suspended"] is True and data["stability"] is None


def test_show_a_buried_question_never_reviewed_says_until_when(cli: Cli, mini_bank: Path) -> None:
    drilled = cli("drill", "--plain", "--id", "t-choice-one", input=":bury\n")
    assert "buried until tomorrow" in drilled.output
    shown = cli("show", "t-choice-one")
    assert shown.exit_code == 0, shown.output
    assert "Card: new, never reviewed, buried until 2026-12-01" in shown.output


def test_show_a_reviewed_then_suspended_question_keeps_its_numbers(
    cli: Cli, mini_bank: Path
) -> None:
    cli("drill", "--plain", "--id", "t-recall-two", input="x\n\n3\n")
    cli("suspend", "t-recall-two")
    line = cli("show", "t-recall-two").output.strip().splitlines()[-1]
    assert line.startswith("Card: learning, due 2026-11-30T10:10:00")
    assert "stability " in line and "reps 1, lapses 0, suspended" in line
