"""Project contracts: the core never imports Textual, every command has help, start-up stays
light."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import click
import pytest

import quizzer
from quizzer.cli import main

CORE_MODULES = sorted(
    f"quizzer.{m.name}" for m in pkgutil.iter_modules(quizzer.__path__) if m.name != "tui"
)


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_module_does_not_import_textual(module: str) -> None:
    code = f"import sys, {module}; print(any(m.split('.')[0] == 'textual' for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_only_the_tui_package_imports_textual_in_source() -> None:
    from pathlib import Path

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


def test_every_solution_function_has_a_hand_worked_test() -> None:
    """Like rustlings' `dev check`: no reference solution ships without its worked example."""
    import ast
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    tests = "\n".join(p.read_text("utf-8") for p in (root / "tests").rglob("test_*.py"))
    untested = []
    for path in sorted((root / "solutions").glob("*.py")):
        if path.name.startswith("_"):
            continue
        for node in ast.parse(path.read_text("utf-8")).body:
            if (
                isinstance(node, ast.FunctionDef)
                and not node.name.startswith("_")
                and not re.search(rf"\b{node.name}\(", tests)
            ):
                untested.append(f"{path.stem}.{node.name}")
    assert untested == []


def test_tests_of_solutions_mirror_solutions_file_for_file() -> None:
    """solutions/<subject>.py and tests/solutions/test_<subject>.py come in pairs, and every
    function of a subject is worked by hand in its own test file (modules that only re-export
    names for older banks, such as solutions/inference.py, define no function and need none)."""
    import ast
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    functions = {
        path.stem: [
            node.name
            for node in ast.parse(path.read_text("utf-8")).body
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
        ]
        for path in (root / "solutions").glob("*.py")
        if not path.name.startswith("_")
    }
    subjects = {stem for stem, names in functions.items() if names}
    tests = {p.stem.removeprefix("test_") for p in (root / "tests" / "solutions").glob("test_*.py")}
    assert sorted(subjects - tests) == [] and sorted(tests - subjects) == []
    elsewhere = [
        f"{stem}.{name}"
        for stem in sorted(subjects)
        for name in functions[stem]
        if not re.search(
            rf"\b{name}\(",
            (root / "tests" / "solutions" / f"test_{stem}.py").read_text("utf-8"),
        )
    ]
    assert elsewhere == []
