"""Progress bars on stderr: one line per contender with done/total, errors, elapsed and ETA."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from evalcore.execution.runner import ContenderProgress, Progress

BAR_WIDTH = 24


def format_line(name: str, p: ContenderProgress, clock: float, width: int = 38) -> str:
    """``fake/oracle · t=0  [#####-----]  12/48  errors 1  3.2s  eta 9s``; a contender whose endpoint
    could not be reached ends ``45 not called: cannot connect to http://127.0.0.1:9/v1: connection refused``."""
    share = p.done / p.total if p.total else 1.0
    filled = int(round(share * BAR_WIDTH))
    bar = "#" * filled + "-" * (BAR_WIDTH - filled)
    elapsed = ((p.finished or clock) - p.started) if p.started else 0.0
    eta = p.eta_s(clock)
    if p.blocked:
        tail = f"{p.skipped} not called: {p.blocked}"
    else:
        tail = f"eta {eta:.0f}s" if eta is not None else ("done" if p.done >= p.total else "waiting")
    label = name if len(name) <= width else name[: width - 1] + "…"
    return f"{label:<{width}} [{bar}] {p.done:>6}/{p.total:<6} errors {p.errors:<4} {elapsed:6.1f}s  {tail}"


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
        up = f"\x1b[{self.drawn}F" if self.drawn else ""
        self.stream.write(up + "".join(f"\x1b[2K{line}\n" for line in lines))
        self.stream.flush()
        self.drawn = len(lines)

    def _log_finished(self, progress: Progress, clock: float) -> None:
        for name, p in progress.contenders.items():
            if name not in self.reported and p.total and (p.done + p.skipped >= p.total or p.finished):
                self.reported.add(name)
                self.stream.write(format_line(name, p, clock) + "\n")
        self.stream.flush()
