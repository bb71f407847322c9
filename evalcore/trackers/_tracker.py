"""The tracker interface: what a tracker is told about a run, and how it says what it could not send."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from evalcore.core.records import Contender, Metric, Result, RunInfo

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class RunStarted:
    """A run that starts (or resumes): its header, before any result."""

    #: The run's id, suite, creation time, weights and settings.
    info: RunInfo
    #: Every contender of the run, with its settings.
    contenders: list[Contender]
    #: The suite's metrics (what a result's ``metrics`` hold).
    metrics: list[Metric]
    #: The messages a contender was sent for a case: ``prompt(contender_id, dataset, case_id)`` (for trackers
    #: that record prompts when asked to); None when the run cannot say.
    prompt: Callable[[str, str, str], list[dict[str, Any]]] | None = field(default=None, repr=False)


@dataclass
class RunEnded:
    """A run that ended: its final header, and ways to read what was stored.

    :meth:`leaderboard` and :meth:`write_run_file` read the store (on the tracker's own thread, never the
    runner's), so a tracker that does not call them costs nothing.
    """

    #: The run's header as stored at its end (``status``, ``finished_at`` …).
    info: RunInfo
    contenders: list[Contender]
    metrics: list[Metric]
    #: The ranked leaderboard of the whole run (the table of ``evalcore leaderboard``, with intervals).
    leaderboard: Callable[[], pd.DataFrame] = field(repr=False)
    #: Write the run file (as ``evalcore export``) to a path; returns how many results it holds.
    write_run_file: Callable[[str | os.PathLike[str]], int] = field(repr=False)


@dataclass
class Unsent:
    """A tally of what a tracker could not send, and the last reason why."""

    #: What is counted, plural: ``spans``, ``results``, ``runs``.
    noun: str
    count: int = 0
    reason: str = ""

    def add(self, count: int, reason: str) -> None:
        """Count ``count`` more things not sent, for ``reason`` (the latest reason is the one reported)."""
        self.count += count
        self.reason = reason or self.reason

    def line(self) -> str | None:
        """``12 spans not sent: connection refused``; None when everything was sent."""
        if not self.count:
            return None
        noun = self.noun[:-1] if self.count == 1 and self.noun.endswith("s") else self.noun
        return f"{self.count} {noun} not sent: {self.reason or 'unknown reason'}"


class Tracker:
    """Somewhere a run is sent as it happens: an OpenTelemetry backend, MLflow, a folder of JSON Lines.

    The runner never calls a tracker itself: each tracker has a thread of its own that is handed the run's
    events through a bounded queue (:class:`~evalcore.trackers.TrackerHub`), so a slow, failing or hanging
    backend neither slows nor fails the run. Every method is called on that thread, in order:
    :meth:`run_started` once, :meth:`result_stored` per result, :meth:`run_ended` once.

    A method that raises loses that event (the hub counts it as not sent, with the exception as the reason);
    a tracker that retries or batches on its own counts what it finally could not send in :meth:`unsent`.
    Third-party trackers are classes registered under the entry-point group ``evalcore.trackers``; the
    options of a suite's ``trackers:`` entry are their constructor's keyword arguments.
    """

    #: The name users give (``--tracker NAME``); reports start with it.
    name: ClassVar[str] = "tracker"

    def run_started(self, run: RunStarted) -> None:
        """The run starts (a resumed run starts again: only the results it makes now follow)."""

    def result_stored(self, result: Result) -> None:
        """A result was handed to the store (every finished call, errors included)."""

    def run_ended(self, run: RunEnded) -> None:
        """The run ended: flush what is buffered, send what needs the whole run, let go of connections."""

    def unsent(self) -> str | None:
        """What could not be sent, in a few words (``12 spans not sent: connection refused``); None: all sent."""
        return None
