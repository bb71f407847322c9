"""The one clock evalcore stamps runs and results with."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def utc_now() -> str:
    """The current time, RFC 3339 UTC with milliseconds (``2026-11-29T18:04:05.123Z``)."""
    global _last_second
    clock = time.time()
    second = int(clock)
    # Every result is stamped: format the date and time once per second, the milliseconds each time.
    cached = _last_second  # one read: another thread may replace it meanwhile, never half of it
    if cached[0] != second:
        cached = _last_second = (second, datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S"))
    return cached[1] + _MILLIS[int((clock - second) * 1000)]


_last_second: tuple[int, str] = (-1, "")
#: ``f".{ms:03d}Z"`` for every millisecond (and 1000, should rounding ever reach it).
_MILLIS = tuple(f".{ms:03d}Z" for ms in range(1001))
