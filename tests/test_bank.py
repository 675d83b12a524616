"""The bank loader and `quizzer validate`: every error class lands on the right file and line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from quizzer.content.bank import BankError, load_bank
from tests.conftest import SHIPPED_BANK, make_bank

GOOD = """\
- id: q-one
  kind: recall
  prompt: Why is decode memory-bound?
  answer: One token per step.
  key_points: [GEMV]
  explanation: Low intensity.
  topics: [prefill-decode]
  articles: [m4-c1-1.1]
  difficulty: 2
- id: q-two
  kind: choice
  prompt: Which grows with context?
  options: [weights, KV cache]
  correct: B
  explanation: Tokens append K and V.
  topics: [kv-cache]
  articles: [m4-c1-1.1]
  difficulty: 1
"""


def errors_for(tmp_path: Path, text: str) -> list[str]:
    bank = make_bank(tmp_path / "b", text)
    with pytest.raises(BankError) as info:
        load_bank(bank, use_cache=False)
    return [str(d) for d in info.value.diagnostics]


def test_good_bank_loads_every_question(tmp_path: Path) -> None:
    bank = load_bank(make_bank(tmp_path / "b", GOOD), use_cache=False)
    assert [q.id for q in bank.questions] == ["q-one", "q-two"]
    assert bank.by_id["q-two"].correct == ["B"]


def test_yaml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    broken = GOOD.replace("key_points: [GEMV]", "key_points: [GEMV")
    [message] = errors_for(tmp_path, broken)
    assert "mini.yaml:" in message and "YAML syntax" in message
    assert "started at line 5" in message


def test_unknown_field_and_missing_field_both_reported(tmp_path: Path) -> None:
    found = errors_for(tmp_path, GOOD.replace("  difficulty: 2\n", "  dificulty: 2\n", 1))
    assert any(
        m.endswith("mini.yaml:9:3: unknown field 'dificulty' (did you mean 'difficulty'?)")
        for m in found
    ), found
    assert any("missing field 'difficulty'" in m and ":1:" in m for m in found), found


def test_duplicate_id_names_both_places(tmp_path: Path) -> None:
    found = errors_for(tmp_path, GOOD.replace("id: q-two", "id: q-one"))
    assert len(found) == 1
    assert ":10:7: duplicate id 'q-one' (also at " in found[0]
    assert found[0].endswith("mini.yaml:1)")


def test_unknown_article_suggests_the_closest(tmp_path: Path) -> None:
    found = errors_for(
        tmp_path,
        GOOD.replace(
            "articles: [m4-c1-1.1]\n  difficulty: 2", "articles: [m4-c1-1.9]\n  difficulty: 2"
        ),
    )
    assert len(found) == 1
    assert "mini.yaml:8:14: unknown article 'm4-c1-1.9' (did you mean 'm4-c1-1." in found[0]


def test_unknown_topic_and_company_and_source(tmp_path: Path) -> None:
    text = GOOD.replace("topics: [kv-cache]", "topics: [kv-cach]").replace(
        "  difficulty: 1\n",
        "  difficulty: 1\n  companies:\n    - {key: bytedanse, source: x.md}\n"
        "    - {key: alibaba, source: nope.md}\n",
    )
    found = errors_for(tmp_path, text)
    assert any(":16:12: unknown topic 'kv-cach' (did you mean 'kv-cache'?)" in m for m in found)
    assert any(
        ":20:13: unknown company 'bytedanse' (did you mean 'bytedance'?)" in m for m in found
    )
    assert any(":21:30: 'nope.md' is not an interview page of 'alibaba'" in m for m in found)


def test_choice_correct_must_be_an_option(tmp_path: Path) -> None:
    [message] = errors_for(tmp_path, GOOD.replace("correct: B", "correct: D"))
    assert ":14:12: correct answer 'D' is not among the options (A–B)" in message


def test_empty_prompt(tmp_path: Path) -> None:
    [message] = errors_for(
        tmp_path, GOOD.replace("prompt: Why is decode memory-bound?", 'prompt: "  "')
    )
    assert ":3:11: prompt: the prompt is empty" in message


def test_wrong_type_and_bad_kind(tmp_path: Path) -> None:
    found = errors_for(
        tmp_path,
        GOOD.replace("difficulty: 2", "difficulty: hard").replace("kind: choice", "kind: essay"),
    )
    assert any(":9:15: difficulty:" in m for m in found), found
    assert any(
        ":11:9: field 'kind' must be one of recall, choice, numeric, code" in m for m in found
    )
    assert not any("did you mean" in m for m in found), found  # nothing close to "essay"


def test_misspelled_kind_gets_a_suggestion(tmp_path: Path) -> None:
    [message] = errors_for(tmp_path, GOOD.replace("kind: choice", "kind: choise"))
    assert message.endswith(
        ":11:9: field 'kind' must be one of recall, choice, numeric, code (did you mean 'choice'?)"
    ), message


def test_python_tags_are_refused(tmp_path: Path) -> None:
    [message] = errors_for(
        tmp_path,
        GOOD.replace("answer: One token per step.", "answer: !!python/object/apply:os.system [ls]"),
    )
    assert ":4:11: tag 'tag:yaml.org,2002:python/object/apply:os.system' is not allowed" in message


def test_every_error_is_collected_across_files(tmp_path: Path) -> None:
    bank = make_bank(tmp_path / "b", GOOD.replace("correct: B", "correct: Z"))
    (bank / "questions" / "test" / "other.yaml").write_text("- id: [\n", "utf-8")
    with pytest.raises(BankError) as info:
        load_bank(bank, use_cache=False)
    files = {Path(d.path).name for d in info.value.diagnostics}
    assert files == {"mini.yaml", "other.yaml"}


def test_cache_notices_an_edit(tmp_path: Path) -> None:
    bank_dir = make_bank(tmp_path / "b", GOOD)
    assert len(load_bank(bank_dir).questions) == 2
    path = bank_dir / "questions" / "test" / "mini.yaml"
    path.write_text(GOOD.replace("Why is decode memory-bound?", "Edited prompt?"), "utf-8")
    assert load_bank(bank_dir).by_id["q-one"].prompt == "Edited prompt?"


def test_validate_cli_lists_one_message_per_defect(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    bank = make_bank(tmp_path / "b", GOOD)
    qfile = bank / "questions" / "test" / "mini.yaml"
    text = GOOD.replace("id: q-two", "id: q-one")  # duplicate id at line 10
    text = text.replace(
        "  difficulty: 1\n", "  difficulty: 1\n  colour: red\n"
    )  # unknown field, 19
    text = text.replace(
        "articles: [m4-c1-1.1]\n  difficulty: 2", "articles: [m4-c2-2.9]\n  difficulty: 2"
    )  # unknown article, 8
    qfile.write_text(text, "utf-8")
    (qfile.parent / "syntax.yaml").write_text("- id: x\n  prompt: [oops\n", "utf-8")
    result = cli("--bank", str(bank), "validate")
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if ".yaml:" in line]
    assert len(lines) == 4, result.output
    joined = "\n".join(lines)
    assert "syntax.yaml:3:1: YAML syntax" in joined
    assert "mini.yaml:19:3: unknown field 'colour'" in joined
    assert "mini.yaml:10:7: duplicate id 'q-one'" in joined
    assert "mini.yaml:8:14: unknown article 'm4-c2-2.9'" in joined


@pytest.mark.slow  # runs every solution, proves every exercise; CI runs `quizzer validate` itself
def test_shipped_bank_validates(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("validate")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok: ")


def test_shipped_bank_validates_without_running_its_code(cli) -> None:  # type: ignore[no-untyped-def]
    """Every file, reference, tag and layout rule of the shipped bank (the default run; the
    solutions and exercises are run by the slow test above and by `quizzer validate`)."""
    result = cli("validate", "--no-solutions")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok: ")


@pytest.mark.usefixtures("warm_cache")
def test_list_json_has_links_and_tags(cli) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(cli("list", "--json").output)
    assert len(data) >= 40
    for q in data:
        assert {"id", "kind", "topics", "companies", "articles"} <= set(q)
        assert all(
            a["url"].startswith("https://caomaolufei.github.io/AIInfraGuide/")
            for a in q["articles"]
        )
        assert all(set(c) >= {"key", "source"} for c in q["companies"])
        assert all(isinstance(t, str) for t in q["topics"])


def test_list_filters_and_unknown_filter_key(cli, mini_bank) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(cli("list", "--json", "--kind", "choice").output)
    assert [q["id"] for q in data] == ["t-choice-one"]
    data = json.loads(cli("list", "--json", "--company", "bytedance").output)
    assert [q["id"] for q in data] == ["t-recall-one"]
    result = cli("list", "--topic", "kv-cach")
    assert result.exit_code == 2 and "did you mean 'kv-cache'" in result.output


def test_coverage_json_lists_empties_first(cli, mini_bank) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(cli("coverage", "--json").output)
    assert set(data) == {"articles", "topics", "companies", "interviews"}
    counts = [row["count"] for row in data["articles"]]
    assert counts == sorted(counts) and counts[0] == 0
    by_key = {row["key"]: row["count"] for row in data["articles"]}
    assert by_key["m4-c1-1.1"] == 3


def test_committed_schema_matches_the_models(cli) -> None:  # type: ignore[no-untyped-def]
    committed = (SHIPPED_BANK / "question.schema.json").read_text("utf-8")
    assert cli("schema").output == committed


def test_bank_readme_field_reference_matches_the_models() -> None:
    from quizzer.content.schema_doc import SCHEMA_END, SCHEMA_START, schema_markdown

    readme = (SHIPPED_BANK / "README.md").read_text("utf-8")
    start, end = readme.index(SCHEMA_START), readme.index(SCHEMA_END) + len(SCHEMA_END)
    assert readme[start:end] == schema_markdown(), "run: quizzer schema --write"


def test_every_question_file_matches_the_json_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((SHIPPED_BANK / "question.schema.json").read_text("utf-8"))
    from quizzer.content.yamlsrc import safe_load

    kind = jsonschema.validators.validator_for(schema)
    kind.check_schema(schema)  # what jsonschema.validate checks first, done once
    validator = kind(schema)  # built once, not per file
    files = sorted((SHIPPED_BANK / "questions").rglob("*.yaml"))
    assert files
    for path in files:
        text = path.read_text("utf-8")
        assert text.startswith("# yaml-language-server: $schema=../../question.schema.json"), path
        validator.validate(safe_load(text))


def test_articles_catalog_lists_every_reference_article() -> None:
    reference = SHIPPED_BANK.parent.parent / "shared" / "reference" / "aiinfraguide"
    if not reference.exists():
        pytest.skip("../shared/reference not present")
    expected = {a["key"] for a in json.loads((reference / "articles.json").read_text("utf-8"))}
    chapters = {
        c["key"] for c in json.loads((reference / "chapters.json").read_text("utf-8"))["chapters"]
    }
    listed = {
        a["key"]
        for a in yaml.safe_load((SHIPPED_BANK / "articles.yaml").read_text("utf-8"))["articles"]
    }
    assert expected <= listed
    assert chapters <= listed


def test_catalogs_load_from_a_copied_bank(tmp_path: Path) -> None:
    target = tmp_path / "copy"
    shutil.copytree(SHIPPED_BANK, target)
    bank = load_bank(target, use_cache=False)
    assert len(bank.articles) >= 100 and "bytedance" in bank.companies


def test_banks_with_the_same_catalogs_stay_separate_and_a_changed_catalog_is_read_again(
    tmp_path: Path,
) -> None:
    first = load_bank(make_bank(tmp_path / "one"), use_cache=False)
    key = next(iter(first.articles))
    title = first.articles[key].title_en
    del first.articles[key]  # one bank's tables are its own
    second = load_bank(make_bank(tmp_path / "two"), use_cache=False)
    assert second.articles[key].title_en == title
    edited = make_bank(tmp_path / "three")
    path = edited / "articles.yaml"
    text = path.read_text("utf-8")
    assert text.count(title) >= 1
    path.write_text(text.replace(title, "Renamed for this test", 1), "utf-8")
    assert load_bank(edited, use_cache=False).articles[key].title_en == "Renamed for this test"
    broken = make_bank(tmp_path / "four")
    (broken / "companies.yaml").write_text("companies: [", "utf-8")
    for _ in range(2):  # a catalog with a problem is reported on every load
        with pytest.raises(BankError) as raised:
            load_bank(broken, use_cache=False)
        assert any(d.path.endswith("companies.yaml") for d in raised.value.diagnostics)


@pytest.mark.slow
def test_check_jsonschema_accepts_every_question_file() -> None:
    """The committed schema works with a standard validator, as editors and CI use it.

    Slow tier (its YAML reader takes about 7 s for the bank); .ci/run runs the same check on every
    change, and test_every_question_file_matches_the_json_schema checks each file against the
    same schema in the default run."""
    import subprocess
    import sys

    pytest.importorskip("check_jsonschema")
    files = sorted(str(p) for p in (SHIPPED_BANK / "questions").rglob("*.yaml"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--schemafile",
            str(SHIPPED_BANK / "question.schema.json"),
            *files,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_schema_rejects_an_unknown_field(tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((SHIPPED_BANK / "question.schema.json").read_text("utf-8"))
    bad = yaml.safe_load(GOOD)
    bad[0]["colour"] = "red"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


BEYOND = """
- id: t-beyond-guide
  kind: recall
  prompt: What does a spinlock trade for lower latency?
  answer: It burns CPU while it waits instead of sleeping.
  key_points: [busy waiting]
  explanation: Worth it only when the critical section is shorter than a context switch.
  topics: [os-concurrency]
  articles: []
  companies:
    - {key: bytedance, source: 字节跳动-AI-Infra-1.md}
  references:
    - {title: "Linux kernel locking guide", url: "https://docs.kernel.org/locking/index.html"}
  difficulty: 2
"""


def test_a_question_beyond_the_guide_links_to_its_interview_page(tmp_path: Path) -> None:
    bank = load_bank(make_bank(tmp_path / "b", BEYOND), use_cache=False)
    q = bank.by_id["t-beyond-guide"]
    assert bank.module_of(q) == 1
    _title, url = bank.main_link(q)
    assert url.startswith("https://caomaolufei.github.io/AIInfraGuide/interview/")
    assert ("Linux kernel locking guide", "https://docs.kernel.org/locking/index.html") in (
        bank.links(q)
    )


def test_a_question_with_no_article_and_no_company_is_refused(tmp_path: Path) -> None:
    text = BEYOND.replace(
        "  companies:\n    - {key: bytedance, source: 字节跳动-AI-Infra-1.md}\n", ""
    )
    [message] = errors_for(tmp_path, text)
    assert "needs at least one article or one company tag" in message
