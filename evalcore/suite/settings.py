"""The ranges of the settings whose meaning every provider shares: a value outside them is refused before
anything is planned or called, wherever it was given (the suite file or a command-line flag)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SettingRange:
    """What a setting's values must be, in words and as a check."""

    #: How a user reads the range: ``a number from 0 to 2``.
    words: str
    accepts: Callable[[Any], bool]


def _number(lo: float, hi: float) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, int | float) and not isinstance(v, bool) and lo <= v <= hi


def _whole(lo: int) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= lo


#: Settings with a range; a setting not named here is passed on unchecked (its provider may still refuse it).
SETTING_RANGES: dict[str, SettingRange] = {
    "temperature": SettingRange("a number from 0 to 2", _number(0, 2)),
    "top_p": SettingRange("a number from 0 to 1", _number(0, 1)),
    "max_tokens": SettingRange("a whole number of at least 1", _whole(1)),
    "max_completion_tokens": SettingRange("a whole number of at least 1", _whole(1)),
    "samples": SettingRange("a whole number of at least 1", _whole(1)),
}


def setting_problem(key: str, value: Any) -> str | None:
    """What is wrong with one value of a setting (``'hot' is not a number from 0 to 2``), or None when it is
    in range or the setting has no range here. ``None`` itself is fine: it means "not sent"."""
    limits = SETTING_RANGES.get(key)
    if limits is None or value is None or limits.accepts(value):
        return None
    return f"{value!r} is not {limits.words}"


def settings_problem(settings: dict[str, Any]) -> tuple[str, str] | None:
    """The first (setting, problem) among settings whose values may be lists, or None when all are in range."""
    for key, values in settings.items():
        for value in values if isinstance(values, list) else [values]:
            problem = setting_problem(key, value)
            if problem:
                return key, problem
    return None
