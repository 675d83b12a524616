"""Where question files live: ``questions/<module folder>/<topic>.yaml``, one axis, the topic.

A question lives in the file of its first topic, in the folder of the module whose chapter lists
that topic (1 prerequisites, 2 cuda, 3 distributed, 4 inference). `quizzer new` writes its stub
there, and `quizzer validate` warns about every file and question elsewhere, saying where each
belongs. They are warnings, not errors: such a file is still read, served and shipped (the
loader refuses only what would not be, see ``bank.question_files``). The bank's order follows the
layout too: within a folder, the topics' files come in the guide's order (``bank._guide_order``).
"""

from __future__ import annotations

from pathlib import Path

from quizzer.content.bank import (
    LAYOUT,
    MODULE_FOLDERS,
    QUESTIONS_DIR,
    Bank,
    Diagnostic,
    display_path,
    suggest,
)

FOLDERS: dict[int, str] = dict(enumerate(MODULE_FOLDERS, start=1))
"""Module number -> its questions folder (MODULE_FOLDERS lists them in module order)."""
RULE = "each question goes in the file of its first topic"


def topic_modules(bank: Bank) -> dict[str, int]:
    """Topic key -> the number of the module whose chapter lists it (topics.yaml)."""
    return {
        topic.key: module.module
        for module in bank.modules
        for chapter in module.chapters
        for topic in chapter.topics
    }


def topic_file(topic: str, module: int) -> str | None:
    """``questions/<folder>/<topic>.yaml`` (relative to the bank root) for a topic of ``module``,
    or None when that module has no questions folder."""
    folder = FOLDERS.get(module)
    return None if folder is None else f"{QUESTIONS_DIR}/{folder}/{topic}.yaml"


def misplaced(bank: Bank) -> list[Diagnostic]:
    """A warning for every question file, and every question, that is not where the layout puts
    it: a file in a folder that is no module's, a file named after no topic of its module, and a
    question whose first topic is not the file's topic. Each message says where it belongs."""
    modules = topic_modules(bank)
    found = [
        Diagnostic(display_path(bank.root / name), 0, 0, f"warning: {message}")
        for name in bank.files
        if (message := _file_problem(Path(name), modules)) is not None
    ]
    for question in bank.questions:
        loc = bank.locations[question.id]
        first = question.topics[0]
        home = topic_file(first, modules[first])
        if home is None:
            message = _no_folder(first, modules[first])
        elif Path(loc.path).parts[-3:] != Path(home).parts:
            message = f"question {question.id!r} belongs in {home}, the file of its first topic"
        else:
            continue
        found.append(Diagnostic(loc.path, loc.line, 3, f"warning: {message}"))
    return sorted(found)


def _file_problem(name: Path, modules: dict[str, int]) -> str | None:
    """Why a question file (``questions/<folder>/<name>.yaml``) is not a topic's file, or None."""
    folder, topic = name.parent.name, name.stem
    if folder not in MODULE_FOLDERS:
        return (
            f"{folder!r} is not a module folder{suggest(folder, MODULE_FOLDERS)}: question files "
            f"live at {LAYOUT}; {RULE}"
        )
    if topic not in modules:
        number = MODULE_FOLDERS.index(folder) + 1
        here = [key for key, module in modules.items() if module == number]
        return (
            f"{topic!r} is not a topic of module {number}{suggest(topic, here)}: question files "
            f"live at {LAYOUT}; {RULE}"
        )
    home = topic_file(topic, modules[topic])
    if home is None:
        return _no_folder(topic, modules[topic])
    if FOLDERS[modules[topic]] != folder:
        return f"topic {topic!r} is in module {modules[topic]}: this file belongs at {home}"
    return None


def _no_folder(topic: str, module: int) -> str:
    return f"topic {topic!r} is in module {module}, which has no questions folder ({LAYOUT})"
