"""Merging runs over the same cases: contenders from all, cases matched by dataset and id, the rest listed."""

from __future__ import annotations

import pytest

from evalcore.core.errors import EvalcoreError
from evalcore.runfile.importers import read_import
from evalcore.runfile.merge import merge_runs
from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import dump_run
from tests.factories import make_run
from tests.importing import INSPECT, PROMPTFOO, leaderboard_counts


def test_two_inspect_logs_of_one_task_merge_into_one_leaderboard():
    cold, hot = read_import(INSPECT / "capitals.eval"), read_import(INSPECT / "capitals-hot.json")
    merged = merge_runs([cold, hot])
    run = read_run_file(dump_run(merged.run))  # a valid run file
    assert [c.id for c in run.contenders] == ["mockllm/model · t=0.0", "mockllm/model · t=0.9"]
    assert len(run.cases) == 4 and len(run.results) == len(cold.results) + len(hot.results)
    assert merged.unmatched == [] and merged.renamed == {}
    assert [m.name for m in run.metrics] == [
        "match",
        "includes",
        "city_checks_exact",
        "city_checks_short",
        "confidence",
    ]
    assert run.info.settings["merge"]["runs"] == [cold.info.id, hot.info.id]
    assert [r["tool"]["name"] for r in run.info.provenance["merged_from"]] == ["inspect_ai", "inspect_ai"]
    counts = leaderboard_counts(run)
    assert counts["errors"] == 1 and counts["scored"] == 11


def test_a_promptfoo_run_and_an_inspect_run_merge_by_case_id_when_their_datasets_are_named_differently():
    promptfoo, inspect = read_import(PROMPTFOO / "eval-output.json"), read_import(INSPECT / "capitals.eval")
    with pytest.raises(EvalcoreError, match="share no case .*--by-id"):
        merge_runs([promptfoo, inspect])
    merged = merge_runs([promptfoo, inspect], by_id=True)
    run = read_run_file(dump_run(merged.run))
    assert {c.dataset for c in run.cases} == {"Capital cities"}  # the first run's name
    assert len(run.contenders) == 9 and run.contenders[-1].id == "mockllm/model · t=0.0"
    inspect_result = next(r for r in run.results if r.contender == "mockllm/model · t=0.0")
    assert inspect_result.dataset == "Capital cities" and inspect_result.score == inspect_result.metrics["match"]
    assert next(m for m in run.metrics if m.primary).name == "pass"


def test_cases_not_in_every_run_are_left_out_and_listed():
    a = make_run(n_contenders=2, n_cases=4, run_id="run-a")
    b = make_run(n_contenders=1, n_cases=3, run_id="run-b")
    b.contenders = [type(c)(f"other-{c.id}", c.model, c.settings) for c in b.contenders]
    for r in b.results:
        r.contender = f"other-{r.contender}"
    merged = merge_runs([a, b])
    assert len(merged.run.cases) == 3
    assert merged.unmatched == [("run-a", a.cases[3].dataset, a.cases[3].id)]
    assert merged.run.info.settings["merge"]["left_out"] == {"run-a": 1}
    read_run_file(dump_run(merged.run))


def test_a_contender_id_both_runs_have_is_told_apart_by_its_run():
    a = make_run(n_contenders=1, n_cases=2, run_id="run-a")
    b = make_run(n_contenders=1, n_cases=2, run_id="run-b")
    merged = merge_runs([a, b])
    (renamed,) = merged.renamed.values()
    assert renamed.startswith(f"{b.contenders[0].id} · ") and renamed.endswith("run-b")
    assert len({r.key for r in merged.run.results}) == len(a.results) + len(b.results)
    read_run_file(dump_run(merged.run))


def test_merging_the_same_runs_again_gives_the_same_id():
    a, b = make_run(run_id="run-a"), make_run(run_id="run-b")
    assert merge_runs([a, b]).run.info.id == merge_runs([a, b]).run.info.id != merge_runs([b, a]).run.info.id


def test_merge_needs_two_different_runs():
    a = make_run(run_id="run-a")
    with pytest.raises(EvalcoreError, match="at least two"):
        merge_runs([a])
    with pytest.raises(EvalcoreError, match="given twice"):
        merge_runs([a, a])
