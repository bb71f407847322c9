"""The runner's per-result shortcuts: timestamps, resumed work and the writer's wake-up read as before."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.execution import plan as plan_module


def _formatted(clock: float) -> str:
    """now() as it was: the date and time, then the milliseconds."""
    second = int(clock)
    stamp = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}.{int((clock - second) * 1000):03d}Z"


@settings(max_examples=300, deadline=None)
@given(clock=st.floats(min_value=0, max_value=4e9, allow_nan=False))
def test_now_formats_every_instant_as_before(clock: float) -> None:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(plan_module.time, "time", lambda: clock)
        assert plan_module.now() == _formatted(clock)


def test_now_has_a_suffix_for_every_millisecond() -> None:
    assert plan_module._MILLIS[0] == ".000Z" and plan_module._MILLIS[999] == ".999Z"
    assert plan_module._MILLIS[1000] == f".{1000:03d}Z"
