"""evalcore.execution.plan: what a run header holds when a run starts."""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime, timedelta

import pytest

from evalcore.core.errors import ConfigError
from evalcore.execution.plan import make_plan, new_run
from evalcore.suite.fingerprint import SETTING, definition_fingerprint
from evalcore.suite.loader import load_suite
from tests.suites import write_suite

STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def test_runs_started_one_after_another_have_distinct_ids_and_sort_in_start_order(tmp_path):
    plan = make_plan(load_suite(write_suite(tmp_path / "suite")))
    headers = []
    for i in range(300):
        headers.append(new_run(plan).info)
        if i % 100 == 99:
            time.sleep(0.002)  # so that some runs start in a later millisecond
    assert len({h.id for h in headers}) == len(headers)
    stamps = [h.created_at for h in headers]
    assert stamps == sorted(stamps) and stamps[0] < stamps[-1]


def test_a_run_is_stamped_with_the_current_time_in_utc(tmp_path):
    plan = make_plan(load_suite(write_suite(tmp_path / "suite")))
    created_at = new_run(plan).info.created_at
    assert STAMP.fullmatch(created_at), created_at
    stamped = datetime.fromisoformat(created_at)
    assert stamped.utcoffset() == timedelta(0)
    assert abs(datetime.now(UTC) - stamped) < timedelta(seconds=5)


def test_a_run_keeps_the_id_it_is_given(tmp_path):
    plan = make_plan(load_suite(write_suite(tmp_path / "suite")))
    assert new_run(plan, "my-run").info.id == "my-run"


def test_a_suite_that_ranks_by_the_corrected_score_records_it_in_the_runs_settings(tmp_path):
    asks = {"weighted_score": {"weights": {"score": 1}, "rank_by": "corrected"}}
    plan = make_plan(load_suite(write_suite(tmp_path / "asks", asks)))
    assert new_run(plan).info.settings["rank_by"] == "corrected"
    plain = make_plan(load_suite(write_suite(tmp_path / "plain")))
    assert "rank_by" not in new_run(plain).info.settings


def test_a_run_records_its_definition_fingerprint(tmp_path):
    suite = load_suite(write_suite(tmp_path / "suite"))
    plan = make_plan(suite)
    assert new_run(plan).info.settings[SETTING] == definition_fingerprint(suite, plan.cases)


def test_minimum_scores_naming_no_metric_are_refused_with_a_suggestion(tmp_path):
    root = write_suite(tmp_path / "suite")
    (root / "datasets" / "shop" / "cases" / "complete" / "001" / "metadata.json").write_text(
        json.dumps({"minimum_scores": {"field_acuracy": 1.0}})
    )
    with pytest.raises(ConfigError, match="minimum_scores: 'field_acuracy' is no metric of the suite; did you mean"):
        make_plan(load_suite(root))


def test_starting_a_run_derives_its_metrics_once_from_the_plan(tmp_path, monkeypatch):
    from evalcore.execution import plan as plan_module
    from evalcore.execution import readiness
    from evalcore.execution.runner import start_run
    from evalcore.storage.store import Store

    plan = make_plan(load_suite(write_suite(tmp_path / "suite")))
    declared = [m.name for m in plan.metrics]
    builds: list[object] = []
    build = plan_module.build_scorer

    def counted(*args, **kwargs):
        builds.append(args)
        return build(*args, **kwargs)

    for module in (plan_module, readiness):
        monkeypatch.setattr(module, "build_scorer", counted)
    with Store(tmp_path / "store.sqlite") as store:
        run = start_run(plan, store)
    assert [m.name for m in run.metrics] == declared == ["field_accuracy", "exact_match", "restraint",
                                                           "hallucinated_rate", "missed_rate"]  # fmt: skip
    assert builds == []  # the checks and the header read the plan's metrics: no scorer is built again
