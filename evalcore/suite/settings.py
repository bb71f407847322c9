"""What a setting may be, checked before anything is planned or called, wherever it was given (the suite file or
a command-line flag): a value outside the range every provider shares is refused, and so is a setting named for
a secret (an API key, a token, a password), since settings are printed, stored, written to run files and sent
to trackers."""

from __future__ import annotations

import re
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


#: A name (in snake case) that holds a secret: a whole ``api_key``/``token``/``authorization``/``credentials``
#: word, or ``secret``/``password``/``passwd`` anywhere. ``token`` must be the whole word: ``max_tokens`` and
#: ``max_completion_tokens`` count tokens and are ordinary settings.
_SECRET_NAME = re.compile(
    r"(?:^|_)(?:api_?key|token|auth_?token|authorization|credentials?)(?:_|$)|secret|password|passwd"
)

#: Where a secret goes instead; the error says it (docs/suites.md, "Secrets are not settings").
SECRET_PLACE = (
    "holds a secret, and settings are printed, stored and sent to trackers. Put the key in the provider's "
    "environment variable (e.g. OPENAI_API_KEY), or in a file listed under env_files: in evalcore.yaml; a "
    "contender with a key of its own takes a router deployment with api_key: os.environ/VAR (docs/suites.md)"
)


def is_secret_setting(key: str) -> bool:
    """Whether a setting's name says it holds a secret (``api_key``, ``hf_token``, ``apiKey``, ``db_password``)
    rather than an ordinary setting (``max_tokens``)."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).lower().replace("-", "_").replace(".", "_")
    return bool(_SECRET_NAME.search(snake))


def setting_problem(key: str, value: Any) -> str | None:
    """What is wrong with one value of a setting (``'hot' is not a number from 0 to 2``), or None when it is
    in range or the setting has no range here. ``None`` itself is fine: it means "not sent". A setting named for
    a secret is refused whatever its value, and the value is never quoted."""
    if is_secret_setting(key):
        return SECRET_PLACE
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


def secret_settings_problem(settings: dict[str, Any]) -> str | None:
    """``api_key: holds a secret …`` for the first setting named for a secret, or None; for pydantic validators,
    whose error then names where the mapping is (the value is never quoted)."""
    for key in settings:
        if is_secret_setting(key):
            return f"{key}: {SECRET_PLACE}"
    return None
