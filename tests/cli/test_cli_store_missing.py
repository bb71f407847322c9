"""A command that only reads the store never creates one: a ``--db`` (or ``$EVALCORE_DB``) naming no store is a
user error of one line, and no file or folder appears; the commands that write runs still create it."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.cli import main
from evalcore.runfile.ratings import dump_ratings
from evalcore.storage.store import Store
from tests.factories import make_run, rated_run

SAID = "no store at {db} (EVALCORE_DB / --db); runs are stored by evalcore run or evalcore import\n"

#: Every command that reads the store (or changes what it holds), with the arguments it needs besides ``--db``.
READERS = {
    "runs": ["runs"],
    "leaderboard": ["leaderboard", "abcd"],
    "weights": ["weights", "abcd"],
    "significance": ["significance", "abcd"],
    "report": ["report", "abcd", "-o", "report.html"],
    "export": ["export", "abcd", "-o", "run.json"],
    "compare": ["compare", "abcd", "efgh"],
    "gate": ["gate", "abcd"],
    "baseline show": ["baseline", "show"],
    "baseline set": ["baseline", "set", "abcd"],
    "delete": ["delete", "abcd", "--yes"],
    "rescore": ["rescore", "abcd"],
    "agreement": ["agreement", "abcd", "--human-key", "human"],
    "pairwise": ["pairwise", "abcd"],
    "ratings": ["ratings", "abcd"],
    "ratings export": ["ratings", "export", "abcd"],
    "run --resume": ["run", "--resume", "abcd"],
    "run --replay of a stored run": ["run", str(Path(__file__).parents[2] / "data/suites/intake"), "--replay", "abcd"],
}


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVALCORE_DB", raising=False)


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("argv", READERS.values(), ids=READERS.keys())
def test_a_reader_given_a_missing_store_says_so_and_creates_nothing(argv, tmp_path, capsys):
    db = Path("typo") / "evalcre.db"
    assert main([*argv, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    # A command that also reads run files says the argument is no file either.
    said = SAID.format(db=db)
    assert err in (
        f"error: {said}",
        f"error: abcd: no such file, and {said}",
        f"error: --replay 'abcd': no such file, and {said}",
    )
    assert _files(tmp_path) == []


def test_a_missing_store_named_by_the_environment_is_said_with_its_path(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EVALCORE_DB", "sqlite:///evalcre.db")
    assert main(["runs"]) == 2
    assert capsys.readouterr().err == "error: " + SAID.format(db="evalcre.db")
    assert _files(tmp_path) == []


def test_the_default_store_of_a_fresh_folder_is_not_created_by_a_reader(tmp_path, user_data, capsys):
    assert main(["runs"]) == 2
    assert capsys.readouterr().err == "error: " + SAID.format(db=user_data / "evalcore" / "evalcore.db")
    assert _files(tmp_path) == [] and _files(user_data) == []


def test_a_reader_reads_a_store_that_exists(capsys):
    with Store("evalcore.db") as store:
        store.import_run(make_run(run_id="kept"))
    assert main(["runs", "--db", "evalcore.db", "--format", "json"]) == 0
    assert '"kept"' in capsys.readouterr().out


def test_ratings_import_into_a_missing_store_leaves_no_store(tmp_path, capsys):
    ratings = tmp_path / "ratings.jsonl"
    run = rated_run()
    ratings.write_text(dump_ratings(run.info.id, run.ratings), encoding="utf-8")
    assert main(["ratings", "import", str(ratings), "--db", "new.db"]) == 2
    assert capsys.readouterr().err == "error: " + SAID.format(db="new.db")
    assert _files(tmp_path) == ["ratings.jsonl"]


def test_merge_save_creates_the_store_it_writes_to(tmp_path):
    from evalcore.runfile.write import write_run_file

    a = write_run_file(make_run(run_id="a", n_contenders=1), tmp_path / "a.json")
    b = write_run_file(make_run(run_id="b", n_contenders=1), tmp_path / "b.json")
    assert main(["merge", str(a), str(b), "-o", "merged.json", "--save", "--db", "stores/new.db"]) == 0
    assert len(Store("stores/new.db").list_runs()) == 1


def test_plan_without_a_store_creates_none(tmp_path, capsys):
    from tests.suites import write_suite

    suite = write_suite(tmp_path / "suite")
    assert main(["plan", str(suite), "--db", "new.db"]) == 0
    assert not (tmp_path / "new.db").exists()


@pytest.mark.parametrize(("form", "said"), [([], "no runs yet"), (["--format", "json"], "[]")])
def test_a_postgresql_database_without_the_stores_tables_is_an_empty_store_left_as_it_is(
    postgres_server, capsys, form, said
):
    import psycopg

    url = postgres_server.new_url()
    assert main(["runs", "--db", url, *form]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(said) and err == ""
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT to_regclass('evalcore_migrations')").fetchone() == (None,)


def test_a_postgresql_database_without_the_stores_tables_holds_no_run_to_read(postgres_server, capsys):
    url = postgres_server.new_url()
    assert main(["leaderboard", "abcd", "--db", url]) == 2
    assert capsys.readouterr().err == "error: abcd: no such file, and " + SAID.format(db=url)


def test_a_run_of_a_broken_suite_leaves_no_store_behind(tmp_path, capsys):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "evalcore.yaml").write_text("lineup: [ {model: \n")
    db = Path("new") / "evalcore.db"
    assert main(["run", str(suite), "--db", str(db)]) == 2
    assert "evalcore.yaml" in capsys.readouterr().err
    assert _files(tmp_path) == ["suite", "suite/evalcore.yaml"]
