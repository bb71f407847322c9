"""Two judges of one run against the same people: agreement and the PPI-corrected score side by side."""

from __future__ import annotations

import pytest

from evalcore.analysis.people.side_by_side import judged_metrics, judges_side_by_side, side_by_side_rows
from tests.factories import rated_run, two_judges_run
from tests.support_chat import rated_support_chat


def test_every_judges_metric_is_compared_in_the_runs_order():
    run = two_judges_run()
    assert judged_metrics(run) == ["llm_judge_judge_score", "aligned_judge_score"]
    assert [j.metric for j in judges_side_by_side(run, run.ratings)] == judged_metrics(run)


def test_a_judge_that_agrees_more_with_people_narrows_the_corrected_interval():
    for seed in range(5):
        run = two_judges_run(seed=seed)
        first, aligned = judges_side_by_side(run, run.ratings)
        assert aligned.agreement.stats["kappa"].value > first.agreement.stats["kappa"].value
        for contender, m in first.corrected.items():
            better = aligned.corrected[contender]
            assert better.high - better.low < m.high - m.low, (seed, contender)
            assert better.rated == m.rated == 60  # the same people's ratings buy the narrower interval


def test_both_corrected_scores_estimate_the_same_peoples_mean():
    run = two_judges_run(n_cases=400, rated=120, seed=3)
    first, aligned = judges_side_by_side(run, run.ratings)
    for contender, m in first.corrected.items():
        other = aligned.corrected[contender]
        assert max(m.low, other.low) < min(m.high, other.high)  # the intervals overlap: one quantity, unbiased


def test_one_row_per_judge_and_contender():
    run = two_judges_run()
    rows = side_by_side_rows(judges_side_by_side(run, run.ratings))
    assert [(r["judge"], r["contender"]) for r in rows][:2] == [
        ("llm_judge_judge_score", run.contenders[0].id),
        ("llm_judge_judge_score", run.contenders[1].id),
    ]
    assert all(abs(r["width"] - (r["high"] - r["low"])) < 1e-12 for r in rows)


def test_a_run_with_one_judge_has_one_column():
    run = rated_run()
    assert [j.metric for j in judges_side_by_side(run, run.ratings)] == ["judge_score"]


def test_each_conversation_judge_is_corrected_by_the_raters_score_on_its_own_dimension(tmp_path):
    # Every conversation fully satisfying and retaining nothing: each judge's corrected score is that dimension's.
    run, ratings = rated_support_chat(tmp_path / "evalcore.db", {"user_satisfaction": 5.0, "knowledge_retention": 1.0})
    judges = {j.metric: j for j in judges_side_by_side(run, ratings)}
    assert list(judges) == ["user_satisfaction_judge_score", "knowledge_retention_judge_score"]
    for metric, people in (("user_satisfaction_judge_score", 1.0), ("knowledge_retention_judge_score", 0.0)):
        assert {c: m.rated for c, m in judges[metric].corrected.items()} == {c.id: 8 for c in run.contenders}
        for m in judges[metric].corrected.values():
            assert m.value == pytest.approx(people), metric  # every conversation rated: the people's mean
