"""Trust boundaries of the question bank: what a hostile or broken file in the bank (or in the
cache) can make quizzer do. Each test plants one such file and checks the user gets a located
message, in bounded time and memory, and that nothing is executed or written where it should
not be."""

from __future__ import annotations

import contextlib
import os
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from quizzer.content.bank import BankError, load_bank
from tests.conftest import make_bank
from tests.test_bank import GOOD

LAYOUT = "questions/<module>/<topic>.yaml (module: prerequisites, cuda, distributed, inference)"


def problems(bank: Path, *, seconds: float = 5.0) -> list[str]:
    """Every diagnostic of loading ``bank`` (which must fail), loaded in-process in a thread that
    must finish within ``seconds`` (so a load that hangs fails the test instead of hanging it)."""
    outcome: list[object] = []

    def run() -> None:
        try:
            load_bank(bank, use_cache=False)
            outcome.append("loaded")
        except BankError as exc:
            outcome.append([str(d) for d in exc.diagnostics])
        except BaseException as exc:  # a traceback is a failure too
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"loading the bank did not finish within {seconds} s"
    [result] = outcome
    assert isinstance(result, list), f"expected BankError, got {result!r}"
    return result


def qdir(bank: Path) -> Path:
    return bank / "questions" / "test"


# --- item 8: bounded loading -------------------------------------------------------------

ALIAS_BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)


def test_alias_bomb_is_refused_quickly_in_little_memory(tmp_path: Path) -> None:
    assert len(ALIAS_BOMB.encode()) < 1024  # 9**9 = 387 million "lol"s once expanded
    bank = make_bank(tmp_path / "b", GOOD)
    (qdir(bank) / "bomb.yaml").write_text(ALIAS_BOMB, "utf-8")
    tracemalloc.start()
    started = time.perf_counter()
    try:
        found = problems(bank)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < 5
    assert peak < 100 * 2**20, f"peak {peak / 2**20:.0f} MB"
    [message] = found
    assert message.endswith(
        "bomb.yaml:2:8: YAML alias '*a' is not allowed: question files never need anchors (&) "
        "or aliases (*); write the value out"
    ), message


@pytest.mark.parametrize(
    ("text", "where"),
    [("- &a [*a]\n", ":1:7:"), ("&a\n- *a\n", ":2:3:"), ("- &a {k: *a}\n", ":1:10:")],
    ids=["list-in-itself", "document-in-itself", "mapping-in-itself"],
)
def test_recursive_alias_is_a_located_message_not_a_traceback(
    tmp_path: Path, text: str, where: str
) -> None:
    bank = make_bank(tmp_path / "b", GOOD)
    (qdir(bank) / "loop.yaml").write_text(text, "utf-8")
    [message] = problems(bank)
    assert f"loop.yaml{where} YAML alias '*a' is not allowed" in message, message


def test_even_a_harmless_alias_in_a_question_is_refused_at_the_alias(tmp_path: Path) -> None:
    text = GOOD.replace("topics: [prefill-decode]", "topics: &t [prefill-decode]").replace(
        "topics: [kv-cache]", "topics: *t"
    )
    [message] = problems(make_bank(tmp_path / "b", text))
    assert "mini.yaml:16:11: YAML alias '*t' is not allowed" in message, message


def test_nesting_deeper_than_64_levels_is_refused(tmp_path: Path) -> None:
    bank = make_bank(tmp_path / "b", GOOD)
    (qdir(bank) / "deep.yaml").write_text("- " * 500 + "x\n", "utf-8")
    [message] = problems(bank)
    assert "deep.yaml:1:" in message and "nested more than 64 levels deep" in message, message


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_symlink_to_dev_zero_is_not_read(tmp_path: Path) -> None:
    bank = make_bank(tmp_path / "b", GOOD)
    (qdir(bank) / "zero.yaml").symlink_to("/dev/zero")
    tracemalloc.start()
    try:
        found = problems(bank)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 100 * 2**20
    [message] = found
    assert message.endswith(
        "zero.yaml: is a symbolic link; the bank reads no links (put the file itself here)"
    ), message


def test_symlink_to_a_big_file_outside_the_bank_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "secret.yaml"
    outside.write_text("- id: secret\n" * 10, "utf-8")
    bank = make_bank(tmp_path / "b", GOOD)
    (qdir(bank) / "link.yaml").symlink_to(outside)
    [message] = problems(bank)
    assert message.endswith(
        "link.yaml: is a symbolic link; the bank reads no links (put the file itself here)"
    )


def test_symlink_loop_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    bank = make_bank(tmp_path / "b", GOOD)
    (qdir(bank) / "x.yaml").symlink_to("y.yaml")
    (qdir(bank) / "y.yaml").symlink_to("x.yaml")
    found = problems(bank)
    assert len(found) == 2
    assert found[0].endswith(
        "x.yaml: is a symbolic link; the bank reads no links (put the file itself here)"
    )
    assert found[1].endswith(
        "y.yaml: is a symbolic link; the bank reads no links (put the file itself here)"
    )


def test_symlinked_folder_is_not_followed(tmp_path: Path) -> None:
    bank = make_bank(tmp_path / "b", GOOD)
    (bank / "questions" / "again").symlink_to(bank / "questions")  # would loop if followed
    [message] = problems(bank)
    assert message.endswith(
        "again: is a symbolic link; the bank reads no links (put the file itself here)"
    )


def test_symlinked_catalog_is_not_read(tmp_path: Path) -> None:
    bank = make_bank(tmp_path / "b", GOOD)
    real = tmp_path / "topics-elsewhere.yaml"
    (bank / "topics.yaml").rename(real)
    (bank / "topics.yaml").symlink_to(real)
    found = problems(bank)
    assert any(
        m.endswith(
            "topics.yaml: is a symbolic link; the bank reads no links (put the file itself here)"
        )
        for m in found
    ), found


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_named_like_a_question_file_does_not_hang(tmp_path: Path) -> None:
    bank = make_bank(tmp_path / "b", GOOD)
    fifo = qdir(bank) / "x.yaml"
    os.mkfifo(fifo)
    try:
        [message] = problems(bank, seconds=5)
    finally:
        # If the loader ever blocks opening the FIFO for reading, opening the other end frees it.
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert message.endswith(
        "x.yaml: is a named pipe (FIFO), not a regular file; the bank reads only plain files"
    ), message


def test_oversized_question_file_is_refused_without_parsing(tmp_path: Path) -> None:
    bank = make_bank(tmp_path / "b", GOOD)
    (qdir(bank) / "huge.yaml").write_text("# padding\n" * 300_000, "utf-8")  # 3 MB
    started = time.perf_counter()
    [message] = problems(bank)
    assert time.perf_counter() - started < 5
    assert message.endswith("huge.yaml: is 2.9 MB; a bank file may be at most 2 MB (split it)"), (
        message
    )


def test_validate_reports_a_planted_fifo_and_alias_and_exits_1(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    bank = make_bank(tmp_path / "b", GOOD)
    (qdir(bank) / "bomb.yaml").write_text(ALIAS_BOMB, "utf-8")
    if hasattr(os, "mkfifo"):
        os.mkfifo(qdir(bank) / "pipe.yaml")
    result = cli("--bank", str(bank), "validate")
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "bomb.yaml:2:8: YAML alias '*a' is not allowed" in result.output
    if hasattr(os, "mkfifo"):
        assert "pipe.yaml: is a named pipe (FIFO)" in result.output


# --- item 9: only the layout the wheel ships -----------------------------------------------


@pytest.mark.parametrize(
    ("relative", "message"),
    [
        ("questions/x.yaml", f"not read: question files live at {LAYOUT}"),
        ("questions/a/b/x.yaml", f"not read: question files live at {LAYOUT}"),
        ("questions/test/x.yml", f"not read: a question file ends in .yaml; they live at {LAYOUT}"),
        (
            "questions/test/x.YAML",
            f"not read: a question file ends in .yaml; they live at {LAYOUT}",
        ),
    ],
    ids=["directly-in-questions", "two-folders-deep", "yml-extension", "upper-case-extension"],
)
def test_question_file_outside_the_shipped_layout_is_refused(
    tmp_path: Path, relative: str, message: str
) -> None:
    bank = make_bank(tmp_path / "b", GOOD)
    target = bank / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(GOOD.replace("q-one", "q-three").replace("q-two", "q-four"), "utf-8")
    [found] = problems(bank)
    assert found.endswith(f"{Path(relative)}: {message}"), found


def test_files_in_the_layout_and_other_files_still_load(tmp_path: Path) -> None:
    bank = make_bank(tmp_path / "b", GOOD)
    (bank / "questions" / "README.md").write_text("notes\n", "utf-8")
    (qdir(bank) / ".draft.yaml").write_text("- [broken\n", "utf-8")  # hidden: not shipped, not read
    other = bank / "questions" / "cuda"
    other.mkdir()
    (other / "more.yaml").write_text(
        GOOD.replace("q-one", "q-three").replace("q-two", "q-four"), "utf-8"
    )
    loaded = load_bank(bank, use_cache=False)
    assert loaded.files == ["questions/cuda/more.yaml", "questions/test/mini.yaml"]


def test_package_data_globs_ship_every_question_file_the_loader_reads(tmp_path: Path) -> None:
    import tomllib

    from quizzer.content.bank import question_files
    from tests.conftest import ROOT, SHIPPED_BANK

    globs = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"][
        "package-data"
    ]["question_bank"]
    for bank in (SHIPPED_BANK, make_bank(tmp_path / "b", GOOD)):
        shipped = {path for pattern in globs for path in bank.glob(pattern)}
        read = question_files(bank)
        assert read, bank
        assert set(read) <= shipped, sorted(set(read) - shipped)
    # and no glob ships a question file the loader would refuse
    assert not [g for g in globs if g.startswith("questions/") and g != "questions/*/*.yaml"]


# --- item 5: the parse cache is JSON, never unpickled ------------------------------------


def cache_files(tmp_path: Path) -> list[Path]:
    """The bank cache files in this test's cache directory (conftest sets QUIZZER_CACHE)."""
    return sorted((tmp_path / "cache").glob("bank-*"))


class _Planted:
    """Unpickling this runs a shell command that creates ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def test_planted_pickle_in_the_cache_directory_is_never_executed(
    tmp_path: Path, cli, mini_bank: Path
) -> None:  # type: ignore[no-untyped-def]
    import pickle

    from quizzer.content.bank import CACHE_FORMAT, _cache_file

    marker = tmp_path / "pwned"
    target = _cache_file(mini_bank.resolve())
    target.parent.mkdir(parents=True)
    blob = pickle.dumps(("fingerprint", _Planted(marker)))
    # at the cache's own name, and at the name the pickle cache used to have
    target.write_bytes(blob)
    target.with_suffix(".pickle").write_bytes(blob)
    result = cli("list", "--json")
    assert result.exit_code == 0, result.output
    assert "t-recall-one" in result.output
    assert not marker.exists(), "a planted pickle was executed"
    # the planted file was ignored and replaced by a real cache, which is JSON
    assert target.read_bytes().startswith(f'{{"format":"{CACHE_FORMAT}"'.encode())


def test_cached_bank_equals_the_parsed_bank_including_interview_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from quizzer.content import bank as bank_module
    from tests.conftest import SHIPPED_BANK

    parsed = load_bank(SHIPPED_BANK)
    assert len(cache_files(tmp_path)) == 1

    def no_parsing(*args: object, **kwargs: object) -> None:
        raise AssertionError("the bank was parsed again instead of read from the cache")

    monkeypatch.setattr(bank_module, "_load_uncached", no_parsing)
    cached = load_bank(SHIPPED_BANK)
    assert cached == parsed
    assert cached.interviews and cached.interviews == parsed.interviews
    assert cached.by_id.keys() == parsed.by_id.keys()
    numeric = next(q for q in cached.questions if q.kind == "numeric")
    assert numeric == parsed.by_id[numeric.id]
    # a cached question behaves like a parsed one
    assert cached.content_hash(numeric) == parsed.content_hash(parsed.by_id[numeric.id])
    assert cached.links(cached.questions[0]) == parsed.links(parsed.questions[0])


def test_loading_from_the_cache_is_much_faster_than_parsing(tmp_path: Path) -> None:
    from tests.conftest import SHIPPED_BANK

    def best_of(runs: int, use_cache: bool) -> float:
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            load_bank(SHIPPED_BANK, use_cache=use_cache)
            times.append(time.perf_counter() - started)
        return min(times)

    # One parse is enough: a slow outlier there only makes the bar easier, while the cached load
    # gets its best of three.
    parse = best_of(1, False)
    load_bank(SHIPPED_BANK)  # writes the cache
    assert best_of(3, True) < parse / 3


@pytest.mark.parametrize(
    "damage",
    ["garbage", "truncated", "other-fingerprint", "missing-field", "wrong-kind", "not-a-dict"],
)
def test_corrupt_or_stale_cache_is_ignored_and_rebuilt(tmp_path: Path, damage: str) -> None:
    import json

    bank_dir = make_bank(tmp_path / "b", GOOD)
    assert load_bank(bank_dir).by_id["q-one"].prompt == "Why is decode memory-bound?"
    [cache] = cache_files(tmp_path)
    good = cache.read_bytes()
    payload = json.loads(good)
    if damage == "garbage":
        cache.write_bytes(b"\x80\x04\x95 not json at all")
    elif damage == "truncated":
        cache.write_bytes(good[: len(good) // 2])
    elif damage == "other-fingerprint":
        payload["fingerprint"] = "0" * 64
        payload["bank"]["questions"][0]["prompt"] = "Stale prompt?"
        cache.write_text(json.dumps(payload), "utf-8")
    elif damage == "missing-field":
        del payload["bank"]["questions"][0]["difficulty"]
        cache.write_text(json.dumps(payload), "utf-8")
    elif damage == "wrong-kind":
        payload["bank"]["questions"][0]["kind"] = "essay"
        cache.write_text(json.dumps(payload), "utf-8")
    else:
        payload["bank"] = ["not", "a", "bank"]
        cache.write_text(json.dumps(payload), "utf-8")
    bank = load_bank(bank_dir)
    assert [q.id for q in bank.questions] == ["q-one", "q-two"]
    assert bank.by_id["q-one"].prompt == "Why is decode memory-bound?"
    assert bank.by_id["q-one"].difficulty == 2
    assert cache.read_bytes() == good  # rebuilt


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_cache_file_others_can_write_is_not_trusted(tmp_path: Path) -> None:
    import json

    bank_dir = make_bank(tmp_path / "b", GOOD)
    load_bank(bank_dir)
    [cache] = cache_files(tmp_path)
    assert cache.stat().st_mode & 0o077 == 0  # written private
    payload = json.loads(cache.read_bytes())
    payload["bank"]["questions"][0]["prompt"] = "Planted prompt?"  # fingerprint still matches
    cache.write_text(json.dumps(payload), "utf-8")
    cache.chmod(0o666)
    assert load_bank(bank_dir).by_id["q-one"].prompt == "Why is decode memory-bound?"


def test_cache_write_never_writes_through_a_planted_symlink(tmp_path: Path) -> None:
    from quizzer.content.bank import _cache_file

    bank_dir = make_bank(tmp_path / "b", GOOD)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", "utf-8")
    target = _cache_file(bank_dir.resolve())
    target.parent.mkdir(parents=True)
    target.symlink_to(victim)
    load_bank(bank_dir)
    assert victim.read_text("utf-8") == "precious\n"
    assert not target.is_symlink() and target.read_bytes().startswith(b"{")
    assert load_bank(bank_dir).by_id["q-two"].correct == ["B"]


def test_bank_with_a_value_json_cannot_carry_is_not_cached_but_loads(tmp_path: Path) -> None:
    numeric = """\
- id: q-num
  kind: numeric
  prompt: "How many bytes on {day}?"
  params:
    day: {value: 2024-01-02}
  solution: solutions.inference.weight_bytes
  unit: GB
  worked: x
  explanation: y
  topics: [kv-cache]
  articles: [m4-c1-1.1]
  difficulty: 2
"""
    bank_dir = make_bank(tmp_path / "b", numeric)
    first = load_bank(bank_dir)
    assert cache_files(tmp_path) == []  # a date would come back from JSON as a string
    assert load_bank(bank_dir) == first


# --- item 7: catalog keys are strict, and `quizzer new` writes only inside the bank ----------

ESCAPING_TOPIC = "../../../../outside"


def with_catalog_line(bank: Path, name: str, after: str, line: str) -> int:
    """Insert ``line`` into catalog ``name`` after the first line containing ``after``;
    returns its 1-based line number."""
    path = bank / name
    lines = path.read_text("utf-8").splitlines(keepends=True)
    at = next(i for i, text in enumerate(lines) if after in text) + 1
    lines.insert(at, line + "\n")
    path.write_text("".join(lines), "utf-8")
    return at + 1


def files_under(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file()}


def test_topic_key_that_is_a_path_is_refused_and_new_writes_nothing(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    bank = make_bank(tmp_path / "b", GOOD)
    line = with_catalog_line(
        bank,
        "topics.yaml",
        "{key: kv-cache,",
        f'          - {{key: "{ESCAPING_TOPIC}", title_en: x, title_zh: x}}',
    )
    before = files_under(tmp_path)
    checked = cli("--bank", str(bank), "validate")
    assert checked.exit_code == 1
    assert (
        f"topics.yaml:{line}:19: chapters.0.topics.2.key: '{ESCAPING_TOPIC}' is not a valid "
        "topic key: lower-case letters and digits joined by single hyphens, e.g. kv-cache"
    ) in checked.output, checked.output
    made = cli(
        "--bank", str(bank), "new", "--kind", "recall", "--topic", ESCAPING_TOPIC,
        "--article", "m4-c1-1.1",
    )  # fmt: skip
    assert made.exit_code == 1
    assert "is not a valid topic key" in made.output
    assert files_under(tmp_path) == before  # nothing written, inside or outside the bank


@pytest.mark.parametrize(
    ("catalog", "old", "new", "message"),
    [
        (
            "topics.yaml",
            "      - key: m1-c2",
            "      - key: m1/../c2",
            "chapters.1.key: 'm1/../c2' is not a valid chapter key: m<module>-c<chapter> or "
            "m<module>-beyond",
        ),
        (
            "companies.yaml",
            "- key: baidu",
            "- key: Bai du",
            "key: 'Bai du' is not a valid company key: lower-case letters and digits joined by "
            "single hyphens, e.g. bytedance",
        ),
        (
            "articles.yaml",
            "- key: m0-learning-path",
            "- key: ../m0",
            "key: '../m0' is not a valid article key: lower-case letters and digits, single - or "
            ". between",
        ),
        (
            "interviews.yaml",
            "  company: general",
            "  company: general/../x",
            "company: 'general/../x' is not a valid company key: lower-case letters and digits "
            "joined by single hyphens, e.g. bytedance",
        ),
    ],
    ids=["chapter-key", "company-key", "article-key", "interview-page-company"],
)
def test_catalog_keys_must_match_their_pattern(
    tmp_path: Path, catalog: str, old: str, new: str, message: str
) -> None:
    bank = make_bank(tmp_path / "b", GOOD)
    path = bank / catalog
    text = path.read_text("utf-8")
    line = text[: text.index(old)].count("\n") + 1
    path.write_text(text.replace(old, new, 1), "utf-8")
    col = len(new) - len(new.split(": ", 1)[1]) + 1
    found = problems(bank)
    assert any(m.endswith(f"{catalog}:{line}:{col}: {message}") for m in found), found


def test_new_refuses_a_topic_that_escapes_the_bank_even_if_the_catalog_was_bypassed(
    tmp_path: Path,
) -> None:
    from quizzer.content.models import Topic
    from quizzer.content.scaffold import ScaffoldError, append_stub

    bank = load_bank(make_bank(tmp_path / "b", GOOD), use_cache=False)
    # a Topic that never went through validation (as a hand-edited cache could hold)
    bank.topics[ESCAPING_TOPIC] = Topic.model_construct(
        key=ESCAPING_TOPIC, title_en="x", title_zh="x"
    )
    before = files_under(tmp_path)
    with pytest.raises(ScaffoldError, match=r"refusing to write outside .*questions/<module>/"):
        append_stub(bank, "recall", ESCAPING_TOPIC, "m4-c1-1.1")
    assert files_under(tmp_path) == before


def test_new_refuses_a_module_folder_that_links_outside_the_bank(tmp_path: Path) -> None:
    from quizzer.content.scaffold import ScaffoldError, append_stub

    bank = load_bank(make_bank(tmp_path / "b", GOOD), use_cache=False)
    outside = tmp_path / "outside"
    outside.mkdir()
    (bank.root / "questions" / "inference").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ScaffoldError, match="refusing to write outside"):
        append_stub(bank, "recall", "kv-cache", "m4-c1-1.1")
    assert list(outside.iterdir()) == []


def test_new_refuses_to_append_through_a_symlinked_question_file(tmp_path: Path) -> None:
    from quizzer.content.scaffold import ScaffoldError, append_stub

    bank = load_bank(make_bank(tmp_path / "b", GOOD), use_cache=False)
    victim = tmp_path / "victim.yaml"
    victim.write_text("precious\n", "utf-8")
    folder = bank.root / "questions" / "inference"
    folder.mkdir()
    (folder / "kv-cache.yaml").symlink_to(victim)
    with pytest.raises(ScaffoldError):
        append_stub(bank, "recall", "kv-cache", "m4-c1-1.1")
    assert victim.read_text("utf-8") == "precious\n"


def test_new_appends_to_an_existing_topic_file_at_the_reported_line(tmp_path: Path) -> None:
    from quizzer.content.scaffold import append_stub

    bank = load_bank(make_bank(tmp_path / "b", GOOD), use_cache=False)
    first_id, path, first_line = append_stub(bank, "recall", "kv-cache", "m4-c1-1.1")
    assert path == bank.root / "questions" / "inference" / "kv-cache.yaml"
    assert first_line == 2
    text = path.read_text("utf-8")
    assert text.splitlines()[first_line - 1] == f"- id: {first_id}"
    path.write_text(text.rstrip("\n"), "utf-8")  # no final newline
    second_line = append_stub(bank, "choice", "kv-cache", "m4-c1-1.1")[2]
    lines = path.read_text("utf-8").splitlines()
    assert lines[second_line - 1] == f"- id: {first_id}"  # same id: bank not reloaded
    assert lines[0].startswith("# yaml-language-server:")


# --- item 16: stub text is not served ----------------------------------------------------


def stub_lines(path: Path) -> list[int]:
    """1-based lines of a file holding the word TODO."""
    return [n for n, text in enumerate(path.read_text("utf-8").splitlines(), 1) if "TODO" in text]


@pytest.mark.parametrize("kind", ["recall", "choice", "numeric"])
def test_new_stub_is_refused_by_validate_and_drill_until_its_todo_text_is_replaced(
    mini_bank: Path, cli, kind: str
) -> None:  # type: ignore[no-untyped-def]
    made = cli("new", "--kind", kind, "--topic", "kv-cache", "--article", "m4-c1-1.1")
    assert made.exit_code == 0, made.output
    target = mini_bank / "questions" / "inference" / "kv-cache.yaml"
    checked = cli("validate", "--no-solutions")
    assert checked.exit_code == 1
    reported = [line for line in checked.output.splitlines() if "kv-cache.yaml:" in line]
    expected = stub_lines(target)
    assert len(reported) == len(expected) >= 2
    for line, message in zip(expected, reported, strict=True):
        assert f"kv-cache.yaml:{line}:" in message and "placeholder text 'TODO' in " in message
    drilled = cli("drill", "--plain", "--id", "kv-cache-new-1", input="x\n3\n")
    assert drilled.exit_code == 1
    assert "placeholder text 'TODO'" in drilled.output
    assert "kv-cache-new-1" not in cli("list", "--json").output
    # filled in, the same question validates and is served
    text = target.read_text("utf-8")
    target.write_text(text.replace("TODO", "Real"), "utf-8")
    assert cli("validate").exit_code == 0
    assert "kv-cache-new-1" in cli("list", "--json").output


def test_new_still_adds_a_stub_next_to_an_unfilled_one(mini_bank: Path, cli) -> None:  # type: ignore[no-untyped-def]
    assert (
        cli("new", "--kind", "recall", "--topic", "kv-cache", "--article", "m4-c1-1.1").exit_code
        == 0
    )
    second = cli("new", "--kind", "choice", "--topic", "kv-cache", "--article", "m4-c1-1.1")
    assert second.exit_code == 0, second.output
    assert "added kv-cache-new-2" in second.output


def test_a_load_that_let_placeholders_through_is_not_cached(tmp_path: Path) -> None:
    bank_dir = make_bank(tmp_path / "b", GOOD.replace("Low intensity.", "TBD"))
    lenient = load_bank(bank_dir, allow_placeholders=True)
    assert lenient.by_id["q-one"].explanation == "TBD"
    with pytest.raises(BankError) as info:
        load_bank(bank_dir)
    assert [str(d).split("/")[-1] for d in info.value.diagnostics] == [
        "mini.yaml:6:16: placeholder text 'TBD' in explanation: write the real text (a question "
        "with TODO, TBD, FIXME or XXX is not served)"
    ]


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        (
            "prompt: Why is decode memory-bound?",
            "prompt: Why is decode TBD?",
            "3:25: placeholder text 'TBD' in prompt",
        ),
        (
            "answer: One token per step.",
            "answer: |\n    One token per step.\n    FIXME: cite the paper.",
            "6:5: placeholder text 'FIXME' in answer",
        ),
        (
            "key_points: [GEMV]",
            "key_points: [GEMV, XXX]",
            "5:22: placeholder text 'XXX' in key_points.1",
        ),
        (
            "options: [weights, KV cache]",
            'options: [weights, "KV cache (TODO)"]',
            "13:33: placeholder text 'TODO' in options.1",
        ),
        (
            "  difficulty: 1\n",
            "  difficulty: 1\n  zh:\n    prompt: 哪个随上下文增长？翻译TODO\n",
            "20:24: placeholder text 'TODO' in zh.prompt",
        ),
        (
            "  difficulty: 1\n",
            '  difficulty: 1\n  references:\n    - {title: TBD, url: "https://example.com/"}\n',
            "20:15: placeholder text 'TBD' in references.0.title",
        ),
    ],
    ids=["prompt", "block-answer", "key-point", "quoted-option", "zh-prompt", "reference-title"],
)
def test_placeholder_words_are_refused_at_the_word(
    tmp_path: Path, old: str, new: str, where: str
) -> None:
    assert old in GOOD
    [message] = problems(make_bank(tmp_path / "b", GOOD.replace(old, new, 1)))
    assert f"mini.yaml:{where}: write the real text" in message, message


def test_lower_case_or_longer_words_are_not_placeholders(tmp_path: Path) -> None:
    text = GOOD.replace(
        "explanation: Low intensity.",
        'explanation: "Low intensity: a todo list, TODOs, XXXL batches, sm_XXX, Todo."',
    )
    bank = load_bank(make_bank(tmp_path / "b", text), use_cache=False)
    assert "TODOs" in bank.by_id["q-one"].explanation


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_preset_data_file_linked_to_dev_zero_is_reported_not_read(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    bank = make_bank(tmp_path / "b")  # the mini fixture: numeric questions drawing model presets
    (bank / "data" / "models.yaml").unlink()
    (bank / "data" / "models.yaml").symlink_to("/dev/zero")
    started = time.perf_counter()
    result = cli("--bank", str(bank), "validate")
    assert time.perf_counter() - started < 30
    assert result.exit_code == 1
    assert "models.yaml: is a symbolic link; the bank reads no links" in result.output
