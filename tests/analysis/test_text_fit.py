"""The text leaderboard within a width, without weights, with thin evidence; and why the best row won."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from evalcore.analysis.ranking.leaderboard import rank
from evalcore.analysis.scores.formats import plural
from evalcore.analysis.tables.banner import winner_reason
from evalcore.analysis.tables.text import cut_names, format_leaderboard
from evalcore.core.metric_set import MetricSet
from tests.analysis.rows import METRICS, NAN, table

LONG = "openai/gpt-4o-mini · effort=low · t=0.2"


def wide_table(weights=None) -> pd.DataFrame:
    rows = table(
        *(
            {
                "contender": f"{LONG} · n={i}",
                "score": 0.9 - i / 10,
                "field_accuracy": 0.9 - i / 10,
                "cases": 48,
                "scored": 48,
                "errors": i % 2,
            }
            for i in range(4)
        ),
        {"contender": "fake/dead", "score": NAN, "field_accuracy": NAN, "scored": 0, "errors": 48, "cases": 48},
    ).assign(input_tokens=1234.0, output_tokens=56.0)
    ranked = rank(rows, weights, METRICS)
    for name in ("score", "field_accuracy", "hallucinated_rate", "wscore"):
        ranked[f"{name}_lo"], ranked[f"{name}_hi"] = ranked[name] * 0.9, ranked[name] * 1.05
    return ranked.assign(p_best=[0.7, 0.2, 0.1, 0.0, NAN])


@pytest.mark.parametrize("width", [80, 100, 120])
@pytest.mark.parametrize("weights", [None, {"score": 1, "errors": 1, "cost": -0.5}])
def test_every_line_fits_the_width(width, weights):
    text = format_leaderboard(wide_table(weights), MetricSet.of(METRICS), weights=weights, width=width)
    assert max(map(len, text.splitlines())) <= width
    assert "--wide shows every column" in text or width > 100


def test_the_columns_that_explain_a_rank_stay_at_80_characters():
    text = format_leaderboard(
        wide_table({"score": 1, "errors": 1}), MetricSet.of(METRICS), weights={"score": 1}, width=80
    )
    header = text.splitlines()[0].split()
    assert {"#", "contender", "score", "wscore", "errors", "cost", "time"} <= set(header)
    assert "tokens" not in header and "…" in text  # long ids cut in the middle


def test_without_a_width_every_column_shows():
    text = format_leaderboard(wide_table(), MetricSet.of(METRICS))
    assert "in tokens" in text and "hallucinated_rate" in text and "P(best)" in text and "--wide" not in text


def test_the_primary_metric_is_not_repeated_when_it_is_the_score():
    assert "field_accuracy" not in format_leaderboard(wide_table(), MetricSet.of(METRICS)).splitlines()[0]


def test_without_weights_there_is_no_wscore_column_and_the_glossary_says_so():
    text = format_leaderboard(wide_table(), MetricSet.of(METRICS))
    assert "wscore" not in text.splitlines()[0]
    assert "weights: no weights set: ranked by score" in text
    assert "weighted score" not in text and "missing" not in text


def test_a_row_with_nothing_scored_says_so_and_has_no_rank():
    lines = format_leaderboard(wide_table(), MetricSet.of(METRICS)).splitlines()
    last = lines[6]
    assert last.startswith("   fake/dead") and last.endswith("no scored results")
    assert any(line.startswith("no scored results: every call failed") for line in lines)


def test_json_gives_a_row_with_nothing_scored_null_rank_p_best_and_wscore():
    rows = json.loads(format_leaderboard(wide_table({"cost": -1}), MetricSet.of(METRICS), "json"))
    dead = rows[-1]
    assert dead["contender"] == "fake/dead" and (dead["rank"], dead["p_best"], dead["wscore"]) == (None, None, None)
    assert [r["rank"] for r in rows[:-1]] == [1, 2, 3, 4]


def test_a_row_with_few_cases_is_marked_and_explained():
    ranked = rank(table({"contender": "a", "scored": 1}), {}, METRICS)
    text = format_leaderboard(ranked, MetricSet.of(METRICS))
    assert "★ best  $ value  few cases" in text and "few cases: scored on fewer than 30 cases" in text


def test_plurals():
    assert [plural(1, "result"), plural(2, "result"), plural(0, "error"), plural(1, "dataset")] == [
        "1 result",
        "2 results",
        "0 errors",
        "1 dataset",
    ]


# --- why the best row won ------------------------------------------------------------------------


def reason(weights, *rows):
    return winner_reason(rank(table(*rows), weights, METRICS), weights)


def test_a_runner_up_tied_on_score_loses_on_its_errors_penalty():
    rows = ({"contender": "fake/oracle"}, {"contender": "fake/flaky", "errors": 1})
    assert reason({"score": 1, "errors": 1}, *rows) == (
        "fake/flaky ties on score but loses 20 points of weighted score for 1 error"
    )


def test_without_weights_the_reason_compares_scores():
    rows = ({"contender": "fake/a", "score": 0.54}, {"contender": "fake/b", "score": 0.5})
    assert reason({}, *rows) == "fake/a ranks first on score: 54.0% vs 50.0% for fake/b"


def test_under_weights_the_reason_compares_weighted_scores_then_names_each_weighted_edge():
    rows = ({"contender": "fake/a", "score": 0.54}, {"contender": "fake/b", "score": 0.5})
    assert reason({"score": 1}, *rows) == (
        "fake/a ranks first on the weighted score: 54.0 vs 50.0 for fake/b, ahead on score (54.0% vs 50.0%)"
    )


def test_the_reason_speaks_of_score_only_when_score_is_weighted():
    rows = ({"contender": "fake/a", "score": 0.4, "cost": 0.001}, {"contender": "fake/b", "score": 0.9, "cost": 0.01})
    assert reason({"cost": -1}, *rows) == (
        "fake/a ranks first on the weighted score: 100.0 vs 0.0 for fake/b, ahead on cost ($0.001 vs $0.01 per case)"
    )


def test_a_tie_on_score_goes_to_the_cheaper_row():
    rows = ({"contender": "fake/a", "cost": 0.0004}, {"contender": "fake/b", "cost": 0.0002})
    assert reason({}, *rows) == "ties on score; fake/b is cheaper ($0.0002 vs $0.0004 per case)"


def test_a_lower_score_can_win_on_cost_under_weights():
    rows = ({"contender": "fake/a", "score": 0.6, "cost": 0.01}, {"contender": "fake/b", "score": 0.5, "cost": 0.001})
    assert reason({"score": 1, "cost": -1}, *rows) == (
        "fake/b ranks first on the weighted score: 75.0 vs 30.0 for fake/a, which scores higher (60.0% vs 50.0%); "
        "fake/b is ahead on cost ($0.001 vs $0.01 per case)"
    )


def test_a_higher_ranked_row_with_errors_is_never_best():
    rows = ({"contender": "fake/a", "score": 0.9, "errors": 2}, {"contender": "fake/b", "score": 0.5})
    assert reason({}, *rows) == "fake/a ranks higher but has 2 errors, and a row with errors is never best"


def test_no_reason_without_a_best_row_or_a_runner_up():
    assert reason({}, {"contender": "a"}) is None
    assert reason({}, {"contender": "a", "errors": 1}, {"contender": "b", "errors": 1}) is None
    assert reason({}, {"contender": "a"}, {"contender": "b", "scored": 0, "errors": 1, "score": NAN}) is None


def test_a_win_under_a_negative_score_weight_is_put_down_to_that_weight():
    rows = ({"contender": "fake/oracle", "score": 0.95}, {"contender": "fake/sloppy", "score": 0.856})
    assert reason({"score": -1}, *rows) == (
        "fake/sloppy ranks first on the weighted score: 14.4 vs 5.0 for fake/oracle, which scores higher "
        "(95.0% vs 85.6%); fake/sloppy is ahead on a lower score (85.6% vs 95.0%), which the weight score=-1 rewards"
    )


# --- rows a weighted value is missing from --------------------------------------------------------


def unpriced():
    return rank(
        table({"contender": "fake/oracle", "cost": 0.001}, {"contender": "openai/llama", "score": 0.8, "cost": NAN}),
        {"score": 1, "cost": -0.2},
        METRICS,
    )


def test_a_row_without_a_price_is_named_with_how_to_give_one():
    text = format_leaderboard(unpriced(), MetricSet.of(METRICS), weights={"score": 1, "cost": -0.2})
    assert (
        "no wscore for openai/llama: cost is weighted and unknown (no price); give its model one under `prices:` "
        "in evalcore.yaml (input_cost_per_token, output_cost_per_token), or weight cost 0. Rows without a wscore "
        "rank after the others, by score"
    ) in text


def test_the_wscore_column_stays_when_no_row_has_one():
    ranked = rank(table({"contender": "openai/llama", "cost": NAN}), {"score": 1, "cost": -0.2}, METRICS)
    text = format_leaderboard(ranked, MetricSet.of(METRICS), weights={"score": 1, "cost": -0.2})
    assert "wscore" in text.splitlines()[0].split()
    assert "no wscore for openai/llama: cost is weighted and unknown (no price)" in text


# --- names cut to a width -------------------------------------------------------------------------


def test_names_that_differ_at_the_end_keep_their_ends():
    a = "promptfoo:openai:gpt-4o-mini · prompt=Answer the question in one short sentence, politely"
    b = "promptfoo:openai:gpt-4o-mini · prompt=Answer the question in one short sentence, tersely"
    cut = cut_names([a, b], 40)
    assert cut[a] != cut[b] and all(len(v) <= 40 for v in cut.values())
    assert cut[a].startswith("promptfoo:") and cut[a].endswith("politely")


def test_a_merged_contender_keeps_its_model_and_what_sets_it_apart():
    plain = "openai/gpt-4o-mini · effort=low · t=0.2"
    merged = "openai/gpt-4o-mini · effort=low · t=0.2 · evalcore 0.1.0 16e4623f-63f"
    cut = cut_names([plain, merged], 40)
    assert cut[plain] == plain
    assert cut[merged].startswith("openai/gpt") and cut[merged].endswith("16e4623f-63f") and len(cut[merged]) <= 40


def test_names_that_differ_early_are_cut_at_the_end():
    a, b = "fake/oracle · " + "x" * 50, "fake/guesser · " + "x" * 50
    cut = cut_names([a, b], 20)
    assert cut == {a: a[:19] + "…", b: b[:19] + "…"}


def test_a_name_alone_is_cut_in_the_middle():
    name = "openai/gpt-4o-mini · effort=low · t=0.2 · prompt=terse"
    (short,) = cut_names([name], 21).values()
    assert short == name[:10] + "…" + name[-10:]


def test_a_win_despite_a_higher_score_under_a_negative_score_weight_never_says_scores_higher():
    rows = (
        {"contender": "fake/sloppy", "score": 0.8, "cost": 0.0001},
        {"contender": "fake/guesser", "score": 0.7, "cost": 0.01},
    )
    assert reason({"score": -1, "cost": -1}, *rows) == (
        "fake/sloppy ranks first on the weighted score: 60.0 vs 15.0 for fake/guesser, ahead on cost "
        "($0.0001 vs $0.01 per case)"
    )
