"""An adaptive run's settings (``evalcore run --adaptive``): what the plan carries and the run records of its race.

The plan holds a :class:`RaceSettings` (the suite's ``run.adaptive`` with the command line's flags over it,
:func:`race_settings`); a run records it when it starts (:func:`race_record`) and a resumed run reads it back
(:func:`recorded_race`). The race itself is :mod:`evalcore.execution.adaptive`.

:mod:`evalcore.analysis.stats.racing` (the race's statistics) computes with numpy, which a plain run never needs: it is
imported only where a race's record is written or read.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evalcore.core.errors import ConfigError

if TYPE_CHECKING:
    from evalcore.core.records import Contender
    from evalcore.suite.config import AdaptiveModel


@dataclass(frozen=True)
class RaceSettings:
    """How an adaptive run races its contenders."""

    #: The chance that the best contender is never stopped, however often the race looks.
    confidence: float = 0.95
    #: Points (0-100): the race ends when no contender still in can be ahead of the leader by this much; 0: never.
    margin: float = 0.0
    #: The seed of the order the cases are called in.
    seed: int = 0
    #: Cases per round; None: :func:`default_round` of the number of cases.
    round: int | None = None

    def round_size(self, cases: int) -> int:
        """Cases per round for a run of ``cases`` cases."""
        return self.round or default_round(cases)


def default_round(cases: int) -> int:
    """A round of about one case in 25, from 10 to 50: small enough to stop early, big enough to keep every
    contender's calls in flight."""
    return max(10, min(50, cases // 25))


def race_settings(
    suite: AdaptiveModel | None,
    adaptive: bool | None = None,
    confidence: float | None = None,
    margin: float | None = None,
    seed: int | None = None,
    round_cases: int | None = None,
) -> RaceSettings | None:
    """The race a run has: the suite's ``run.adaptive``, with the command line's flags over it; None when the run
    is not adaptive (``adaptive`` False, or neither the flag nor the suite asks for it).

    Raises:
        ConfigError: a confidence, margin or round out of range.
    """
    if adaptive is False or (adaptive is None and suite is None):
        return None
    given = RaceSettings() if suite is None else RaceSettings(suite.confidence, suite.margin, 0, suite.round)
    chosen = RaceSettings(
        confidence=given.confidence if confidence is None else confidence,
        margin=given.margin if margin is None else margin,
        seed=_seed(seed, suite.seed if suite is not None else None),
        round=given.round if round_cases is None else round_cases,
    )
    if not 0.5 <= chosen.confidence < 1:
        raise ConfigError(f"--confidence {chosen.confidence:g}: give a chance from 0.5 to below 1, e.g. 0.95")
    if not 0 <= chosen.margin <= 100:
        raise ConfigError(f"--margin {chosen.margin:g}: give points of score from 0 to 100, e.g. 2")
    if chosen.round is not None and chosen.round < 1:
        raise ConfigError(f"--round {chosen.round}: give a number of cases per round of at least 1")
    return chosen


def _seed(flag: int | None, suite: int | None) -> int:
    if flag is not None:
        return flag
    return suite if suite is not None else secrets.randbelow(2**31)


def race_record(settings: RaceSettings, cases: int) -> dict[str, Any]:
    """What a run records of its race in its settings when it starts: no stop yet."""
    from evalcore.analysis.stats.racing import METHOD, SETTING

    return {
        SETTING: {
            "confidence": settings.confidence,
            "margin": settings.margin,
            "seed": settings.seed,
            "round": settings.round_size(cases),
            "method": METHOD,
            "stops": [],
            "ended": None,
        }
    }


def recorded_race(run_settings: Mapping[str, Any]) -> RaceSettings | None:
    """The race a stored run records (:func:`race_record`), to resume it with; None for a run that is not adaptive."""
    from evalcore.analysis.stats.racing import SETTING

    found = run_settings.get(SETTING)
    if not isinstance(found, dict):
        return None
    return RaceSettings(float(found["confidence"]), float(found["margin"]), int(found["seed"]), int(found["round"]))


def check_race(settings: RaceSettings | None, contenders: Sequence[Contender]) -> None:
    """Refuse a race with fewer than two contenders: there is nobody to stop."""
    if settings is not None and len(contenders) < 2:
        raise ConfigError("--adaptive races contenders against each other: the lineup needs at least two")
