from pathlib import Path

from evalcore.analysis.tables.completeness import (
    completeness,
    missing_note,
    run_completeness,
    run_notes,
    samples_of,
    stored_completeness,
)
from evalcore.runfile.importers import read_import
from evalcore.storage.store import Store
from tests.factories import cut_run, make_run
from tests.importing import INSPECT

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_a_run_cut_short_counts_its_missing_results_and_names_the_contenders_without_any():
    run = cut_run()
    note = missing_note(run_completeness(run))
    assert note.startswith("276 of 576 results are missing (12 contenders × 48 cases × 1 sample)")
    assert "5 contenders have none" in note
    assert all(c.id in note for c in run.contenders[7:]) and run.contenders[6].id not in note


def test_a_whole_run_has_nothing_missing_and_no_note():
    run = make_run(n_contenders=3, n_cases=4, samples=2)
    assert run_completeness(run).missing == 0 and run_notes(run, run_completeness(run)) == []


def test_a_stored_run_is_counted_in_the_store_as_its_file_is(tmp_db):
    run = cut_run()
    store = Store(tmp_db)
    store.import_run(run)
    assert stored_completeness(store, store.load_run(run.info.id, results=False)) == run_completeness(run)


def test_samples_asked_come_from_the_settings_and_never_fall_below_those_seen():
    assert samples_of({"samples": 3}, 1) == 3
    assert samples_of({"epochs": 2}, 1) == 2
    assert samples_of({}, 4) == 4


def test_many_contenders_without_results_are_named_up_to_ten_then_counted():
    found = completeness([f"c{i}" for i in range(14)], cases=2, samples=1, counts={"c0": 2})
    assert missing_note(found).endswith("c1, c2, c3, c4, c5, c6, c7, c8, c9, c10 and 3 more")


def test_a_failed_inspect_log_says_its_status_and_error():
    run = read_import(INSPECT / "capitals-failed.eval")
    (note,) = run_notes(run, run_completeness(run))
    assert note == (
        "the run failed (Inspect's log status: error): RuntimeError('upstream timed out (503 Service Unavailable)')"
    )


def test_a_log_without_results_says_there_is_nothing_to_rank():
    run = read_import(INSPECT / "capitals-empty.eval")
    assert run_notes(run, run_completeness(run)) == ["the run holds no result: there is nothing to rank"]


def test_a_running_run_is_not_said_to_lack_results():
    run = cut_run()
    run.info.status = "running"
    assert run_notes(run, run_completeness(run)) == []


def _race_run(tmp_path, store):
    from evalcore.execution.plan import RunOptions, make_plan
    from evalcore.execution.race_settings import RaceSettings
    from evalcore.execution.runner import run_suite
    from evalcore.suite.loader import load_suite
    from tests.suites import skill_suite

    suite = load_suite(skill_suite(tmp_path / "s", skills=(0.9, 0.6, 0.2)))
    run_id, _ = run_suite(make_plan(suite, RunOptions(adaptive=RaceSettings(seed=3, round=10))), store)
    return store.load_run(run_id)


def test_results_a_race_chose_not_to_make_are_not_missing(tmp_path, tmp_db):
    store = Store(tmp_db)
    run = _race_run(tmp_path, store)
    found = run_completeness(run)
    assert len(run.results) < 3 * 48, "the race stopped nobody: the test no longer reaches its case"
    assert found.missing == 0 and run_notes(run, found) == []
    assert stored_completeness(store, store.load_run(run.info.id, results=False)) == found


def test_a_race_s_result_lost_from_a_contender_still_in_is_missing(tmp_path, tmp_db):
    store = Store(tmp_db)
    run = _race_run(tmp_path, store)
    stopped = {stop["contender"] for stop in run.info.settings["adaptive"]["stops"]}
    lost = next(i for i, r in enumerate(run.results) if r.contender not in stopped)
    run.results.pop(lost)
    note = missing_note(run_completeness(run))
    assert note is not None and note.startswith("1 of ") and "the race chose not to make" in note


def test_a_note_names_the_contender_that_lacks_results_instead_of_saying_every_contender_does():
    run = make_run(n_contenders=3, n_cases=4, with_errors=False)
    short = run.contenders[1].id
    run.results.remove(next(r for r in run.results if r.contender == short))
    note = missing_note(run_completeness(run))
    shape = "(3 contenders × 4 cases × 1 sample)"
    assert note == f"1 of 12 results are missing {shape}; {short} lacks some: its row is ranked on fewer cases"


def test_an_import_of_traced_calls_each_made_by_one_model_misses_nothing():
    # Each traced call is one model's case: no model was meant to answer the others' cases.
    run = read_import(FIXTURES / "otlp" / "chat-traces.json")
    assert len(run.contenders) > 1 and len(run.results) == len(run.cases)
    assert run_completeness(run).missing == 0 and missing_note(run_completeness(run)) is None


def test_a_run_each_of_whose_cases_is_one_contender_s_names_its_missing_results_by_case():
    found = completeness(["a", "b"], 5, 1, {"a": 3, "b": 1}, {"scores_traces_of": "r1"})
    assert found.expected == 5 and found.missing == 1
    assert missing_note(found) == "1 of 5 results are missing (5 cases, each of one contender, × 1 sample)"


def test_the_settings_that_make_each_case_one_contender_s_are_the_ones_the_importer_and_the_scorer_write():
    from evalcore.analysis.tables.completeness import OWNED_CASES
    from evalcore.execution.plan import TRACES_SETTING

    run = read_import(FIXTURES / "otlp" / "chat-traces.json")
    assert set(OWNED_CASES) == {next(k for k in run.info.settings if k in OWNED_CASES), TRACES_SETTING}
