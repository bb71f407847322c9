"""Progress of a run: the records the runner keeps up to date (:class:`Progress`, one
:class:`ContenderProgress` per contender, readable from any thread), and bars on stderr drawn from them: one
line per contender with done/total, errors, elapsed and ETA, and why it waits or was left unrun."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from evalcore.core.records import Result
from evalcore.models.breaker import BREAKER_PREFIXES
from evalcore.scoring.client import UNJUDGED_PREFIX

BAR_WIDTH = 24


@dataclass
class ContenderProgress:
    """How far one contender has got: ``done`` of ``total`` (the whole run's, a resumed run's included)."""

    total: int
    done: int = 0
    errors: int = 0
    started: float | None = None
    finished: float | None = None
    #: Results stored before this session (a resumed run): ``done`` starts there.
    resumed_from: int = 0
    #: Cases (× samples) not called because the contender's endpoint could not be reached.
    skipped: int = 0
    #: Why they were not called: ``cannot connect to http://127.0.0.1:9/v1: connection refused``.
    blocked: str | None = None
    #: Cases (× samples) not called because the run's budget cap was reached (``--max-cost``).
    over_budget: int = 0
    #: Of ``over_budget``, cases the cap stopped midway (an agent's later step refused), stored unfinished.
    unfinished: int = 0
    #: Of ``done``, calls in flight when their endpoint's breaker opened, stored with its message: called, not
    #: answered, and called again by ``evalcore run --resume`` like the ones ``skipped``.
    cut_off: int = 0
    #: Replies stored but not judged: their judge call would have passed the budget cap, or the judge's endpoint
    #: could not be reached (``evalcore run --resume`` judges them, without asking the contender again).
    unjudged: int = 0
    #: Calls waiting on a rate limit of the suite (``limits:``) right now, and why the latest began to wait:
    #: ``waiting on rpm limit of openai/gpt-4o-mini``; None while none waits.
    waiting_calls: int = 0
    waiting: str | None = None
    #: An adaptive run stopped calling this contender, and why: ``stopped after 120 of 500 cases: behind …``.
    stopped: str | None = None

    def count(self, result: Result) -> None:
        """Count a stored result: done, and whether it is an error, a reply not judged, or a call cut off."""
        self.done += 1
        if result.error is not None:
            self.errors += result.status == "error"
            message = result.error.message
            self.unjudged += message.startswith(UNJUDGED_PREFIX)
            self.cut_off += message.startswith(BREAKER_PREFIXES)

    def skip(self, why: str) -> None:
        """Count a case (× sample) left unrun, and why: it will not be called in this session."""
        self.skipped += 1
        self.blocked = why

    @property
    def saved(self) -> int:
        """Calls an adaptive run did not make for this contender because the race stopped it (or ended)."""
        return self.total - self.done - self.skipped - self.over_budget if self.stopped else 0

    def eta_s(self, clock: float) -> float | None:
        new = self.done - self.resumed_from
        if not self.started or new <= 0 or self.done + self.skipped + self.over_budget >= self.total:
            return None
        rate = new / max(clock - self.started, 1e-9)
        return (self.total - self.done - self.skipped) / rate


@dataclass
class Progress:
    """Progress of a whole run, updated as results complete; read it from any thread."""

    run_id: str
    contenders: dict[str, ContenderProgress] = field(default_factory=dict)
    #: running, completed, interrupted, failed, or ``cancelled`` (a run the user stopped; stored as
    #: ``interrupted`` with ``stopped_by: user`` in its settings).
    status: str = "running"
    message: str = ""
    #: The run's budget cap in USD (None: no cap) and what it has spent so far: the finished calls' cost,
    #: a resumed run's stored results included, their judges' calls too.
    cap_usd: float | None = None
    spent_usd: float = 0.0
    #: The budget cap refused a call (a contender's or a judge's): what is left is for a resume with a higher cap.
    budget_reached: bool = False
    #: An adaptive run: True while it races, then why the race ended (``one contender left`` …); None otherwise.
    race: bool | str | None = None
    #: One line per tracker that could not send everything, once the run ended (``otel: 12 spans not sent: …``).
    unsent: list[str] = field(default_factory=list)
    #: What the reply cache did, once the run ended (``reply cache: 12 replies reused …``); None when it was off.
    cache: str | None = None
    #: A worker of a shared run (``--worker``), once it ended: the slots the whole run left unrun; None otherwise.
    run_unrun: int | None = None
    #: The one line that says the store went away and did not come back, what was kept and how to go on;
    #: None while the store takes the results.
    store_lost: str | None = None

    @property
    def saved(self) -> int:
        """Calls an adaptive run has not made (and will not) because the race stopped their contender."""
        return sum(p.saved for p in self.contenders.values())

    @property
    def skipped(self) -> int:
        """Cases not called because an endpoint could not be reached (``evalcore run --resume`` calls them)."""
        return sum(p.skipped for p in self.contenders.values())

    @property
    def over_budget(self) -> int:
        """Cases not called because the budget cap was reached (``evalcore run --resume --max-cost`` calls them)."""
        return sum(p.over_budget for p in self.contenders.values())

    @property
    def cut_off(self) -> int:
        """Calls stored with the message of their endpoint's breaker (``evalcore run --resume`` calls them again)."""
        return sum(p.cut_off for p in self.contenders.values())

    @property
    def unfinished(self) -> int:
        """Of :attr:`over_budget`, cases the cap stopped midway (stored unfinished; a resume calls them again)."""
        return sum(p.unfinished for p in self.contenders.values())

    @property
    def unjudged(self) -> int:
        """Replies stored but not judged (``evalcore run --resume`` judges them)."""
        return sum(p.unjudged for p in self.contenders.values())

    @property
    def done(self) -> int:
        return sum(p.done for p in self.contenders.values())

    @property
    def total(self) -> int:
        return sum(p.total for p in self.contenders.values())


ProgressCallback = Callable[[Progress], None]


def format_line(name: str, p: ContenderProgress, clock: float, width: int = 38) -> str:
    """``fake/oracle · t=0  [#####-----]  12/48  errors 1  3.2s  eta 9s``; a contender whose calls wait on a
    rate limit adds ``· 3 waiting on rpm limit of openai/gpt-4o-mini``, and one whose endpoint could not be
    reached ends ``45 not called: cannot connect to http://127.0.0.1:9/v1: connection refused``."""
    share = p.done / p.total if p.total else 1.0
    filled = int(round(share * BAR_WIDTH))
    bar = "#" * filled + "-" * (BAR_WIDTH - filled)
    elapsed = ((p.finished or clock) - p.started) if p.started else 0.0
    eta = p.eta_s(clock)
    if p.stopped:
        tail = p.stopped
    elif p.blocked:
        tail = f"{p.skipped} not called: {p.blocked}"
    elif p.over_budget:
        tail = f"{p.over_budget} not called: budget cap reached"
    else:
        tail = f"eta {eta:.0f}s" if eta is not None else ("done" if p.done >= p.total or p.finished else "waiting")
        if p.waiting:
            waits = f"{p.waiting_calls} {p.waiting}"
            tail = f"{tail} · {waits}" if eta is not None else waits
    if p.unjudged:
        tail += f" · {p.unjudged} not judged"
    label = name if len(name) <= width else name[: width - 1] + "…"
    return f"{label:<{width}} [{bar}] {p.done:>6}/{p.total:<6} errors {p.errors:<4} {elapsed:6.1f}s  {tail}"


def race_line(progress: Progress) -> str:
    """``race: 3 of 8 still in, 1240 calls saved`` (an adaptive run), and why it ended once it has."""
    still = sum(1 for p in progress.contenders.values() if not p.stopped)
    ended = f" ({progress.race})" if isinstance(progress.race, str) else ""
    return f"race: {still} of {len(progress.contenders)} still in, {progress.saved} calls saved{ended}"


class StderrBars:
    """A progress callback that redraws bars in place on a terminal, or logs finished lines otherwise."""

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.drawn = 0
        self.reported: set[str] = set()

    def __call__(self, progress: Progress) -> None:
        clock = time.monotonic()
        if self.tty:
            self._redraw(progress, clock)
        else:
            self._log_finished(progress, clock)

    def _redraw(self, progress: Progress, clock: float) -> None:
        lines = [format_line(name, p, clock) for name, p in progress.contenders.items()]
        if progress.race is not None:
            lines.append(race_line(progress))
        up = f"\x1b[{self.drawn}F" if self.drawn else ""
        self.stream.write(up + "".join(f"\x1b[2K{line}\n" for line in lines))
        self.stream.flush()
        self.drawn = len(lines)

    def _log_finished(self, progress: Progress, clock: float) -> None:
        for name, p in progress.contenders.items():
            if name not in self.reported and p.total and (p.done + p.skipped + p.over_budget >= p.total or p.finished):
                self.reported.add(name)
                self.stream.write(format_line(name, p, clock) + "\n")
        self.stream.flush()
