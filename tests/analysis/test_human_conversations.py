"""People's ratings of whole conversations correct the conversation judge, as any rating corrects a judge: on a run
of the bundled ``support-chat`` suite, ``evalcore ratings RUN`` reads the Rate page's conversation ratings against
``user_satisfaction`` (its judge's own dimension) and corrects it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from evalcore.analysis.people.human import human_value, rated_dimension
from evalcore.cli import main
from evalcore.core.records import Metric, Rating
from evalcore.explorer import rating
from evalcore.storage.ratings import add_ratings
from evalcore.storage.store import Store
from tests.factories import rated_run

SUITE = Path(__file__).resolve().parents[2] / "data" / "suites" / "support-chat"


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A support-chat run in a store, and the run with its results."""
    db = tmp_path_factory.mktemp("convo") / "evalcore.db"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
        assert main(["run", str(SUITE), "--db", str(db), "--quiet"]) == 0
    with Store(db) as store:
        (run_id,) = [r["id"] for r in store.list_runs()]
        return db, store.load_run(run_id)


def _summary(capsys, db: Path, run_id: str) -> dict:
    capsys.readouterr()
    assert main(["ratings", run_id, "--db", str(db), "--format", "json", "--resamples", "50"]) == 0
    return json.loads(capsys.readouterr().out)


def test_ratings_of_whole_conversations_correct_the_conversation_judge(stored, capsys):
    db, run = stored
    # A rater who finds every conversation fully satisfying, and retaining nothing, on the Rate page's rubric.
    queue = rating.rating_queue(run, "ana", "single", size=500)
    assert len(queue) == 24  # 8 conversations of each of 3 contenders
    scores = {"user_satisfaction": 5.0, "knowledge_retention": 1.0}
    with Store(db) as store:
        add_ratings(store, run.info.id, [rating.single_rating(item, "ana", "", scores) for item in queue])
    summary = _summary(capsys, db, run.info.id)
    assert summary["metric"] == "user_satisfaction"
    judge = {c.id: [r.metrics["user_satisfaction"] for r in run.results if r.contender == c.id] for c in
             run.contenders}  # fmt: skip
    for contender, corrected in summary["corrected"].items():
        # Every conversation rated: the corrected score is the people's mean on satisfaction alone.
        assert corrected["value"] == pytest.approx(1.0)
        assert corrected["judge"] == pytest.approx(sum(judge[contender]) / len(judge[contender]))
        assert corrected["rated"] == 8
    assert set(summary["corrected"]) == {c.id for c in run.contenders}


def test_a_rating_that_scored_the_metrics_own_dimension_is_read_on_it():
    scored = Rating("d", "c", 0, "m", None, "ana", "0.5", {"user_satisfaction": 5.0, "knowledge_retention": 1.0})
    assert human_value(scored, "user_satisfaction") == 1.0
    assert human_value(scored, "knowledge_retention") == 0.0
    assert human_value(scored) == 0.5  # any other metric: the mean of the dimensions
    assert human_value(scored, "judge_score") == 0.5


def test_only_a_conversation_judges_mean_is_read_on_its_one_dimension():
    # A per-turn judge named after one of its two dimensions: its mean is the mean of the rater's scores.
    metrics = [
        Metric("helpful", "judge: helpful, 0..1"),
        Metric("safe", "judge: safe, 0..1"),
        Metric("helpful_judge_score", "judge: mean of the dimensions"),
        Metric("user_satisfaction", "judge: user_satisfaction, 0..1"),
        Metric("user_satisfaction_judge_score", "judge: mean of the dimensions"),
    ]
    run = dataclasses.replace(rated_run(), metrics=metrics)
    assert rated_dimension(run, "user_satisfaction_judge_score") == "user_satisfaction"
    assert rated_dimension(run, "helpful_judge_score") == "helpful_judge_score"
    assert rated_dimension(run, "safe") == "safe"
