"""``evalcore run --adaptive`` as a user reads it: how many calls the race may make, and made."""

import re

from evalcore.cli import main
from evalcore.storage.store import Store
from tests.suites import skill_suite


def _race(capsys, tmp_path, db):
    root = skill_suite(tmp_path / "s", skills=(0.9, 0.6, 0.2))
    code = main(["run", str(root), "--db", str(db), "--quiet", "--adaptive", "--seed", "3", "--round", "10"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def test_an_adaptive_run_gives_its_calls_at_the_start_as_a_ceiling(capsys, tmp_path, tmp_db):
    _, err = _race(capsys, tmp_path, tmp_db)
    assert re.search(r"^run \S+: at most 144 calls \(a race", err, re.M), err


def test_an_adaptive_run_ends_saying_how_many_calls_it_made_and_saved(capsys, tmp_path, tmp_db):
    out, _ = _race(capsys, tmp_path, tmp_db)
    store = Store(tmp_db)
    (run,) = store.list_runs()
    stored = store.load_run(run["id"])
    made, ended = len(stored.results), stored.info.settings["adaptive"]["ended"]
    assert made < 144, "the race stopped nobody: the test no longer reaches its case"
    last = out.strip().splitlines()[-1]
    assert (
        last == f"run {run['id']}: completed; the race made {made} of at most 144 calls ({144 - made} saved: {ended})"
    )
