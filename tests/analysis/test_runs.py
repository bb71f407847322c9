"""A run's leaderboard through one function, whether the run comes from a file or a store, with or
without its saved summary."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from evalcore.analysis.ranking.leaderboard import leaderboard
from evalcore.analysis.scores.results import Filters, select_results
from evalcore.analysis.stats.significance import pairwise_significance
from evalcore.analysis.tables import summaries
from evalcore.analysis.tables.runs import compare_run, metric_set_of, prepare_run, rank_run
from evalcore.core.errors import WeightsError
from evalcore.core.records import Run
from evalcore.storage.frames import results_frame
from evalcore.storage.history import StoredRun
from evalcore.storage.store import Store
from tests.factories import make_run

WEIGHTS = {"score": 1.0, "cost": -0.5}


def _stored(tmp_path: Path, *, summary: bool) -> tuple[StoredRun, Run]:
    run = make_run(4, 9, samples=2)
    store = Store(tmp_path / "s.db")
    store.import_run(run)
    if summary:
        summaries.write_summary(store, run.info.id)
    return StoredRun(store, run.info.id), run


def _no_results(monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("the results were read")

    monkeypatch.setattr(store, "load_results_frame", refuse)
    monkeypatch.setattr(store, "load_results_frame_and_changes", refuse)


@pytest.mark.parametrize("by_dataset", [False, True])
def test_a_run_file_ranks_as_the_leaderboard_of_its_results(by_dataset: bool) -> None:
    run = make_run(4, 9, samples=2)
    by = ("contender", "dataset") if by_dataset else ("contender",)
    pd.testing.assert_frame_equal(
        rank_run(run, WEIGHTS, by_dataset=by_dataset), leaderboard(results_frame(run), run.metrics, WEIGHTS, by=by)
    )


@pytest.mark.parametrize("by_dataset", [False, True])
def test_a_stored_run_ranks_from_its_summary_without_reading_a_result(
    tmp_path: Path, by_dataset: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored, run = _stored(tmp_path, summary=True)
    want = rank_run(run, WEIGHTS, by_dataset=by_dataset)
    _no_results(monkeypatch, stored.store)
    pd.testing.assert_frame_equal(rank_run(stored, WEIGHTS, by_dataset=by_dataset), want)
    assert "score_lo" not in rank_run(stored, WEIGHTS, by_dataset=by_dataset, ci=False).columns


def test_a_stored_run_without_a_summary_ranks_from_its_results(tmp_path: Path) -> None:
    stored, run = _stored(tmp_path, summary=False)
    pd.testing.assert_frame_equal(rank_run(stored, WEIGHTS), rank_run(run, WEIGHTS))
    assert summaries.read_summary(stored.store, stored.id) is None


def test_filters_and_the_macro_average_read_the_results(tmp_path: Path) -> None:
    stored, run = _stored(tmp_path, summary=True)
    filters = Filters(datasets=["roofing"])
    frame = results_frame(run)
    pd.testing.assert_frame_equal(
        rank_run(stored, WEIGHTS, filters), leaderboard(frame, stored.header.metrics, WEIGHTS, filters)
    )
    pd.testing.assert_frame_equal(
        rank_run(stored, WEIGHTS, average="macro"), leaderboard(frame, stored.header.metrics, WEIGHTS, average="macro")
    )


def test_opening_a_stored_run_can_save_its_missing_summary_for_the_next_reader(tmp_path: Path) -> None:
    stored, _ = _stored(tmp_path, summary=False)
    prepared = prepare_run(stored, metric_set_of(stored), save=True)
    saved = summaries.read_summary(stored.store, stored.id)
    assert saved is not None
    pd.testing.assert_frame_equal(prepared.table, saved.prepared.overall.table)


def test_a_running_run_s_summary_is_not_saved(tmp_path: Path) -> None:
    stored, _ = _stored(tmp_path, summary=False)
    stored.store.set_status(stored.id, "running")
    prepare_run(stored, metric_set_of(stored), save=True)
    assert summaries.read_summary(stored.store, stored.id) is None


def test_weights_are_refused_before_anything_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stored, _ = _stored(tmp_path, summary=False)
    _no_results(monkeypatch, stored.store)
    with pytest.raises(WeightsError, match="input_tokens"):
        rank_run(stored, {"input_tokens": 1.0})


def test_compare_run_is_pairwise_of_the_selected_results(tmp_path: Path) -> None:
    stored, run = _stored(tmp_path, summary=True)
    filters = Filters(variants=["complete", "vague"])
    want = pairwise_significance(select_results(results_frame(run), filters))
    pd.testing.assert_frame_equal(compare_run(stored, filters=filters), want)


def test_by_variant_ranks_each_variant_across_datasets() -> None:
    run = make_run(3, 12)
    table = rank_run(run, WEIGHTS, by_variant=True, ci=False)
    assert "dataset" not in table.columns
    assert sorted(set(table["variant"])) == ["complete", "noisy", "partial", "vague"]
    complete = [c for c in run.cases if c.variant == "complete"]
    assert len({c.dataset for c in complete}) == 3  # one variant spans every dataset
    rows = table[table["variant"] == "complete"]
    assert list(rows["cases"]) == [len(complete)] * 3 and sorted(rows["rank"]) == [1, 2, 3]


def test_by_variant_keeps_the_filters_on_datasets() -> None:
    run = make_run(2, 12)
    table = rank_run(run, None, Filters(datasets=["roofing"]), by_variant=True, ci=False)
    roofing = [c for c in run.cases if c.dataset == "roofing" and c.variant == "vague"]
    assert list(table[table["variant"] == "vague"]["cases"]) == [len(roofing)] * 2


def test_a_run_whose_suite_asks_for_the_corrected_score_ranks_by_it_unless_told_otherwise(tmp_path):
    from evalcore.analysis.tables.runs import rank_basis_of
    from evalcore.core.records import CORRECTED, RANK_BY, Rating
    from tests.factories import rated_run

    run = rated_run("run-corrected")
    run.info.settings[RANK_BY] = CORRECTED
    case = run.cases[1]
    run.ratings += [Rating(case.dataset, case.id, 0, c.id, None, "ana", "pass") for c in run.contenders[1:]]
    weights = {"judge_score": 1.0}
    with Store(tmp_path / "s.db") as store:
        store.import_run(run)
        for ranked_run in (run, StoredRun(store, run.info.id)):
            # The gate, the baseline, significance and the trackers call rank_run without a basis.
            ranked = rank_run(ranked_run, weights, ci=False)
            pd.testing.assert_frame_equal(ranked, rank_run(ranked_run, weights, ci=False, basis=rank_basis_of(run)))
            assert ranked.set_index("contender").loc[run.contenders[0].id, "judge_score"] == pytest.approx(0.5)
