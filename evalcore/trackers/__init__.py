"""Trackers: where a run is sent as it happens, besides the store (``docs/trackers.md``).

A tracker (:class:`Tracker`) is told a run started, each result stored and the run ended, on a thread of its
own fed by a bounded queue (:class:`TrackerHub`): it never slows or fails a run, and what it could not send is
reported in one line at the end. Built in: ``otel`` (OpenTelemetry over OTLP), ``mlflow`` (MLflow's REST API)
and ``outbox`` (JSON Lines for a column store); other packages add theirs under the entry-point group
``evalcore.trackers`` (:data:`GROUP`).
"""

from evalcore.trackers._hub import TrackerHub
from evalcore.trackers._tracker import RunEnded, RunStarted, Tracker, Unsent
from evalcore.trackers.registry import GROUP, available_trackers, build_trackers, open_trackers, tracker_refs
from evalcore.trackers.stored import ended_run, send_stored_run

__all__ = [
    "GROUP",
    "RunEnded",
    "RunStarted",
    "Tracker",
    "TrackerHub",
    "Unsent",
    "available_trackers",
    "build_trackers",
    "ended_run",
    "open_trackers",
    "send_stored_run",
    "tracker_refs",
]
