"""Ranking by the judge's score corrected by people: when a suite asks and every contender has rated replies,
the judged metric's values, intervals and the ranking are the corrected ones; otherwise the judge's, and why."""

from __future__ import annotations

import pytest

from evalcore.analysis.people.corrected import CORRECTED, RANK_BY, asks_corrected, rank_basis, with_corrected
from evalcore.analysis.ranking.leaderboard import finish, prepare
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Rating
from evalcore.storage.frames import results_frame
from tests.factories import rated_run


def _asking(run):
    run.info.settings[RANK_BY] = CORRECTED
    singles = [r for r in run.ratings if r.b is None]  # ana: c0's replies to cases 0 and 1, pass and fail
    c0, c1, c2 = (c.id for c in run.contenders)
    for contender in (c1, c2):
        case = run.cases[1]
        singles.append(Rating(case.dataset, case.id, 0, contender, None, "ana", "pass"))
    return run, singles


def test_a_run_asks_for_the_corrected_score_only_through_its_setting():
    run = rated_run()
    assert not asks_corrected(run)
    assert asks_corrected(_asking(run)[0])


def test_every_contender_rated_ranks_by_the_corrected_score_worked_out_by_hand():
    run, singles = _asking(rated_run())
    basis = rank_basis(run, singles)
    assert basis.applied and basis.metric == "judge_score"
    assert basis.note.startswith("Ranked by judge_score corrected by people (4 rated replies")
    prepared = prepare(results_frame(run), MetricSet.of(run.metrics), B=200)
    ranked = finish(
        with_corrected(prepared, basis, MetricSet.of(run.metrics)), MetricSet.of(run.metrics), {"judge_score": 1.0}
    )
    row = ranked.set_index("contender").loc[run.contenders[0].id]
    # judge 1 on all 4 replies; people: pass, fail where the judge said 1, 1: 1 + mean(0, -1) = 0.5
    assert row["judge_score"] == pytest.approx(0.5)
    assert row["judge_score_lo"] < 0.5 < row["judge_score_hi"]
    assert ranked.sort_values("rank")["contender"].iloc[-1] == run.contenders[0].id


def test_ratings_that_all_agree_with_the_judge_give_the_boundary_rules_interval_not_a_point():
    run, singles = _asking(rated_run())
    basis = rank_basis(run, singles)
    prepared = prepare(results_frame(run), MetricSet.of(run.metrics), B=200)
    ranked = finish(
        with_corrected(prepared, basis, MetricSet.of(run.metrics)), MetricSet.of(run.metrics), {"judge_score": 1.0}
    )
    c1 = run.contenders[1].id  # one rated reply, pass, where the judge said 1
    row, corrected = ranked.set_index("contender").loc[c1], basis.corrected[c1]
    assert (corrected.value, corrected.se) == (1.0, 0.0)
    assert corrected.low == pytest.approx(0.025) and corrected.high == 1.0  # the boundary rule on 1 rated item
    assert (row["judge_score_lo"], row["judge_score_hi"]) == (corrected.low, corrected.high)


def test_the_prepared_table_it_came_from_is_left_as_it_was():
    run, singles = _asking(rated_run())
    prepared = prepare(results_frame(run), MetricSet.of(run.metrics), B=50)
    before = prepared.table.copy()
    with_corrected(prepared, rank_basis(run, singles), MetricSet.of(run.metrics))
    assert prepared.table.equals(before)


def test_a_contender_without_rated_replies_keeps_the_judges_score_and_says_why():
    run, singles = _asking(rated_run())
    c2 = run.contenders[2].id
    basis = rank_basis(run, [r for r in singles if r.a != c2])
    assert not basis.applied
    assert f"but {c2} has no randomly drawn rated reply: ranked by the judge's own judge_score." in basis.note


def test_with_no_single_ratings_the_note_says_no_one_has_rated_yet():
    run, _ = _asking(rated_run())
    assert "no one has rated single replies of this run yet" in rank_basis(run, []).note


def test_the_corrected_interval_shown_stays_within_0_and_1():
    # c0's corrected 0.5 carries a standard error of 0.35: 0.5 ± 0.69 before clipping.
    run, singles = _asking(rated_run())
    prepared = prepare(results_frame(run), MetricSet.of(run.metrics), B=400)
    ranked = finish(
        with_corrected(prepared, rank_basis(run, singles), MetricSet.of(run.metrics)),
        MetricSet.of(run.metrics),
        {"judge_score": 1},
    )
    row = ranked.set_index("contender").loc[run.contenders[0].id]
    assert (row["judge_score_lo"], row["judge_score_hi"]) == (0.0, 1.0)


def test_the_corrected_resamples_spread_with_the_unclipped_standard_error():
    # Resamples of 0.5 + N(0, 0.354²) fall outside [0, 1] 16% of the time; with the standard error read from
    # the clipped ends, (1 − 0) / (2 · 1.96) = 0.255, only 5% would.
    run, singles = _asking(rated_run())
    prepared = with_corrected(
        prepare(results_frame(run), MetricSet.of(run.metrics), B=400),
        rank_basis(run, singles),
        MetricSet.of(run.metrics),
    )
    resampled = prepared.resampled[0][1]
    values = resampled.tables["judge_score"][:, list(resampled.contenders).index(run.contenders[0].id)]
    assert ((values == 0.0) | (values == 1.0)).mean() > 0.11


def _by_dataset(run, singles):
    from evalcore.analysis.tables.runs import rank_run

    run.ratings = singles
    ranked = rank_run(run, {"judge_score": 1.0}, by_dataset=True, basis=rank_basis(run, singles))
    return {(r["dataset"], r["contender"]): r for r in ranked.to_dict("records")}


def test_a_dataset_whose_contenders_people_all_rated_ranks_by_its_own_corrected_score():
    run, singles = _asking(rated_run())
    rows = _by_dataset(run, singles)
    c0 = run.contenders[0].id
    # roofing: people failed c0's one reply the judge gave 1, and passed c1's and c2's: corrected 0 for c0
    assert rows[("roofing", c0)]["judge_score"] == pytest.approx(0.0)
    assert {r["ranked_by"] for (d, _), r in rows.items() if d == "roofing"} == {"corrected by people"}
    assert min((r for (d, _), r in rows.items() if d == "roofing"), key=lambda r: r["wscore"])["contender"] == c0


def test_a_dataset_people_rated_only_in_part_keeps_the_judges_score_and_says_so():
    run, singles = _asking(rated_run())
    rows = _by_dataset(run, singles)
    c0 = run.contenders[0].id
    # tax_preparation: only c0's reply rated (pass, where the judge said 1)
    assert rows[("tax_preparation", c0)]["judge_score"] == pytest.approx(1.0)
    assert {r["ranked_by"] for (d, _), r in rows.items() if d != "roofing"} == {"judge's own"}
