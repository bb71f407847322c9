"""Find trackers by name: the built-in ones, those other packages register under the entry-point group
``evalcore.trackers``, or ``module:attribute``; and open a run's trackers (:func:`open_trackers`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evalcore.core.errors import ConfigError
from evalcore.scoring.plugins import build_named, find_plugin, plugin_names
from evalcore.suite.config import NamedRef
from evalcore.trackers._hub import TrackerHub
from evalcore.trackers._tracker import Tracker
from evalcore.trackers.mlflow_runs import MlflowTracker
from evalcore.trackers.otel import OtelTracker
from evalcore.trackers.outbox import OutboxTracker

#: The entry-point group a package registers its trackers under (name = the ``--tracker`` name); evalcore's
#: ``pyproject.toml`` registers the built-in ones there too.
GROUP = "evalcore.trackers"
BUILT_IN: dict[str, type] = {"otel": OtelTracker, "mlflow": MlflowTracker, "outbox": OutboxTracker}


def available_trackers() -> list[str]:
    """Every tracker name a run may use: the built-in ones and the installed packages'."""
    return plugin_names(GROUP, BUILT_IN)


def tracker_refs(suite_refs: Sequence[str | NamedRef], names: Sequence[str]) -> list[NamedRef]:
    """A run's trackers: the suite's ``trackers:`` entries, then each ``--tracker`` name they do not already hold
    (a name in both keeps the suite's options)."""
    refs = [NamedRef(name=r) if isinstance(r, str) else r for r in suite_refs]
    have = {r.name for r in refs}
    return refs + [NamedRef(name=n) for n in dict.fromkeys(names) if n not in have]


def build_trackers(refs: Sequence[NamedRef], suite_dir: Path) -> list[Tracker]:
    """The trackers ``refs`` name, built with their options.

    Raises:
        ConfigError: an unknown tracker (the known ones listed), bad options, or one that is not a tracker.
    """
    if not refs:
        return []
    trackers = []
    for ref in refs:
        # module:attribute is imported from the suite's folder by build_named; a plain name is a plugin's.
        registry = {} if ":" in ref.name else {ref.name: find_plugin(ref.name, GROUP, BUILT_IN, "tracker")}
        tracker = build_named(ref, suite_dir, registry, "tracker")
        missing = [m for m in ("run_started", "result_stored", "run_ended", "unsent") if not hasattr(tracker, m)]
        if missing:
            raise ConfigError(
                f"tracker {ref.name}: has no {', '.join(missing)} (see evalcore.trackers.Tracker: subclass it)"
            )
        trackers.append(tracker)
    return trackers


def open_trackers(refs: Sequence[NamedRef], suite_dir: Path) -> TrackerHub | None:
    """A hub of the trackers ``refs`` name; None when there are none (a run without trackers pays nothing)."""
    trackers = build_trackers(refs, suite_dir)
    return TrackerHub(trackers) if trackers else None
