"""Project contracts: the core never imports Textual, every command has help, start-up stays
light."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

import quizzer
from quizzer.cli import main

ROOT = Path(__file__).resolve().parent.parent

CORE_MODULES = sorted(
    f"quizzer.{m.name}" for m in pkgutil.iter_modules(quizzer.__path__) if m.name != "tui"
)


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_module_does_not_import_textual(module: str) -> None:
    code = f"import sys, {module}; print(any(m.split('.')[0] == 'textual' for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_only_the_tui_package_imports_textual_in_source() -> None:
    root = Path(quizzer.__file__).parent
    offenders = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if "tui" not in path.relative_to(root).parts
        and any(
            line.strip().startswith(("import textual", "from textual"))
            for line in path.read_text("utf-8").splitlines()
        )
    ]
    assert offenders == []


def test_cli_start_path_stays_light() -> None:
    code = (
        "import sys; import quizzer.cli; heavy = {'textual', 'numpy', 'pint', 'genanki', "
        "'fsrs', 'sqlite_utils'}; print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def walk(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    found = []
    for name, command in group.commands.items():
        found.append((prefix + name, command))
        if isinstance(command, click.Group):
            found += walk(command, prefix + name + " ")
    return found


@pytest.mark.parametrize(("name", "command"), walk(main))
def test_every_command_has_help(name: str, command: click.Command, cli) -> None:  # type: ignore[no-untyped-def]
    assert command.help and len(command.help) > 15, name
    result = cli(*name.split(), "--help")
    assert result.exit_code == 0 and "Usage:" in result.output
    for param in command.params:
        if isinstance(param, click.Option):
            assert param.help, f"{name} {param.opts} has no help"


def test_version(cli) -> None:  # type: ignore[no-untyped-def]
    assert quizzer.__version__ in cli("--version").output


def test_python_dash_m_works() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "quizzer", "--version"], capture_output=True, text=True, check=True
    )
    assert "quizzer" in out.stdout


def test_bad_quizzer_now_is_a_clear_error(cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("QUIZZER_NOW", "yesterday")
    result = cli("stats")
    assert result.exit_code == 2 and "QUIZZER_NOW" in result.output


def test_import_contracts_hold() -> None:
    """The import-linter contracts of pyproject.toml (the same check as running `lint-imports`):
    the core never imports a front end or Textual, data flows one way (base, content, grading,
    progress, study, then the CLI and the TUI), and no package's modules import in a cycle,
    type-only imports included."""
    from importlinter.cli import lint_imports

    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0


def test_lint_imports_reports_a_broken_layer(tmp_path: Path) -> None:
    """The contracts have teeth: a config whose layers point the wrong way is reported."""
    from importlinter.cli import lint_imports

    config = tmp_path / "contracts.toml"
    config.write_text(
        "[tool.importlinter]\n"
        'root_packages = ["quizzer"]\n'
        "[[tool.importlinter.contracts]]\n"
        'name = "upside down"\n'
        'type = "layers"\n'
        'layers = ["quizzer.base", "quizzer.progress"]\n',
        "utf-8",
    )
    assert lint_imports(config_filename=str(config), no_cache=True) == 1


MAX_TRACKED_BYTES = 1_000_000
LARGE_FILES_ALLOWED: dict[str, str] = {}
"""Tracked files allowed past MAX_TRACKED_BYTES, each with the reason it is deliberate (none
today: the largest, question_bank/questions/prerequisites/*.yaml and readings.yaml, are a few
hundred KB)."""


def test_no_tracked_file_is_larger_than_1_mb_unless_listed() -> None:
    """A stray wheel, database, cache or dump committed by mistake is caught before it lands."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    too_big = [
        f"{name} ({size:,} bytes)"
        for name in listed.stdout.split("\0")
        if name
        and (ROOT / name).is_file()
        and (size := (ROOT / name).stat().st_size) > MAX_TRACKED_BYTES
        and name not in LARGE_FILES_ALLOWED
    ]
    assert too_big == []


def test_tests_of_solutions_mirror_solutions_file_for_file() -> None:
    """solutions/<subject>.py and tests/solutions/test_<subject>.py come in pairs, and every
    function of a subject is worked by hand in its own test file (modules that only re-export
    names for older banks, such as solutions/inference.py, define no function and need none).
    Like rustlings' `dev check`: no reference solution ships without its worked example."""
    import ast
    import re

    functions = {
        path.stem: [
            node.name
            for node in ast.parse(path.read_text("utf-8")).body
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
        ]
        for path in (ROOT / "solutions").glob("*.py")
        if not path.name.startswith("_")
    }
    subjects = {stem for stem, names in functions.items() if names}
    tests = {p.stem.removeprefix("test_") for p in (ROOT / "tests" / "solutions").glob("test_*.py")}
    assert sorted(subjects - tests) == [] and sorted(tests - subjects) == []
    elsewhere = [
        f"{stem}.{name}"
        for stem in sorted(subjects)
        for name in functions[stem]
        if not re.search(
            rf"\b{name}\(",
            (ROOT / "tests" / "solutions" / f"test_{stem}.py").read_text("utf-8"),
        )
    ]
    assert elsewhere == []


def test_the_readme_and_ci_run_the_processes_tier_after_the_default_run() -> None:
    """The multi-second real-process tests are out of the default `pytest` (it stays a quick
    loop), so the README's test command and CI must run them too, or they would never run."""
    import tomllib

    options = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["pytest"]
    addopts = options["ini_options"]["addopts"]
    assert "-m 'not slow and not processes'" in addopts
    assert any(m.startswith("processes:") for m in options["ini_options"]["markers"])
    readme = (ROOT / "README.md").read_text("utf-8")
    test_command = next(line for line in readme.splitlines() if 'pip install -e ".[test]"' in line)
    assert test_command.endswith("&& pytest && pytest -m processes")
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    assert "\nrun_pytest\nrun_pytest -m processes\n" in ci
