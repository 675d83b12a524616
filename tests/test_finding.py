"""Finding and reading questions (issue 17, part 4): one search for `list` and the browser,
`quizzer keys`, unknown keys answered with the closest ones, numeric prompts with sample values,
one accuracy for `stats` and `weak`, the stats screen weakest first, the browser opened down to
its matches, and `o` on a machine with no browser."""

from __future__ import annotations

import json
import os
import re
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from textual.geometry import Region

from quizzer.content.bank import load_bank
from quizzer.content.keys import SINGULAR
from quizzer.content.search import fold, matches_search
from quizzer.progress.store import Store
from quizzer.tui.app import QuizzerApp
from tests.conftest import run_quizzer

Cli = Callable[..., Result]


def listed(result: Result) -> list[str]:
    """The question ids of a `quizzer list` run."""
    assert result.exit_code == 0, result.output
    return [line.split()[0] for line in result.stdout.splitlines() if line.strip()]


def make_app(bank_dir: Path | None = None, start: list[str] | None = None) -> QuizzerApp:
    bank = load_bank(bank_dir) if bank_dir else load_bank()
    return QuizzerApp(bank, Store(Path(os.environ["QUIZZER_DB"])), start)


# search ---------------------------------------------------------------------------------------


def test_fold_ignores_case_spaces_hyphens_punctuation_and_width() -> None:
    assert fold("Flash-Attention 2!") == fold("flashattention2") == "flashattention2"
    assert fold("All Reduce") == fold("all_reduce") == fold("AllReduce")
    assert fold("ＫＶ　Cache") == "kvcache"  # full-width letters and space (NFKC)
    assert fold("张量 并行。") == "张量并行"  # Chinese stays, its punctuation goes


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("all reduce", ["t-numeric-allreduce"]),  # prompt says "Ring AllReduce"
        ("ALL-REDUCE", ["t-numeric-allreduce"]),
        ("block table", ["t-recall-two"]),
        ("logical to physical", ["t-recall-two"]),  # a key point
        ("the kv cache", ["t-choice-one"]),  # an option
        ("算术强度", ["t-recall-one"]),  # only in the Chinese explanation
        ("HBM 带宽", ["t-recall-one"]),  # a Chinese key point, typed with a space
        ("每个序列", ["t-recall-one"]),  # the Chinese answer
    ],
)
def test_list_search_finds_across_fields_and_languages(
    cli: Cli, mini_bank: Path, query: str, expected: list[str]
) -> None:
    assert listed(cli("list", "--search", query)) == expected


def test_search_is_a_phrase_not_loose_words(cli: Cli, mini_bank: Path) -> None:
    # "all" alone is in many texts; "all reduce" must not find every one of them.
    assert len(listed(cli("list", "--search", "all"))) > 1
    assert listed(cli("list", "--search", "reduce all")) == []
    assert len(listed(cli("list", "--search", " - "))) == 7  # punctuation only: no filter


@pytest.mark.usefixtures("warm_cache")
def test_flash_attention_finds_the_flashattention_questions(cli: Cli) -> None:
    found = set(listed(cli("list", "--search", "flash attention")))
    bank = load_bank()
    by_id = [q.id for q in bank.questions if "flashattention" in q.id]
    assert len(by_id) >= 5 and set(by_id) <= found
    assert set(listed(cli("list", "--search", "FlashAttention"))) == found
    assert set(listed(cli("list", "--search", "flash-attention"))) == found
    for qid in found:  # and nothing that does not mention it
        assert matches_search(bank.by_id[qid], "flashattention")


@pytest.mark.usefixtures("warm_cache")
async def test_the_browser_uses_the_same_search_and_opens_down_to_matches() -> None:
    from textual.widgets import Tree

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        for query in ("flash attention", "all reduce", "张量并行"):
            box = screen.query_one("#search")
            box.value = query  # type: ignore[attr-defined]
            await pilot.pause()
            shown = {q.id for q in screen.matching()}  # type: ignore[attr-defined]
            wanted = {q.id for q in app.bank.questions if matches_search(q, query)}
            assert shown == wanted and shown
            tree = screen.query_one("#tree", Tree)
            assert f"({len(shown)})" in str(tree.root.label) and query in str(tree.root.label)
            leaves = tree_leaves(tree.root)
            assert {leaf.data for leaf in leaves} == shown
            if len(shown) <= 150:  # every branch down to each question is open
                for leaf in leaves:
                    node = leaf.parent
                    while node is not None:
                        assert node.is_expanded, node.label
                        node = node.parent


def tree_leaves(node: Any) -> list[Any]:
    """Every question node under ``node``."""
    found = []
    for child in node.children:
        if child.data:
            found.append(child)
        found += tree_leaves(child)
    return found


# keys -----------------------------------------------------------------------------------------


def test_keys_lists_keys_names_and_counts(cli: Cli, mini_bank: Path) -> None:
    topics = cli("keys", "topics")
    assert topics.exit_code == 0
    assert re.search(r"^kv-cache\s+1\s+KV cache$", topics.stdout, re.M)
    assert re.search(r"^cpp-fundamentals\s+0\s", topics.stdout, re.M)  # no question yet
    companies = cli("keys", "companies")
    assert re.search(r"^bytedance\s+1\s+ByteDance · 字节跳动\s+\[T0\]$", companies.stdout, re.M)
    articles = cli("keys", "articles", "--json")
    row = next(r for r in json.loads(articles.stdout) if r["key"] == "m4-c1-1.1")
    assert row["questions"] == 3 and row["note"] == "module 4"


@pytest.mark.usefixtures("warm_cache")
def test_keys_tracks_lists_the_study_tracks_with_their_questions(cli: Cli) -> None:
    shown = cli("keys", "tracks")
    assert shown.exit_code == 0
    for key in ("inference", "training", "kernels", "generalist"):
        assert re.search(rf"^{key}\s+\d+\s+\S", shown.stdout, re.M), shown.stdout


@pytest.mark.parametrize(
    ("args", "first"),
    [
        (("list", "--company", "apple"), None),
        (("list", "--company", "字节"), "bytedance"),  # by its Chinese name
        (("list", "--company", "byte dance"), "bytedance"),
        (("drill", "--topic", "kv cache"), "kv-cache"),
        (("list", "--article", "m4-c2-2.9"), None),
        (("mock", "--company", "apple"), None),
    ],
)
def test_an_unknown_key_lists_the_closest(
    cli: Cli, mini_bank: Path, args: tuple[str, ...], first: str | None
) -> None:
    result = cli(*args)
    assert result.exit_code == 2, result.output
    kind = {"--company": "companies", "--topic": "topics", "--article": "articles"}[args[1]]
    lines = result.output.splitlines()
    assert lines[0].startswith(f"quizzer: unknown {SINGULAR[kind]} {args[2]!r}")
    assert "companie " not in result.output
    offered = lines[1:-1]
    assert len(offered) == 5 and all(line.startswith("  ") for line in offered)
    if first:
        assert offered[0].split()[0] == first
    total = len(getattr(load_bank(mini_bank), kind))
    assert lines[-1] == f"`quizzer keys {kind}` lists all {total}."


# numeric prompts ------------------------------------------------------------------------------


def test_list_and_show_fill_numeric_prompts_with_fixed_sample_values(
    cli: Cli, mini_bank: Path
) -> None:
    first = cli("list", "--kind", "numeric")
    assert "{" not in first.stdout and "Weights of Llama" in first.stdout
    assert cli("list", "--kind", "numeric").stdout == first.stdout  # the same draw each time
    shown = cli("show", "t-numeric-allreduce")
    assert "{" not in shown.stdout.split("Why:")[0]
    assert "Answer for these sample values:" in shown.stdout and " ms" in shown.stdout
    solved = json.loads(cli("solve", "t-numeric-allreduce", "--seed", "0", "--json").stdout)
    assert solved["prompt"].strip() in shown.stdout  # seed 0, as `solve --seed 0` shows
    data = json.loads(cli("show", "t-numeric-allreduce", "--json").stdout)
    assert data["sample"]["seed"] == 0 and data["sample"]["prompt"] == solved["prompt"]
    assert "{size_gb}" in data["prompt"]  # the JSON keeps the template too


def test_show_speaks_the_chosen_language_and_falls_back_to_english(
    cli: Cli, mini_bank: Path
) -> None:
    english = cli("show", "t-recall-one").stdout
    assert "Why does decode read every weight" in english and "为什么" not in english
    chinese = cli("show", "t-recall-one", "--lang", "zh").stdout
    assert "为什么 Decode 每步都要读一遍全部权重？" in chinese
    assert "每步只为每个序列处理一个 token。" in chinese and "  - HBM 带宽" in chinese
    assert "算术强度低。" in chinese and "Why does decode" not in chinese
    assert cli("settings", "language", "zh").exit_code == 0
    assert cli("show", "t-recall-one").stdout == chinese  # the setting, without --lang
    assert cli("show", "t-recall-one", "--lang", "en").stdout == english
    # no Chinese text: English, not an empty answer
    untranslated = cli("show", "t-recall-two", "--lang", "zh").stdout
    assert "What does a block table map?" in untranslated
    assert "Logical KV blocks of a sequence" in untranslated


async def test_the_browser_preview_and_tree_show_sample_values(mini_bank: Path) -> None:
    from textual.widgets import Markdown, Tree

    app = make_app(mini_bank)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        screen.query_one("#search").value = "ring allreduce"  # type: ignore[attr-defined]
        await pilot.pause()
        tree = screen.query_one("#tree", Tree)
        leaf = tree_leaves(tree.root)[0]
        assert str(leaf.label).startswith("[n] Ring AllReduce of")  # kind mark kept, not markup
        assert "{" not in str(leaf.label) and "GB over" in str(leaf.label)
        tree.move_cursor(leaf)
        await pilot.pause()
        source = screen.query_one("#preview", Markdown).source
        assert "Ring AllReduce of" in source and "{" not in source.split("**Why**")[0]
        assert "Sample values" in source


# stats and weak -------------------------------------------------------------------------------


def drill(answers: str, *args: str) -> None:
    result = run_quizzer("drill", "--plain", *args, input=answers)
    assert result.returncode == 0, result.stderr


def test_stats_and_weak_share_one_accuracy_and_list_the_weakest_first(
    cli: Cli, mini_bank: Path
) -> None:
    # kv-cache: one choice answered right (Good); warp-execution: a recall rated Again, then
    # Good; zero: a recall rated Again.
    drill("2\n3\n", "--id", "t-choice-one")
    drill("\n\n1\n", "--id", "t-recall-four")
    drill("\n\n3\n", "--id", "t-recall-four")
    drill("\n\n1\n", "--id", "t-recall-three")
    stats = json.loads(cli("stats", "--json").stdout)
    weak = {row["key"]: row for row in json.loads(cli("weak", "--json").stdout)}
    topics = {row["key"]: row for row in stats["topics"]}
    assert topics["kv-cache"]["accuracy"] == weak["kv-cache"]["accuracy"] == 1.0
    assert topics["warp-execution"]["accuracy"] == weak["warp-execution"]["accuracy"] == 0.5
    assert topics["zero"]["accuracy"] == weak["zero"]["accuracy"] == 0.0
    order = [row["key"] for row in stats["topics"]]
    recall = [row["mean_retrievability"] for row in stats["topics"] if row["reviewed"]]
    assert recall == sorted(recall)  # weakest (lowest recall probability) first
    assert order.index("zero") < order.index("kv-cache")
    assert all(not row["reviewed"] for row in stats["topics"][len(recall) :])
    text = cli("stats").stdout
    assert text.index("zero") < text.index("kv-cache")
    assert "not rated Again" in text and "not rated Again" in cli("weak").stdout


async def test_stats_screen_weakest_first_with_whole_topic_names_at_80x24(
    mini_bank: Path,
) -> None:
    drill("\n\n1\n", "--id", "t-recall-three")  # zero: "ZeRO 1/2/3 and offload", forgotten
    drill("2\n4\n", "--id", "t-choice-one")
    drill("\n\n3\n", "--id", "t-recall-one")  # "Prefill and decode"
    app = make_app(mini_bank)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("v")
        await pilot.pause()
        screen = app.screen
        mastery = screen.query_one("#mastery")
        size = mastery.size
        rendered = [strip.text for strip in mastery.render_lines(Region(0, 0, *size))]
        names = [line.strip().split("  ")[0] for line in rendered[1:4]]
        assert names[0] == "ZeRO 1/2/3 and offload"  # weakest first, the whole name
        assert "Prefill and decode" in names
        right = screen.query_one("#stats-right")
        assert right.region.y >= mastery.region.bottom  # the charts sit below at 80 columns
        assert right.region.bottom <= 23
    app = make_app(mini_bank)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("v")
        await pilot.pause()
        left, right = app.screen.query_one("#stats-left"), app.screen.query_one("#stats-right")
        assert right.region.x >= left.region.right  # side by side when there is room


def test_forecast_axis_labels_never_touch() -> None:
    from quizzer.tui.widgets.charts import forecast_columns

    text = forecast_columns([3, 0, 120, 5, 0, 0, 1, 0, 0, 0, 0, 2, 0, 9]).plain.splitlines()
    counts, axis, summary = text[-3], text[-2], text[-1]
    assert axis.split() == ["now", "+2", "+4", "+6", "+8", "+10", "+12"]
    assert re.fullmatch(r"(\S+ +)+\S+", axis)  # each label followed by a space
    assert counts.split()[2] == "++" and "busiest +2 with 120" in summary
    assert len(axis) <= 42 and all(len(line) <= 42 for line in text)


# opening links --------------------------------------------------------------------------------


class FakeBrowser(webbrowser.BaseBrowser):
    """A graphical browser that opens (or fails to open) without starting anything."""

    def __init__(self, works: bool) -> None:
        super().__init__("fake")
        self.works = works
        self.opened: list[str] = []

    def open(self, url: str, new: int = 0, autoraise: bool = True) -> bool:
        self.opened.append(url)
        return self.works


def no_browser() -> webbrowser.BaseBrowser:
    raise webbrowser.Error("could not locate runnable browser")


@pytest.mark.parametrize(
    ("get", "says"),
    [
        (no_browser, "No web browser on this machine"),
        (lambda: FakeBrowser(False), "The browser did not start"),
        (lambda: webbrowser.GenericBrowser("lynx"), "(lynx) runs in the terminal"),
        (lambda: FakeBrowser(True), "Opening 1.1 LLM inference basics"),
    ],
)
async def test_o_says_when_there_is_no_browser_and_shows_the_link(
    mini_bank: Path, monkeypatch: pytest.MonkeyPatch, get: Any, says: str
) -> None:
    monkeypatch.setattr(webbrowser, "get", get)
    url = "https://caomaolufei.github.io/AIInfraGuide/inference/"
    app = make_app(mini_bank, ["t-choice-one"])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+o")
        await pilot.pause()
        status = str(app.screen.query_one("#status").render())
        assert says in status and url in status
        assert not app.screen.query("Toast")
    app = make_app(mini_bank)
    async with app.run_test(size=(100, 30)) as pilot:  # the browser's o, on a highlighted question
        await pilot.press("b")
        await pilot.pause()
        app.screen.query_one("#search").value = "block table"  # type: ignore[attr-defined]
        await pilot.pause()
        await pilot.press("down", "down", "down", "down", "o")
        await pilot.pause()
        status = str(app.screen.query_one("#status").render())
        assert says.split(" 1.1")[0] in status and "AIInfraGuide" in status
