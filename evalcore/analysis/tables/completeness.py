"""Whether a run holds every result it should, and why a run that did not finish stopped.

A run has one result per contender × case × sample (the run file's rule). A file cut short, an import of an
eval that stopped, or an interrupted run holds fewer: the leaderboard would rank the contenders it has and
say nothing of the rest. :func:`run_completeness` (a run in hand) and :func:`stored_completeness` (a stored
run, read without its results) count what is missing, and :func:`run_notes` says it, with the run's status
when it did not complete, in the words the CLI, the Upload page and the leaderboard all show.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evalcore.analysis.stats.racing import SETTING, race_stops
from evalcore.core.records import Run
from evalcore.storage.history import StoredRun

if TYPE_CHECKING:
    from evalcore.storage.store import Store

#: Contenders without a result named one by one; the rest are counted.
NAMED = 10
#: The settings of a run each of whose cases belongs to one contender, so that it holds one result per case ×
#: sample, not per contender × case × sample: an import of traced calls (each made by one model,
#: :mod:`evalcore.runfile.importers.otlp`) and the run that scores them (``evalcore import --suite``,
#: :data:`evalcore.execution.plan.TRACES_SETTING`).
OWNED_CASES = ("traces", "scores_traces_of")


@dataclass(frozen=True)
class Completeness:
    """What a run should hold and what it holds."""

    #: Contenders the run names, cases it names, and samples per case (contenders × cases × samples expected).
    contenders: int
    cases: int
    samples: int
    #: Results the run holds.
    held: int
    #: The contenders with no result at all, in the run's order.
    without: tuple[str, ...]
    #: An adaptive run's: the results its race chose not to make (stopped contenders, an early end); they are
    #: not missing.
    unraced: int = 0
    #: The contenders with some results but fewer than they should hold, in the run's order.
    short: tuple[str, ...] = ()
    #: Each case belongs to one contender (:data:`OWNED_CASES`): one result per case × sample is a whole run.
    owned: bool = False

    @property
    def expected(self) -> int:
        """Results a whole run holds: one per contender × case × sample (case × sample when each case is one
        contender's), less those a race chose not to make."""
        return (1 if self.owned else self.contenders) * self.cases * self.samples - self.unraced

    @property
    def missing(self) -> int:
        """Results the run lacks (0 for a whole run)."""
        return max(0, self.expected - self.held)


def completeness(
    contenders: Sequence[str],
    cases: int,
    samples: int,
    counts: Mapping[str, int],
    settings: Mapping[str, Any] | None = None,
) -> Completeness:
    """Count what a run lacks.

    Args:
        contenders: the run's contender ids, in its order.
        cases: how many cases the run names.
        samples: samples per case the run was asked for (at least 1).
        counts: results held per contender id.
        settings: the run's settings: an adaptive run's race (``adaptive``) says which results it chose not
            to make.
    """
    samples = max(1, samples)
    if any(key in (settings or {}) for key in OWNED_CASES):  # no contender was meant to answer every case
        held = sum(counts.get(c, 0) for c in contenders)
        return Completeness(len(contenders), cases, samples, held, (), owned=True)
    without = tuple(c for c in contenders if not counts.get(c))
    held = sum(counts.get(c, 0) for c in contenders)
    raced = raced_cases(settings or {}, contenders, cases)
    unraced = sum(cases - n for n in raced.values()) * samples
    short = tuple(c for c in contenders if 0 < counts.get(c, 0) < raced.get(c, cases) * samples)
    return Completeness(len(contenders), cases, samples, held, without, unraced, short)


def raced_cases(settings: Mapping[str, Any], contenders: Sequence[str], cases: int) -> dict[str, int]:
    """The cases an adaptive run's race called each contender on: a stopped one's until its stop, the others'
    until the race ended (every case while it has not); empty for a run that is not a race."""
    race = settings.get(SETTING)
    if not isinstance(race, Mapping):
        return {}
    stopped = {contender: stop.get("after_cases") for contender, stop in race_stops(settings).items()}
    ended = race.get("ended_after_cases") if race.get("ended") else None
    called: dict[str, int] = {}
    for contender in contenders:
        upto = stopped.get(contender, ended)
        called[contender] = min(cases, upto) if isinstance(upto, int) and upto >= 0 else cases
    return called


def run_completeness(run: Run) -> Completeness:
    """:func:`completeness` of a run with its cases and results in hand (a run file, an import, an upload)."""
    counts = Counter(r.contender for r in run.results)
    seen = max((r.sample for r in run.results), default=0) + 1
    settings = run.info.settings
    return completeness([c.id for c in run.contenders], len(run.cases), samples_of(settings, seen), counts, settings)


def stored_completeness(store: Store, run: Run) -> Completeness:
    """:func:`completeness` of a stored run, counted in the store (no result is read).

    Args:
        store: the store.
        run: the run's header (:meth:`Store.load_run` with ``results=False``).
    """
    from evalcore.storage.history import case_and_sample_counts

    counts = {cid: n for cid, (n, _) in store.result_counts(run.info.id).items()}
    cases, seen = case_and_sample_counts(store, run.info.id)
    settings = run.info.settings
    return completeness([c.id for c in run.contenders], cases, samples_of(settings, seen), counts, settings)


def completeness_of(run: Run | StoredRun) -> Completeness:
    """:func:`run_completeness` of a run in hand, :func:`stored_completeness` of a stored one."""
    return stored_completeness(run.store, run.header) if isinstance(run, StoredRun) else run_completeness(run)


def failed_calls(run: Run | StoredRun) -> list[tuple[str, str, str]]:
    """``(contender, error kind, message)`` of every result whose call failed, in the run's order."""
    if isinstance(run, StoredRun):
        return run.store.failed_calls(run.id)
    return [(r.contender, r.error.kind, r.error.message) for r in run.results if r.status == "error" and r.error]


def samples_of(settings: Mapping[str, Any], seen: int) -> int:
    """Samples per case a run was asked for: its settings' ``samples`` (evalcore) or ``epochs`` (Inspect), and
    never fewer than the ``seen`` samples its results number."""
    asked = next((v for v in (settings.get("samples"), settings.get("epochs")) if isinstance(v, int)), 1)
    return max(asked, seen, 1)


def missing_note(found: Completeness) -> str | None:
    """``276 of 576 results are missing (12 contenders × 48 cases × 1 sample); 5 contenders have none: a, b, …``;
    None for a whole run."""
    if not found.missing:
        return None
    shape = (
        f"{_counted(found.cases, 'case')}, each of one contender, × {_counted(found.samples, 'sample')}"
        if found.owned
        else f"{_counted(found.contenders, 'contender')} × {_counted(found.cases, 'case')} × "
        f"{_counted(found.samples, 'sample')}"
    )
    if found.unraced:
        shape += f", less {found.unraced:,} the race chose not to make"
    note = f"{found.missing:,} of {found.expected:,} results are missing ({shape})"
    if found.owned:
        return note
    if not found.without:
        if len(found.short) in (0, found.contenders):
            return note + "; every contender lacks some: their rows are ranked on fewer cases"
        one = len(found.short) == 1
        named = ", ".join(found.short[:NAMED]) + (
            f" and {len(found.short) - NAMED} more" if len(found.short) > NAMED else ""
        )
        rows = "its row is" if one else "their rows are"
        return f"{note}; {named} {'lacks' if one else 'lack'} some: {rows} ranked on fewer cases"
    named = ", ".join(found.without[:NAMED]) + (
        f" and {len(found.without) - NAMED} more" if len(found.without) > NAMED else ""
    )
    have = "has" if len(found.without) == 1 else "have"
    return f"{note}; {_counted(len(found.without), 'contender')} {have} none, so the leaderboard leaves out: {named}"


def status_note(run: Run) -> str | None:
    """Why a run did not complete, from its status and settings: ``the run failed (Inspect's log status:
    error): RuntimeError('upstream timed out')``; None for a completed or running run."""
    status = run.info.status
    if status in ("completed", "running"):
        return None
    settings = run.info.settings
    imported = settings.get("import")
    told_status = imported.get("status") if isinstance(imported, dict) else None
    source = run.info.provenance.get("source")
    tool = source.get("tool") if isinstance(source, dict) else None
    told = f" ({_tool_name(str(tool))} status: {told_status})" if told_status and tool else ""
    why = settings.get("error") or settings.get("stop_reason")
    return f"the run {'failed' if status == 'failed' else 'was interrupted'}{told}" + (f": {why}" if why else "")


def run_notes(run: Run, found: Completeness) -> list[str]:
    """What a reader of the run's leaderboard must know first: why it did not complete, and what it lacks (a
    running run lacks results by nature: nothing is said of them)."""
    notes = [status_note(run)]
    if run.info.status != "running":
        notes.append("the run holds no result: there is nothing to rank" if not found.held else missing_note(found))
    return [n for n in notes if n]


def _tool_name(tool: str) -> str:
    return {"inspect_ai": "Inspect's log", "promptfoo": "promptfoo's"}.get(tool, f"{tool}'s")


def _counted(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")
