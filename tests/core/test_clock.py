"""The one clock runs and results are stamped with: RFC 3339 UTC with milliseconds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.core import clock


def _formatted(instant: float) -> str:
    """The date and time of the whole second, then the milliseconds, cut (not rounded)."""
    second = int(instant)
    stamp = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}.{int((instant - second) * 1000):03d}Z"


@settings(max_examples=300, deadline=None)
@given(instant=st.floats(min_value=0, max_value=4e9, allow_nan=False))
def test_utc_now_formats_every_instant(instant: float) -> None:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(clock.time, "time", lambda: instant)
        assert clock.utc_now() == _formatted(instant)


def test_utc_now_follows_the_clock_into_the_next_second_and_back(monkeypatch: pytest.MonkeyPatch) -> None:
    stamps = []
    for instant in (100.5, 100.875, 101.25, 100.75):  # the last: the system clock set back
        monkeypatch.setattr(clock.time, "time", lambda instant=instant: instant)
        stamps.append(clock.utc_now())
    assert stamps == [
        "1970-01-01T00:01:40.500Z",
        "1970-01-01T00:01:40.875Z",
        "1970-01-01T00:01:41.250Z",
        "1970-01-01T00:01:40.750Z",
    ]


@settings(max_examples=300, deadline=None)
@given(instants=st.lists(st.floats(min_value=0, max_value=4e9, allow_nan=False), min_size=2, max_size=20))
def test_stamps_sort_as_text_in_time_order_and_read_back_as_the_utc_millisecond(instants: list[float]) -> None:
    instants.sort()
    stamps = []
    with pytest.MonkeyPatch.context() as m:
        for instant in instants:
            m.setattr(clock.time, "time", lambda instant=instant: instant)
            stamps.append(clock.utc_now())
    assert stamps == sorted(stamps)
    for instant, stamp in zip(instants, stamps, strict=True):
        parsed = datetime.fromisoformat(stamp)
        assert parsed.utcoffset() == timedelta(0)
        assert -1e-6 <= instant - parsed.timestamp() < 0.001 + 1e-6  # the millisecond it falls in
