"""Keep the cyclic garbage collector off objects that cannot be garbage, while a run is loaded and run.

A suite of 20,000 cases is a few hundred thousand tracked objects (cases, their expected answers,
the messages built from them). The collector's full passes walk every one of them, several times
a run, though none holds a cycle or dies before the run ends: measured, those passes cost as much
as scoring every reply. Two tools, both process-wide and both undone on the way out:

- :func:`gc_paused` while building such objects (reading a dataset or a run file, storing rows, building a frame);
- :func:`gc_frozen` while a run executes: everything alive when it starts is left out of full
  passes until the last run in progress ends. Objects made during the run are collected as usual.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_frozen = 0


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the collector while plain records (no cycles) are built; restore it after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def gc_frozen() -> Iterator[None]:
    """Leave every object alive now out of full collections until the last such block ends."""
    global _frozen
    with _lock:
        gc.freeze()
        _frozen += 1
    try:
        yield
    finally:
        with _lock:
            _frozen -= 1
            if not _frozen:
                gc.unfreeze()
