import math

import numpy as np
import pytest

from evalcore.analysis.scores.formats import DASH, format_value, is_missing


@pytest.mark.parametrize("value", [None, math.nan, np.float64("nan"), np.float32("nan")])
def test_none_and_every_kind_of_nan_are_missing(value: object) -> None:
    assert is_missing(value)


@pytest.mark.parametrize("value", [0, 0.5, np.float32(0.5), np.int64(3), "nan"])
def test_numbers_and_text_are_not_missing(value: object) -> None:
    assert not is_missing(value)


def test_a_numpy_nan_reads_as_a_dash_in_any_column() -> None:
    assert format_value("score", np.float32("nan")) == DASH
    assert format_value("cost", np.float64("nan"), delta=True) == DASH
