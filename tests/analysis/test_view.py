"""The leaderboard the explorer shows: tables, weights, sliders and the headline, computed without a browser."""

from __future__ import annotations

import pytest

from evalcore.analysis.tables.banner import banner_html, banner_text
from evalcore.analysis.tables.view import (
    Filters,
    escape_markdown,
    filter_options,
    format_settings,
    headline,
    leaderboard_view,
    live_shares,
    money_format,
    slider_values,
    slider_weights,
    weight_hint,
    weight_names,
)
from evalcore.core.errors import WeightsError
from evalcore.core.metric_set import MetricSet
from evalcore.storage.frames import results_frame
from tests.factories import make_run


@pytest.fixture(scope="module")
def run():
    return make_run(n_contenders=4, n_cases=9)


@pytest.fixture(scope="module")
def frame(run):
    return results_frame(run)


def view(run, frame, weights=None, filters=None, **kwargs):
    weights = run.info.weights if weights is None else weights
    return leaderboard_view(frame, MetricSet.of(run.metrics), weights, filters, run.contenders, B=200, **kwargs)


def test_overall_table_has_one_ranked_row_per_contender_with_scores_in_percent(run, frame):
    v = view(run, frame)
    assert list(v.overall["rank"]) == [1, 2, 3, 4]
    assert sorted(v.overall["contender"]) == sorted(c.id for c in run.contenders)
    assert list(v.overall["score"]) == pytest.approx(list(100 * v.ranked["score"]))


def test_best_and_best_value_are_marked_and_named(run, frame):
    v = view(run, frame)
    marks = dict(zip(v.overall["contender"], v.overall["mark"], strict=True))
    assert "★ best" in marks[v.winner]
    assert "$ value" in marks[v.best_value]


def test_a_table_per_dataset_ranks_every_contender_in_it(run, frame):
    v = view(run, frame)
    assert sorted(v.per_dataset) == ["immigration_law", "roofing", "tax_preparation"]
    assert all(len(t) == 4 and list(t["rank"]) == [1, 2, 3, 4] for t in v.per_dataset.values())


def test_weights_re_rank_the_table(run, frame):
    cheapest = view(run, frame, weights={"cost": -1}).overall.iloc[0]["contender"]
    assert cheapest == frame.groupby("contender", observed=True)["cost_usd"].mean().idxmin()
    best_score = view(run, frame, weights={"score": 1}).overall.iloc[0]["contender"]
    assert (
        best_score
        == view(run, frame, weights={"score": 1}).ranked.sort_values("score", ascending=False).iloc[0]["contender"]
    )


def test_filters_keep_only_the_chosen_contenders_and_datasets(run, frame):
    chosen = [run.contenders[0].id, run.contenders[2].id]
    v = view(run, frame, filters=Filters(contenders=chosen, datasets=["roofing"]))
    assert sorted(v.overall["contender"]) == sorted(chosen)
    assert list(v.per_dataset) == ["roofing"]
    assert set(v.overall["cases"]) == {3}


def test_weight_stability_is_a_share_beside_the_winner_and_absent_without_weights(run, frame):
    assert 0 < view(run, frame).stability <= 1
    assert view(run, frame, weights={}).stability is None


def test_a_weight_on_an_unknown_name_is_refused_with_the_allowed_names(run, frame):
    with pytest.raises(WeightsError, match="allowed names"):
        view(run, frame, weights={"tokens": 1})


def test_every_display_column_is_described_and_in_the_table(run, frame):
    v = view(run, frame)
    assert [c.name for c in v.columns] == list(v.overall.columns)
    assert all(c.help for c in v.columns)
    assert next(c for c in v.columns if c.name == "cost").format.startswith("$%.")


def test_without_intervals_there_are_no_interval_columns(run, frame):
    v = view(run, frame, ci=False)
    assert "score 95% CI" not in v.overall.columns and "P(best)" not in v.overall.columns
    assert [c.name for c in v.columns] == list(v.overall.columns)


def test_intervals_are_written_as_low_to_high_text(run, frame):
    text = view(run, frame).overall["score 95% CI"].iloc[0]
    low, high = (float(x) for x in text.split("–"))
    assert low <= high


def test_settings_column_shows_every_setting_sent(run, frame):
    assert view(run, frame).overall["settings"].iloc[0] == "max_tokens=256 · t=0.0"


def test_glossary_explains_metrics_and_weights(run, frame):
    lines = view(run, frame).glossary
    assert any(line.startswith("hallucinated_rate:") and "lower is better" in line for line in lines)
    assert any(line.startswith("weights:") for line in lines)


@pytest.mark.parametrize(
    ("values", "fmt"),
    [
        ([0.0004, 0.01], "$%.5f"),
        ([0.000012], "$%.6f"),
        ([1.5, 20.0], "$%.2f"),
        ([], "$%.2f"),
        ([0.0, float("nan"), 0.03], "$%.3f"),
    ],
)
def test_money_format_keeps_two_significant_digits_of_the_smallest_cost(values, fmt):
    assert money_format(values) == fmt
    smallest = min((v for v in values if v > 0), default=None)
    if smallest is not None:
        assert float((fmt % smallest).lstrip("$")) == pytest.approx(smallest, rel=0.1)


def test_format_settings_uses_short_names_in_a_stable_order():
    assert format_settings({"temperature": 0.7, "reasoning_effort": "high"}) == "effort=high · t=0.7"


def test_weight_names_cover_score_each_metric_errors_cost_and_time(run):
    names = weight_names(MetricSet.of(run.metrics))
    assert names[0] == "score" and names[-3:] == ["errors", "cost", "time"]
    assert "hallucinated_rate" in names


def test_the_primary_metric_and_the_score_share_one_slider_named_score(run):
    primary = next(m.name for m in run.metrics if m.primary)
    names = weight_names(MetricSet.of(run.metrics))
    assert names.count("score") == 1 and primary not in names
    assert primary in weight_hint(
        "score", MetricSet.of(run.metrics), markdown=False
    )  # the slider says which metric it weighs


def test_live_shares_sum_to_one_and_a_zero_weight_has_none():
    shares = live_shares({"score": 0.5, "cost": -0.5, "time": 0.0})
    assert shares == {"score": 0.5, "cost": 0.5, "time": 0.0}


def test_filter_options_list_values_and_useful_metadata_keys(frame):
    options = filter_options(frame)
    assert options["datasets"] == ["immigration_law", "roofing", "tax_preparation"]
    assert options["metadata"] == {"difficulty": ["easy", "hard", "medium"]}  # "words" is a number


def test_slider_positions_are_whole_numbers_that_keep_the_shares():
    assert slider_values({"score": 0.6, "cost": -0.05}) == {"score": 60, "cost": -5}
    assert slider_values({"score": 4, "cost": -2}) == {"score": 100, "cost": -50}
    assert slider_weights({"score": 60, "cost": -5, "time": 0}) == {"score": 0.6, "cost": -0.05}


def test_headline_names_the_winner_how_sure_and_the_best_value_escaped(run, frame):
    v = view(run, frame)
    text = headline(v)
    assert text.startswith("**Winner: fake/") and "weight jitters" in text and "bootstrap" in text
    assert "t\\=0\\.0" in text  # escaped for Markdown
    assert "**Best value:**" in text


def test_headline_without_a_winner_says_why(run, frame):
    failed = frame.copy()
    first = failed.groupby("contender", observed=True).head(1).index  # every contender's first result fails
    failed.loc[first, "status"] = "error"
    failed.loc[first, "score"] = float("nan")
    v = view(run, failed)
    assert v.winner is None and headline(v).startswith("**No winner:**")


def test_one_contender_wins_nothing_on_any_surface(run, frame):
    alone = view(run, frame).winner
    v = view(run, frame, filters=Filters(contenders=[alone]))
    assert len(v.ranked) == 1 and v.banner.alone == alone
    surfaces = {"app": headline(v), "cli": "\n".join(banner_text(v.banner)), "report": banner_html(v.banner)}
    for surface, text in surfaces.items():
        assert "only one contender" in text.lower(), surface
        assert "Winner" not in text and "weight jitters" not in text and "bootstrap" not in text, surface
        assert "Best value" not in text, surface


@pytest.mark.parametrize(
    "text", ["[click](http://evil)", "![x](http://evil/x.png)", "<b>hi</b>", "$x^2$", ":red[alarm]", "**bold**"]
)
def test_escaped_markdown_has_no_live_syntax_left(text):
    escaped = escape_markdown(text)
    assert escaped.replace("\\", "") == text
    assert all(escaped[i - 1] == "\\" for i, ch in enumerate(escaped) if ch in "[]()<>$:*!" and i)


def test_every_weight_name_has_a_hint_with_its_direction(run):
    for name in weight_names(MetricSet.of(run.metrics)):
        hint = weight_hint(name, MetricSet.of(run.metrics))
        assert hint.endswith("negative: lower is better.") and ". Positive" in hint


def test_the_app_table_counts_cases_and_shows_samples_only_when_a_case_was_asked_several_times():
    several = make_run(n_contenders=2, n_cases=4, samples=3)
    shown = leaderboard_view(results_frame(several), MetricSet.of(several.metrics), {"score": 1}, ci=False)
    assert list(shown.overall["cases"]) == [4, 4] and list(shown.overall["samples"]) == [3, 3]
    once = make_run(n_contenders=2, n_cases=4)
    shown = leaderboard_view(results_frame(once), MetricSet.of(once.metrics), {"score": 1}, ci=False)
    assert "samples" not in shown.overall.columns and "samples" not in [c.name for c in shown.columns]


def test_headline_without_a_winner_names_the_model_without_a_price(run, frame):
    unpriced = frame.assign(cost_usd=float("nan"))
    v = leaderboard_view(unpriced, MetricSet.of(run.metrics), {"score": 1, "cost": -0.5}, None, run.contenders, B=50)
    text = headline(v).replace("\\", "")  # as the reader sees the escaped Markdown
    assert text.startswith("**No winner:** no row has a wscore")
    assert "cost is weighted and unknown (no price)" in text and "`prices:`" in text
