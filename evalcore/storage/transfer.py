"""Moving a history between stores: every run, exactly, from one store to another (SQLite to PostgreSQL and back).

A run is copied whole (its header, contenders, cases, results, pairwise verdicts and ratings) in one
transaction of the target, as ``evalcore import`` stores a run file, so what the target exports is what the
source exports. Runs go oldest first, so runs started in the same second keep their order. A run the
target already holds is left as it is (copying again after a failure picks up where it stopped) unless
``replace`` is given. A suite's baseline pin comes along when its run does and the target has no pin of
that suite. Summaries are not copied: the target computes them again when a page first needs them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from evalcore.core import records
from evalcore.core.errors import StoreError
from evalcore.storage import baselines

if TYPE_CHECKING:
    from evalcore.storage.store import Store


@dataclass
class CopyReport:
    """What :func:`copy_runs` did."""

    #: The runs copied, oldest first.
    copied: list[str] = field(default_factory=list)
    #: How many results those runs hold.
    results: int = 0
    #: Runs the target already held, left as they were.
    skipped: list[str] = field(default_factory=list)
    #: Suites whose baseline pin came along.
    pins: list[str] = field(default_factory=list)


def copy_runs(
    source: Store,
    target: Store,
    run_ids: Sequence[str] | None = None,
    *,
    replace: bool = False,
    progress: Callable[[str, int], None] | None = None,
) -> CopyReport:
    """Copy runs of ``source`` into ``target``, each in one transaction.

    Args:
        source: the store read.
        target: the store written.
        run_ids: the runs to copy (whole ids); None for every run.
        replace: overwrite a run the target holds under the same id (else it is skipped).
        progress: called with each run's id and its count of results once it is copied.

    Raises:
        StoreError: a run is unknown to ``source``, or ``target`` cannot store one (those copied before stay).
    """
    listed = [entry["id"] for entry in reversed(source.list_runs())]  # oldest first
    wanted = listed if run_ids is None else [source.resolve_run_id(ref) for ref in run_ids]
    held = {entry["id"] for entry in target.list_runs()}
    report = CopyReport()
    for run_id in wanted:
        if run_id in held and not replace:
            report.skipped.append(run_id)
            continue
        run = source.load_run(run_id)
        target.import_run(run, replace=replace)
        report.copied.append(run_id)
        report.results += len(run.results)
        if progress is not None:
            progress(run_id, len(run.results))
    copied = set(report.copied)
    pinned = {pin["suite"] for pin in baselines.baselines(target)}
    for pin in baselines.baselines(source):
        if pin["run_id"] in copied and pin["suite"] not in pinned:
            baselines.pin_baseline(target, pin["suite"], pin["run_id"], pin["contender"], pin["pinned_at"])
            report.pins.append(pin["suite"])
    return report


def holds_run(store: Store, run: records.Run) -> bool:
    """Whether ``store`` holds this very run: its id, with the same header, contenders, cases, results,
    refusals, verdicts and ratings (importing it again would change nothing). When an importer stamped the
    run with the time it read the file (``provenance.source.imported_at``), that time is no difference."""
    try:
        stored = store.load_run(run.info.id)
    except StoreError:  # no run of that id
        return False
    contenders = {c.id: i for i, c in enumerate(run.contenders)}
    cases = {c.key: i for i, c in enumerate(run.cases)}
    try:  # the store keeps results in the run's contender, case and sample order
        ordered = sorted(run.results, key=lambda r: (contenders[r.contender], cases[(r.dataset, r.case)], r.sample))
    except KeyError:  # a result of an unknown contender or case: no stored run is like it
        return False
    return _unstamped(stored) == _unstamped(dataclasses.replace(run, results=ordered))


def _unstamped(run: records.Run) -> records.Run:
    """``run`` without the time an importer read its file: two reads of one file are the same run."""
    source = run.info.provenance.get("source")
    if not isinstance(source, dict) or "imported_at" not in source:
        return run
    provenance = {**run.info.provenance, "source": {k: v for k, v in source.items() if k != "imported_at"}}
    return dataclasses.replace(run, info=dataclasses.replace(run.info, provenance=provenance))
