"""The exceptions evalcore raises.

::

    EvalcoreError                 anything evalcore reports to a user
     ├── ConfigError              a suite folder, evalcore.yaml or a case is wrong (names file, key, fix)
     ├── RunFileError             a run file is not valid (lists ``path.to.field: message`` problems)
     ├── StoreError               the SQLite store refused an operation (unknown run id, duplicate id …)
     │    ├── StoreMissing        a store opened to be read does not exist (no file, or a server without its tables)
     │    └── StoreUnavailable    the store cannot be written for now: its connection is lost, its disk full, or
     │                            its file read-only (what failed may succeed once it is back)
     ├── WeightsError             weights name something that cannot be weighted
     └── CallFailed               a model call failed after its retries (carries ``kind`` and ``attempts``)
          └── CallNotStarted      a case could not start: what it needs is gone (an agent's MCP server)
"""

from __future__ import annotations


class EvalcoreError(Exception):
    """Base class: every error evalcore shows to a user."""


class ConfigError(EvalcoreError):
    """A suite, its configuration or one of its cases is wrong."""


class RunFileError(EvalcoreError):
    """A run file failed validation; ``problems`` holds one ``path: message`` line per problem."""

    def __init__(self, message: str, problems: list[str] | None = None):
        self.problems = problems or []
        detail = "".join(f"\n  {p}" for p in self.problems)
        super().__init__(message + detail)


class StoreError(EvalcoreError):
    """The store cannot do what was asked."""


class StoreMissing(StoreError):
    """A store opened only if it exists does not: no file at the path, or a database server without evalcore's
    tables. ``location`` is the store as messages show it (a URL without its password); ``fix``, when given,
    follows it in the message and says how to name the right store or make one."""

    def __init__(self, location: str, fix: str = ""):
        self.location = location
        super().__init__(f"no store at {location}" + (f" {fix}" if fix else ""))


class StoreUnavailable(StoreError):
    """The store cannot be reached or written for now (a lost connection, a server that stopped, a full disk, a
    read-only file): the same write may succeed once it is back, on a connection opened again
    (:meth:`evalcore.storage.store.Store.reconnect`)."""


class WeightsError(EvalcoreError):
    """Weights name something that cannot be weighted."""


class CallFailed(EvalcoreError):
    """A model call gave no usable reply after its retries.

    Attributes:
        kind: one of ``transport``, ``timeout``, ``rate_limit``, ``auth``, ``bad_request``, ``other``, or
            ``replay`` (a replayed run holds no usable reply for the call), or ``judge`` (an LLM judge gave no
            verdict: :class:`evalcore.scoring.judge.JudgeFailed`).
        attempts: calls made, retries included.
        latency_s: wall time of the last attempt, when known.
    """

    def __init__(self, kind: str, message: str, attempts: int = 1, latency_s: float | None = None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.attempts = attempts
        self.latency_s = latency_s


class CallNotStarted(CallFailed):
    """A case's call could not start, before any model call: something it needs is gone for the rest of the run
    (an agent's MCP server that failed again after a restart). A run leaves the case unrun (resumable), never
    stores it; ``message`` says what is gone."""

    def __init__(self, message: str):
        super().__init__("transport", message)
