"""Planning and background runs for the explorer: a plan restricted to the chosen datasets and
contenders, what it will do and cost, and runs launched or resumed in a background thread whose progress
any thread can read.

Nothing here imports streamlit; litellm is loaded only when a run thread makes its first call.
The execution layer (the runner, suite loading, pydantic) is imported inside the functions that use
it, not at the top: the app's shared page code imports this module, and most pages never plan or
launch a run, so the app starts without paying for those imports.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from evalcore.analysis.view import format_settings
from evalcore.core.errors import EvalcoreError
from evalcore.core.records import Run

log = logging.getLogger(__name__)


def build_plan(
    suite: Any,
    datasets: Sequence[str] = (),
    contenders: Sequence[str] = (),
    samples: int | None = None,
    parallelism: int | None = None,
    limit: int | None = None,
) -> Any:
    """A plan of ``suite`` restricted to the chosen datasets and contenders (all when none chosen)."""
    from evalcore.execution.plan import RunOptions, make_plan

    plan = make_plan(suite, RunOptions(datasets=list(datasets), samples=samples, parallelism=parallelism, limit=limit))
    if contenders:
        wanted = set(contenders)
        plan.contenders = [c for c in plan.contenders if c.id in wanted]
    return plan


def plan_summary(plan: Any, db_path: str | Path | None = None) -> dict[str, Any]:
    """What a plan will do: ``matrix`` (contender × dataset calls, with settings), ``calls``,
    ``cost`` (estimated USD or None), ``cost_range`` ((low, high) USD or None), ``cost_text`` (the
    estimate in words: range and where its output tokens come from), ``refused`` (model, settings,
    reason) and ``missing_keys`` (model → environment variables it needs).

    Args:
        plan: the plan.
        db_path: a store whose past runs of the same contenders inform the estimate (when the file exists).
    """
    from evalcore.execution.estimate import describe, estimate_plan_cost
    from evalcore.storage.store import Store

    past = Store(db_path) if db_path is not None and Path(db_path).is_file() else None
    try:
        estimate = estimate_plan_cost(plan, past)
    finally:
        if past is not None:
            past.close()

    matrix = pd.DataFrame.from_dict(plan.matrix(), orient="index").rename_axis("contender").reset_index()
    if len(matrix):
        matrix.insert(1, "settings", [format_settings(c.settings) for c in plan.contenders])
        matrix["calls"] = matrix.drop(columns=["contender", "settings"]).sum(axis=1)
    refused = pd.DataFrame(
        [{"model": r.model, "settings": format_settings(r.settings), "reason": r.reason} for r in plan.refused],
        columns=["model", "settings", "reason"],
    )
    return {
        "matrix": matrix,
        "calls": plan.calls,
        "cost": estimate.usd if plan.contenders else 0.0,
        "cost_range": (estimate.low_usd, estimate.high_usd) if estimate.usd is not None else None,
        "cost_text": describe(estimate),
        "refused": refused,
        "missing_keys": dict(plan.missing_keys),
    }


class RunJob:
    """A run working in a background thread, writing to the store; read its progress from any thread.

    The thread makes no UI call; it keeps going if the page that started it goes away. ``cancel``
    asks it to stop: finished results stay stored and the run can be resumed.

    Attributes:
        status: ``starting``, ``running``, then how the run ended: ``completed``; ``cancelled`` (``cancel``
            was called; the store lists the run as ``cancelled`` too); ``interrupted`` (cases were left
            unrun, e.g. an endpoint could not be reached: :attr:`message` says which); ``failed``
            (:attr:`error` says why).
    """

    def __init__(self, run: Run, target: Any):
        self.run = run
        self.run_id = run.info.id
        self.stop = threading.Event()
        self.progress: Any = None
        self.status = "starting"
        self.error: str | None = None
        self.started = time.monotonic()
        self._thread = threading.Thread(
            target=self._work, args=(target,), name=f"evalcore-run-{self.run_id[:8]}", daemon=True
        )

    def _work(self, target: Any) -> None:
        try:
            self.status = target(self)
        except EvalcoreError as exc:
            self.status, self.error = "failed", str(exc)
        except Exception as exc:  # noqa: BLE001 - shown in plain words; the traceback goes to the log
            log.exception("run %s failed", self.run_id)
            self.status, self.error = "failed", f"the run stopped on an unexpected error: {exc}"

    def on_progress(self, progress: Any) -> None:
        self.progress = progress

    def start(self) -> RunJob:
        self.status = "running"
        self._thread.start()
        return self

    def cancel(self) -> None:
        self.stop.set()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    @property
    def message(self) -> str:
        """Why the run stopped, in words (``cannot connect to http://127.0.0.1:9/v1: connection refused``), or ''."""
        return str(getattr(self.progress, "message", "") or "")

    def rows(self) -> pd.DataFrame:
        """Per contender: ``contender, done, total, errors, share, skipped, blocked, waiting`` (see
        :func:`progress_rows`)."""
        return progress_rows(self.progress)


def progress_rows(progress: Any) -> pd.DataFrame:
    """A runner ``Progress`` as rows: ``contender, done, total, errors, share`` (done out of the whole run,
    a resumed run's earlier results included; share in [0, 1]), ``skipped`` (cases not called because the
    endpoint could not be reached), ``blocked`` (why, or '') and ``waiting`` (calls waiting on a rate limit of the
    suite and why: ``3 waiting on rpm limit of openai/gpt-4o-mini``, or '')."""
    columns = ["contender", "done", "total", "errors", "share", "skipped", "blocked", "waiting"]
    if progress is None:
        return pd.DataFrame(columns=columns)
    rows = [
        {
            "contender": name,
            "done": p.done,
            "total": p.total,
            "errors": p.errors,
            "share": p.done / p.total if p.total else 1.0,
            "skipped": p.skipped,
            "blocked": p.blocked or "",
            "waiting": f"{p.waiting_calls} {p.waiting}" if p.waiting else "",
        }
        for name, p in list(progress.contenders.items())
    ]
    return pd.DataFrame(rows, columns=columns)


def launch_run(plan: Any, db_path: str | Path) -> RunJob:
    """Start ``plan`` in a background thread writing to the store at ``db_path``.

    The run's header is stored before this returns, so the run is in the history at once.

    Raises:
        ConfigError: the plan cannot run (nothing to run, a missing API key); nothing was stored.
        EvalcoreError: viewer mode is on (``EVALCORE_VIEWER``); nothing was stored.
    """
    from evalcore.analysis.summaries import refresh_summary
    from evalcore.execution.runner import execute_plan, start_run
    from evalcore.explorer.sharing import refuse_in_viewer_mode
    from evalcore.storage.store import Store

    refuse_in_viewer_mode("Launching a run")
    store = Store(db_path)
    run = start_run(plan, store, str(uuid.uuid4()))

    def work(job: RunJob) -> str:
        status = asyncio.run(execute_plan(plan, store, run, on_progress=job.on_progress, stop=job.stop))
        refresh_summary(store, run.info.id)
        return status

    return RunJob(run, work).start()


def resume_run(run_id: str, db_path: str | Path) -> RunJob:
    """Finish an interrupted run in a background thread: only missing results are called.

    Args:
        run_id: a stored run's id, or a unique prefix of one.
        db_path: the store.

    Raises:
        ConfigError: the run is completed, or its suite changed or is gone.
        EvalcoreError: viewer mode is on (``EVALCORE_VIEWER``); nothing was changed.
    """
    from evalcore.analysis.summaries import refresh_summary
    from evalcore.execution.runner import execute_plan, resume_plan
    from evalcore.explorer.sharing import refuse_in_viewer_mode
    from evalcore.storage.store import Store

    refuse_in_viewer_mode("Resuming a run")
    store = Store(db_path)
    run_id = store.resolve_run_id(run_id)
    plan, run, done = resume_plan(store, run_id)
    store.set_status(run_id, "running")

    def work(job: RunJob) -> str:
        status = asyncio.run(execute_plan(plan, store, run, done, on_progress=job.on_progress, stop=job.stop))
        refresh_summary(store, run_id)
        return status

    return RunJob(run, work).start()
