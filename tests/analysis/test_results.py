"""Which results a leaderboard counts (filters), and the numbers each one brings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.analysis.scores.results import Filters, result_values, select_results
from evalcore.core.errors import EvalcoreError
from tests.analysis.rows import METRICS

NAN = float("nan")


def result(contender, case, *, dataset="d", variant="plain", status="scored", score=1.0, **meta):
    return {
        "contender": contender,
        "dataset": dataset,
        "case": case,
        "variant": variant,
        "status": status,
        "score": score,
        "m_field_accuracy": score,
        **{f"meta_{k}": v for k, v in meta.items()},
    }


def results(*rows):
    return pd.DataFrame(list(rows))


def test_filters_are_set_when_any_list_is_not_empty():
    assert not Filters().any() and Filters(metadata={"difficulty": ["hard"]}).any()


def test_filters_keep_the_named_datasets_variants_and_contenders():
    df = results(
        result("a", "1", dataset="x", variant="plain"),
        result("a", "2", dataset="y"),
        result("b", "1", dataset="x", variant="vague"),
        result("a", "3", dataset="x", variant="vague"),
    )
    kept = select_results(df, Filters(datasets=["x"], variants=["vague"], contenders=["a"]))
    assert list(kept["case"]) == ["3"]


def test_no_filter_keeps_everything():
    df = results(result("a", "1"), result("b", "1"))
    assert select_results(df) is df and select_results(df, Filters()) is df
    assert select_results(df, Filters(contenders=["a", "b"])) is df  # every row kept: no copy
    assert len(select_results(df, Filters(contenders=["a"]))) == 1


def test_metadata_filter_matches_strings_and_numbers_written_as_strings():
    df = results(
        result("a", "1", difficulty="hard", words=3.0),
        result("a", "2", difficulty="easy", words=12.0),
        result("a", "3", difficulty=None, words=NAN),
    )
    assert list(select_results(df, Filters(metadata={"difficulty": ["hard"]}))["case"]) == ["1"]
    assert list(select_results(df, Filters(metadata={"words": ["12", "7"]}))["case"]) == ["2"]


def test_a_lone_string_filter_is_one_value():
    df = results(result("a", "1", dataset="tax"), result("a", "2", dataset="t"))
    kept = select_results(df, Filters(datasets="tax"))  # type: ignore[arg-type]
    assert list(kept["case"]) == ["1"]


def test_unknown_metadata_key_is_an_error_listing_known_keys():
    df = results(result("a", "1", difficulty="hard"))
    with pytest.raises(EvalcoreError, match=r"'level'.*known keys: \['difficulty'\]"):
        select_results(df, Filters(metadata={"level": ["1"]}))


def test_a_value_counts_only_on_a_scored_result_and_usage_always():
    df = results(result("a", "1", score=0.5), result("a", "2", status="error", score=0.9))
    df["cost_usd"] = [0.1, 0.2]
    values = result_values(df, METRICS)
    assert list(values["scored"]) == [1.0, 0.0] and list(values["errors"]) == [0.0, 1.0]
    assert values["score"][0] == 0.5 and np.isnan(values["score"][1]) and np.isnan(values["field_accuracy"][1])
    assert list(values["cost"]) == [0.1, 0.2] and np.isnan(values["time"]).all()
