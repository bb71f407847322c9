"""Warnings of dependencies in a log file instead of the terminal, where they would break the progress bars.

While :func:`dependency_log` is active, Python warnings (``warnings.warn``, through
:func:`logging.captureWarnings`) and the log records of every logger outside evalcore go to a file; evalcore's
own records still go to stderr. litellm gives its loggers a stderr handler of their own when it is imported;
:func:`adopt` takes it away (the one module that imports litellm calls it), so their records reach the file.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

#: The file, in the store's folder, that dependency warnings go to.
LOG_NAME = "evalcore-warnings.log"
#: The loggers litellm gives a handler of its own.
LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")
FORMAT = "%(levelname)s %(name)s: %(message)s"

_active: DependencyLog | None = None


def _ours(record: logging.LogRecord) -> bool:
    return record.name == "evalcore" or record.name.startswith("evalcore.") or record.name == "__main__"


class DependencyLog(logging.FileHandler):
    """Appends the records of dependencies to a file, created (with its folder) at the first record; counts them."""

    def __init__(self, path: Path):
        super().__init__(path, mode="a", encoding="utf-8", delay=True)
        self.path = path
        self.count = 0
        self.setFormatter(logging.Formatter("%(asctime)s " + FORMAT))
        self.addFilter(lambda record: not _ours(record))

    def emit(self, record: logging.LogRecord) -> None:
        if self.stream is None:  # type: ignore[has-type]  # delay=True: no stream until the first record
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.count += 1
        super().emit(record)


@contextmanager
def dependency_log(folder: Path, level: int = logging.WARNING) -> Iterator[DependencyLog]:
    """Send dependency warnings to ``folder``/:data:`LOG_NAME` and evalcore's own records to stderr, for the
    duration; everything is put back on exit.

    Args:
        folder: the store's folder.
        level: the lowest level written, to either place (the root logger's own level, WARNING unless
            changed, still applies).

    Yields:
        The file's handler: its ``count`` says how many records went to ``path``.
    """
    global _active
    root = logging.getLogger()
    to_file = DependencyLog(folder / LOG_NAME)
    to_stderr = logging.StreamHandler(sys.stderr)
    to_stderr.setFormatter(logging.Formatter(FORMAT))
    to_stderr.addFilter(_ours)
    for handler in (to_file, to_stderr):
        handler.setLevel(level)
    root.addHandler(to_stderr)
    root.addHandler(to_file)
    logging.captureWarnings(True)
    _active = to_file
    if "litellm" in sys.modules:
        adopt(LITELLM_LOGGERS)
    try:
        yield to_file
    finally:
        _active = None
        logging.captureWarnings(False)
        for handler in (to_stderr, to_file):
            root.removeHandler(handler)
            handler.close()


def adopt(names: Sequence[str]) -> None:
    """While a :func:`dependency_log` is active, remove the handlers these loggers brought themselves, so their
    records go the way of every other dependency's (to the file); nothing otherwise."""
    if _active is None:
        return
    for name in names:
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.propagate = True


def said_where(log: DependencyLog) -> str | None:
    """The one line that says where dependency warnings went; None when there were none."""
    if not log.count:
        return None
    noun = "warning" if log.count == 1 else "warnings"
    return f"{log.count} {noun} of dependencies (litellm, pydantic …) written to {log.path}"
