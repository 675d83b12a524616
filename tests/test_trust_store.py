"""Files that must not be trusted, honest messages, nothing created or overwritten behind the
user's back (issue 13: items 4, 6, 10, 11 and 13). In-process through the CLI, as a user types."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from quizzer.progress.store import Store, StoreError

Cli = Callable[..., Result]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def refused(result: Result, message: str, code: int = 1) -> None:
    assert result.exit_code == code, result.output
    assert message in result.output, result.output
    assert "Traceback" not in result.output


@pytest.fixture
def history(mini_bank: Path, cli: Cli) -> Path:
    """A progress DB with one review (rated in a plain drill), and its path."""
    result = cli("drill", "--plain", "--kind", "recall", "--limit", "1", input="x\n\n3\n")
    assert "saved:" in result.output
    return Path(os.environ["QUIZZER_DB"])


@pytest.fixture
def good_backup(history: Path, cli: Cli, tmp_path: Path) -> Path:
    out = tmp_path / "good-backup.db"
    assert cli("backup", str(out)).exit_code == 0
    return out


# --- export and backup never write where they must not (item 6) ----------------------------


@pytest.mark.parametrize("fmt", ["json", "csv", "apkg"])
def test_export_onto_the_live_database_is_refused_and_history_kept(
    history: Path, cli: Cli, fmt: str
) -> None:
    before = digest(history)
    refused(cli("export", "--format", fmt, str(history), "--force"), "live progress database")
    refused(cli("export", "--format", fmt, str(history) + "-wal"), "live progress database")
    assert digest(history) == before
    assert json.loads(cli("stats", "--json").output)["reviews_total"] == 1


def test_backup_onto_the_live_database_or_a_device_is_refused(history: Path, cli: Cli) -> None:
    refused(cli("backup", str(history), "--force"), "live progress database")
    refused(cli("backup", "/dev/null", "--force"), "not a regular file")
    assert Path("/dev/null").is_char_device()


def test_export_and_backup_refuse_an_existing_file_unless_forced(
    history: Path, cli: Cli, tmp_path: Path
) -> None:
    for args in (["backup"], ["export", "--format", "json"], ["export", "--format", "csv"]):
        target = tmp_path / f"mine-{args[-1]}.txt"
        target.write_text("a file the user cares about")
        refused(cli(*args, str(target)), "already exists; add --force")
        assert target.read_text() == "a file the user cares about"
        assert cli(*args, str(target), "--force").exit_code == 0
        assert target.read_text(errors="replace") != "a file the user cares about"


@pytest.mark.parametrize(
    "args",
    [
        ["backup"],
        ["export", "--format", "json"],
        ["export", "--format", "csv"],
        ["export", "--format", "apkg"],
    ],
)
def test_a_missing_folder_gets_the_same_clear_message_for_every_format(
    history: Path, cli: Cli, tmp_path: Path, args: list[str]
) -> None:
    refused(cli(*args, str(tmp_path / "no-such-folder" / "out")), "does not exist")
    assert not (tmp_path / "no-such-folder").exists()


def test_a_failed_write_leaves_no_partial_file(history: Path, tmp_path: Path) -> None:
    from quizzer.progress.outfile import staged_output

    target = tmp_path / "out.json"
    with pytest.raises(RuntimeError), staged_output(target) as tmp:
        tmp.write_text("half of it")
        raise RuntimeError("the disk filled up")
    assert not target.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.json")] == []


def test_backup_is_one_self_contained_file(good_backup: Path) -> None:
    assert not Path(str(good_backup) + "-wal").exists()
    assert good_backup.read_bytes()[18:20] == b"\x01\x01"  # rollback journal, not WAL


# --- restore accepts only what quizzer itself writes (item 4) ------------------------------


CRAFTED = {
    "a trigger that eats every new review": (
        "CREATE TRIGGER eat AFTER INSERT ON reviews "
        "BEGIN DELETE FROM reviews WHERE id = NEW.id; END",
        "not made by quizzer: trigger eat",
    ),
    "a view in place of a table": (
        "DROP TABLE settings; CREATE VIEW settings AS SELECT 'theme' AS key, '1' AS value",
        "view settings",
    ),
    "an extra table": ("CREATE TABLE evil (x)", "not made by quizzer: table evil"),
    "an extra column": ("ALTER TABLE reviews ADD COLUMN extra TEXT", "altered: table reviews"),
    "text where a number belongs": ("UPDATE cards SET stability = 'abc'", "wrong type"),
    "a rating out of range": ("UPDATE reviews SET rating = 9", "rating outside 1-4"),
    "a card that is not JSON": ("UPDATE cards SET card_json = 'not json'", "not JSON"),
    "a 50 MB string": (
        "UPDATE reviews SET answer = printf('%.*c', 50*1024*1024, 'x')",
        "longer than 65536 bytes",
    ),
    "a schema newer than this program": (
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
        "VALUES ('quizzer', '999_future', '2030-01-01')",
        "unknown here: 999_future",
    ),
}


@pytest.mark.parametrize("case", list(CRAFTED))
def test_restore_refuses_a_crafted_database_and_changes_nothing(
    good_backup: Path, history: Path, cli: Cli, tmp_path: Path, case: str
) -> None:
    sql, message = CRAFTED[case]
    crafted = tmp_path / "crafted.db"
    shutil.copy(good_backup, crafted)
    conn = sqlite3.connect(crafted)
    conn.executescript(sql)
    conn.commit()
    conn.close()
    before = digest(history)
    refused(cli("restore", str(crafted), "--yes"), message)
    assert digest(history) == before
    assert not Path(str(crafted) + "-shm").exists()  # reading it created nothing beside it


def test_restore_of_a_good_backup_brings_its_history_back(good_backup: Path, cli: Cli) -> None:
    assert cli("drill", "--plain", "--kind", "recall", input="y\n\n3\n").exit_code == 0
    assert json.loads(cli("stats", "--json").output)["reviews_total"] == 2
    result = cli("restore", str(good_backup), "--yes")
    assert result.exit_code == 0 and "restored 1 reviews" in result.output
    assert json.loads(cli("stats", "--json").output)["reviews_total"] == 1


def test_restore_of_junk_says_it_is_not_a_backup(history: Path, cli: Cli, tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"hello" * 100)
    result = cli("restore", str(junk), "--yes")
    refused(result, "junk.db is not a quizzer backup (not an SQLite file)")
    assert "--db" not in result.output  # the advice is about the backup, not the live DB


def test_restore_works_when_the_current_database_is_damaged(
    good_backup: Path, history: Path, cli: Cli
) -> None:
    data = bytearray(history.read_bytes())
    data[100:4096] = os.urandom(3996)
    history.write_bytes(bytes(data))
    refused(cli("stats"), "is damaged")
    result = cli("restore", str(good_backup), "--yes")
    assert result.exit_code == 0, result.output
    kept = [p for p in history.parent.iterdir() if ".damaged-" in p.name]
    assert len(kept) == 1 and kept[0].read_bytes() == bytes(data)  # moved aside, not deleted
    assert f"kept as {kept[0]}" in result.output
    assert json.loads(cli("stats", "--json").output)["reviews_total"] == 1


def test_restore_is_refused_while_the_database_is_open(
    good_backup: Path, history: Path, cli: Cli
) -> None:
    other = Store(history)  # any open connection counts, in this process or another
    try:
        refused(cli("restore", str(good_backup), "--yes"), "in use by another quizzer")
    finally:
        other.close()
    assert cli("restore", str(good_backup), "--yes").exit_code == 0


def test_normal_open_refuses_a_future_schema_and_leaves_it_untouched(
    history: Path, cli: Cli
) -> None:
    conn = sqlite3.connect(history)
    conn.execute(
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
        "VALUES ('quizzer', '999_future', '2030-01-01')"
    )
    conn.commit()
    conn.close()
    before = digest(history)
    for args in (["stats"], ["drill", "--plain"], ["settings", "theme", "light"]):
        refused(cli(*args, input=""), "written by a newer or different quizzer")
    assert digest(history) == before


# --- honest messages (item 10) and read-only commands create nothing (items 11, 13) --------


def test_a_full_disk_says_full_and_a_read_only_file_says_read_only(tmp_path: Path) -> None:
    store = Store(tmp_path / "p.db")
    store.conn.execute("PRAGMA query_only = 1")  # every write now fails as on a read-only file
    with pytest.raises(StoreError) as info:
        store.set_setting("theme", "light")
    assert "read-only" in str(info.value)
    assert "free some space" not in str(info.value) and "damaged" not in str(info.value)
    store.close()


def test_a_healthy_database_in_a_read_only_folder_is_read_not_called_damaged(
    history: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    import quizzer.progress.dbopen

    cli("stats")  # checkpoint: the file holds everything, as after a normal exit
    monkeypatch.setattr(quizzer.progress.dbopen, "folder_read_only", lambda path: True)
    result = cli("stats", "--json")
    assert result.exit_code == 0 and json.loads(result.output)["reviews_total"] == 1
    assert "damaged" not in result.output


def test_read_only_commands_in_a_missing_folder_create_nothing(
    mini_bank: Path, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "not-yet" / "progress.db"
    monkeypatch.setenv("QUIZZER_DB", str(db))
    for args in (["stats"], ["stats", "--json"], ["weak"], ["show", "t-recall-one"], ["settings"]):
        assert cli(*args).exit_code == 0, args
    refused(cli("backup", str(tmp_path / "b.db")), "nothing to back up")
    assert not db.parent.exists()
    assert cli("settings", "theme", "light").exit_code == 0  # a write creates it
    assert db.exists()


def test_an_empty_file_as_the_database_is_refused_and_left_alone(
    mini_bank: Path, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    monkeypatch.setenv("QUIZZER_DB", str(empty))
    refused(cli("drill", "--plain", input=""), "is an empty file, not a quizzer database")
    assert empty.stat().st_size == 0


def test_a_database_path_under_a_file_is_a_clear_message(
    mini_bank: Path, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a-file").write_text("x")
    monkeypatch.setenv("QUIZZER_DB", str(tmp_path / "a-file" / "p.db"))
    refused(cli("drill", "--plain", input=""), "is a file, not a folder")
    refused(cli("stats"), "is a file, not a folder")


# --- import-reviews checks every field (items 10, 11) ---------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"answer": {"not": "text"}}, "'answer' must be text"),
        ({"seed": 2**70}, "'seed' must be an integer"),
        ({"reviewed_at": "9999-12-31T00:00:00+00:00"}, "not a plausible review time"),
        ({"rating": True}, "'rating' must be 1, 2, 3 or 4"),
        ({"duration_ms": "long"}, "'duration_ms' must be an integer"),
    ],
)
def test_import_of_a_malformed_review_names_the_field_and_imports_nothing(
    history: Path, cli: Cli, tmp_path: Path, change: dict[str, object], message: str
) -> None:
    export = tmp_path / "e.json"
    assert cli("export", "--format", "json", str(export)).exit_code == 0
    data = json.loads(export.read_text())
    data["reviews"][0].update(change, uid="another-uid")
    export.write_text(json.dumps(data))
    result = cli("import-reviews", str(export))
    refused(result, message)
    assert "review #1 is malformed" in result.output and "damaged" not in result.output
    assert json.loads(cli("stats", "--json").output)["reviews_total"] == 1


def test_import_of_deeply_nested_json_is_a_message(history: Path, cli: Cli, tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(
        '{"format": "quizzer-reviews", "reviews": ' + "[" * 100_000 + "]" * 100_000 + "}"
    )
    refused(cli("import-reviews", str(deep)), "nested too deeply")
