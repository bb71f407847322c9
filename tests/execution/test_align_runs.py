"""``align_judge`` on a real offline run: examples from the training folds only, the gain measured on held-out
ratings, the aligned judge written only when it is better by more than the noise."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from evalcore.analysis.people.alignment import assign_folds
from evalcore.core.errors import ConfigError
from evalcore.execution.align import AlignOptions, align_judge, chosen_judge, rated_items
from evalcore.storage.ratings import load_ratings
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.aligning import rated_suite_run
from tests.support_chat import SUITE as SUPPORT_CHAT
from tests.support_chat import rated_support_chat


@pytest.fixture(autouse=True)
def instant(monkeypatch):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")


def _align(folder: Path, judge: str = "fake/judge-learner", **options):
    suite, db, run_id = rated_suite_run(folder, judge)
    with Store(db) as store:
        run, ratings = store.load_run(run_id), load_ratings(store, run_id)
    return suite, run, ratings, align_judge(run, ratings, load_suite(suite), AlignOptions(**options))


def test_a_judge_that_learns_from_its_mistakes_is_aligned_and_written(tmp_path):
    suite, run, _, outcome = _align(tmp_path)
    report = outcome.report
    assert outcome.status == "aligned"
    assert (report.before.accuracy.value, report.after.accuracy.value) == (0.5, 1.0)
    assert report.difference.lo > 0
    written = yaml.safe_load(outcome.written.read_text(encoding="utf-8"))
    assert outcome.written == suite / "judges" / "llm_judge_aligned.yaml"
    assert {e["verdict"] for e in written["examples"]} == {"fail"}  # the judge only erred on failed replies
    assert written["scorer_entry"]["options"]["examples"] == "judges/llm_judge_aligned.yaml"
    assert written["aligned_from"]["run"] == run.info.id


def test_no_fold_is_judged_with_an_example_of_its_own(tmp_path):
    _, run, ratings, outcome = _align(tmp_path, folds=4, seed=7)
    fold = assign_folds(outcome.items, 4, 7)
    for f, examples in enumerate(outcome.report.examples):
        assert examples, f"fold {f} had no example"
        assert all(fold[i] != f for i in examples)


def test_a_judge_that_does_not_learn_is_not_written(tmp_path):
    suite, _, _, outcome = _align(tmp_path, judge="fake/judge")
    assert outcome.status == "not better"
    assert outcome.report.difference.value == 0.0
    assert not (suite / "judges").exists()


def test_the_aligned_judge_file_loads_as_the_suites_judge(tmp_path):
    suite, _, _, outcome = _align(tmp_path)
    text = (suite / "evalcore.yaml").read_text(encoding="utf-8")
    entry = yaml.safe_dump([outcome.entry], sort_keys=False)
    (suite / "evalcore.yaml").write_text(
        text.replace("datasets:\n", "  " + entry.replace("\n", "\n  ") + "\ndatasets:\n", 1)
    )
    from evalcore.scoring.plugins import build_scorer

    members = build_scorer(load_suite(suite).scorer_refs, suite).members
    assert [m.id for m in members] == ["llm_judge", "llm_judge_aligned"]
    assert len(members[1].scorer.examples) == 4


def test_too_few_rated_items_for_the_folds_is_a_config_error(tmp_path):
    suite, db, run_id = rated_suite_run(tmp_path)
    with Store(db) as store:
        run, ratings = store.load_run(run_id), load_ratings(store, run_id)[:3]
    assert len(rated_items(run, ratings, "judge_score")) == 3
    with pytest.raises(ConfigError, match="3 replies rated by people.*--folds 5 needs at least 5"):
        align_judge(run, ratings, load_suite(suite), AlignOptions())


def test_a_rubric_rewritten_from_the_training_folds_is_measured_and_written(tmp_path):
    suite, _, _, outcome = _align(tmp_path, rewrite_rubric="fake/judge-learner", shots=2)
    assert outcome.status == "aligned"
    rubric = outcome.entry["options"]["rubric"]
    assert rubric.startswith("Is the answer right for the customer?\nPeople's verdict: fail for questions like: ")
    assert rubric.count("People's verdict: fail") == 2  # one rule per example of the judge written


def test_a_rubric_writer_that_gives_no_rubric_leaves_nothing_written(tmp_path):
    suite, _, _, outcome = _align(tmp_path, rewrite_rubric="fake/judge")
    assert outcome.status == "incomplete"
    assert "rubric by fake/judge: reply is not JSON" in outcome.message
    assert not (suite / "judges").exists()


def test_items_rated_because_judges_disagreed_are_named_in_the_report(tmp_path):
    from dataclasses import replace

    suite, db, run_id = rated_suite_run(tmp_path)
    with Store(db) as store:
        run, ratings = store.load_run(run_id), load_ratings(store, run_id)
    ratings = [replace(r, random=i >= 3) for i, r in enumerate(ratings)]
    outcome = align_judge(run, ratings, load_suite(suite), AlignOptions())
    assert outcome.report.notes == [
        "3 of 20 items were rated because judges disagreed on them (not drawn at random): the agreement describes "
        "the rated items, not every reply of the run"
    ]


class _Counting:
    """A judge provider that answers ``pass`` after a pause and counts the calls in flight at once."""

    def __init__(self) -> None:
        self.now = self.most = self.calls = 0

    async def complete(self, request):  # noqa: ANN001, ANN201
        import asyncio

        from evalcore.core.records import Usage
        from evalcore.models.types import Reply

        self.now += 1
        self.calls += 1
        self.most = max(self.most, self.now)
        await asyncio.sleep(0.01)
        self.now -= 1
        return Reply(text='{"correct": 1, "reasoning": "ok"}', usage=Usage(10, 5, 0.0), latency_s=0.01, attempts=1)

    def __getattr__(self, name):  # noqa: ANN001, ANN204
        from evalcore.models.fakes import FakeProvider

        return getattr(FakeProvider(), name)


@pytest.mark.parametrize(("limits", "most"), [("", 4), ("limits:\n  counting/judge: {concurrency: 1}\n", 1)])
def test_the_judge_calls_keep_the_suites_rate_limits(tmp_path, monkeypatch, limits, most):
    from evalcore.models import registry

    suite, db, run_id = rated_suite_run(tmp_path)
    text = (suite / "evalcore.yaml").read_text(encoding="utf-8").replace("fake/judge-learner", "counting/judge")
    (suite / "evalcore.yaml").write_text(text.replace("datasets:\n", limits + "datasets:\n", 1), encoding="utf-8")
    counting = _Counting()
    monkeypatch.setitem(registry._PROVIDERS, "counting/", counting)
    with Store(db) as store:
        run, ratings = store.load_run(run_id), load_ratings(store, run_id)
    outcome = align_judge(run, ratings, load_suite(suite), AlignOptions(concurrency=4))
    assert outcome.judged == 20
    assert counting.most == most


def test_rejudging_before_asks_the_judge_as_it_is_once_more_per_item(tmp_path, monkeypatch):
    from evalcore.models import registry

    suite, db, run_id = rated_suite_run(tmp_path)
    text = (suite / "evalcore.yaml").read_text(encoding="utf-8").replace("fake/judge-learner", "counting/judge")
    (suite / "evalcore.yaml").write_text(text, encoding="utf-8")
    counting = _Counting()
    monkeypatch.setitem(registry._PROVIDERS, "counting/", counting)
    with Store(db) as store:
        run, ratings = store.load_run(run_id), load_ratings(store, run_id)
    stored = align_judge(run, ratings, load_suite(suite), AlignOptions())
    fresh = align_judge(run, ratings, load_suite(suite), AlignOptions(rejudge_before=True))
    assert counting.calls == 20 + 40
    assert fresh.report.before.accuracy.value == stored.report.before.accuracy.value == 0.5


def test_a_conversation_judge_is_aligned_to_the_raters_score_on_its_own_dimension(tmp_path):
    # Fully satisfied, nothing retained: people pass every conversation on satisfaction and fail it on retention.
    run, ratings = rated_support_chat(tmp_path / "evalcore.db", {"user_satisfaction": 5.0, "knowledge_retention": 1.0})
    suite = load_suite(SUPPORT_CHAT)
    for judge, people in (("user_satisfaction", "pass"), ("knowledge_retention", "fail")):
        _, _, metric = chosen_judge(suite, judge)
        items = rated_items(run, ratings, metric)
        assert len(items) == 24
        assert {i.human for i in items} == {people}, judge
