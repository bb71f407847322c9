"""A rescored run keeps people's ratings of the replies it replays, so a judge and its aligned version can be
compared against the same people (the flow ``judge align`` → add its entry → ``rescore`` → People panel)."""

from __future__ import annotations

import pytest
import yaml

from evalcore.analysis.people.side_by_side import judges_side_by_side
from evalcore.cli import main
from evalcore.storage.ratings import load_ratings
from evalcore.storage.store import Store
from tests.aligning import rated_suite_run


@pytest.fixture(autouse=True)
def instant(monkeypatch):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")


def _new_run(db, old: str) -> str:
    with Store(db) as store:
        return next(str(r["id"]) for r in store.list_runs() if r["id"] != old)


def test_a_rescored_run_keeps_the_ratings_of_the_replies_it_replays(tmp_path):
    _, db, run_id = rated_suite_run(tmp_path)
    assert main(["rescore", run_id, "--db", str(db)]) == 0
    with Store(db) as store:
        kept, own = load_ratings(store, _new_run(db, run_id)), load_ratings(store, run_id)
    assert [(r.case, r.a, r.verdict) for r in kept] == [(r.case, r.a, r.verdict) for r in own]


def test_an_aligned_judge_added_and_rescored_sits_beside_the_first_against_the_same_people(tmp_path):
    # People rate a third of the replies: the corrected score leans on the judge for the rest, as in use.
    suite, db, run_id = rated_suite_run(tmp_path, every=3)
    assert main(["judge", "align", run_id, "--db", str(db), "--folds", "3"]) == 0
    written = yaml.safe_load((suite / "judges" / "llm_judge_aligned.yaml").read_text(encoding="utf-8"))
    entry = yaml.safe_dump([written["scorer_entry"]])
    text = (suite / "evalcore.yaml").read_text(encoding="utf-8")
    added = "  " + entry.strip().replace("\n", "\n  ") + "\ndatasets:\n"
    (suite / "evalcore.yaml").write_text(text.replace("datasets:\n", added, 1), encoding="utf-8")
    assert main(["rescore", run_id, "--db", str(db)]) == 0
    with Store(db) as store:
        new = _new_run(db, run_id)
        run, ratings = store.load_run(new), load_ratings(store, new)
    first, aligned = judges_side_by_side(run, ratings)
    assert (first.metric, aligned.metric) == ("llm_judge_judge_score", "llm_judge_aligned_judge_score")
    assert aligned.agreement.stats["accuracy"].value > first.agreement.stats["accuracy"].value
    for contender, m in first.corrected.items():
        narrower = aligned.corrected[contender]
        assert narrower.high - narrower.low < m.high - m.low
