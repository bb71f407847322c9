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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from evalcore.analysis.tables.view import format_settings
from evalcore.core.errors import EvalcoreError
from evalcore.core.records import Run
from evalcore.explorer.access import Access
from evalcore.explorer.suite_roots import confine, suite_roots

log = logging.getLogger(__name__)


def build_plan(
    suite: Any,
    datasets: Sequence[str] = (),
    contenders: Sequence[str] = (),
    samples: int | None = None,
    parallelism: int | None = None,
    limit: int | None = None,
    max_cost_usd: float | None = None,
    race: Race | None = None,
) -> Any:
    """A plan of ``suite`` restricted to the chosen datasets and contenders (all when none chosen); ``max_cost_usd``
    is its budget cap (0: none; None: the suite's); ``race`` makes it an adaptive run (None: as the suite says).

    Raises:
        ConfigError: a race's confidence or margin out of range.
    """
    from evalcore.execution.plan import RunOptions, make_plan
    from evalcore.execution.race_settings import race_settings

    asked = race or Race(on=None)
    adaptive = race_settings(suite.config.run.adaptive, asked.on, asked.confidence, asked.margin)
    options = RunOptions(
        datasets=list(datasets),
        samples=samples,
        parallelism=parallelism,
        limit=limit,
        max_cost_usd=max_cost_usd,
        adaptive=adaptive,
    )
    plan = make_plan(suite, options)
    if contenders:
        wanted = set(contenders)
        plan.contenders = [c for c in plan.contenders if c.id in wanted]
    return plan


@dataclass(frozen=True)
class Race:
    """What the Run page asks of an adaptive run (see ``docs/adaptive.md``)."""

    #: Race the contenders; False: call every one; None: as the suite says.
    on: bool | None = True
    #: The chance that the best contender is never stopped (None: the suite's, else 0.95).
    confidence: float | None = None
    #: Points: end the race when the leaders are this close (0: never; None: the suite's).
    margin: float | None = None


def race_defaults(suite: Any) -> Race:
    """The race a suite asks for (``run.adaptive``), as the Run page's switch starts: off when it asks for none."""
    given = suite.config.run.adaptive
    return Race(False, 0.95, 0.0) if given is None else Race(True, given.confidence, given.margin)


def race_text(progress: Any) -> str:
    """``race: 2 of 3 still in, 40 calls saved`` for an adaptive run's progress (and why it ended), else ''."""
    from evalcore.execution.progress import race_line

    return race_line(progress) if getattr(progress, "race", None) is not None else ""


def plan_summary(plan: Any, db_path: str | Path | None = None) -> dict[str, Any]:
    """What a plan will do: ``matrix`` (contender × dataset results, with settings), ``results`` (contenders ×
    cases × samples: an agent makes several model calls for one, see ``calls_text``),
    ``cost`` (estimated USD or None), ``cost_range`` ((low, high) USD or None), ``cost_text`` (the
    estimate in words: range and where its output tokens come from), ``calls_text`` (an agent's model calls
    in words: at least, or about, and at most; None for other adapters), ``cost_floor`` (the cost is only a lower
    bound: an agent with no past traces), ``refused`` (model, settings,
    reason), ``missing_keys`` (model → environment variables it needs) and ``budget_error`` (why the plan's
    budget cap refuses it, e.g. a model with no known price; None when it does not).

    Args:
        plan: the plan.
        db_path: a store whose past runs of the same contenders inform the estimate (when the file exists).
    """
    from evalcore.execution.budget import check_budget
    from evalcore.execution.estimate import calls_text, describe, estimate_plan_cost
    from evalcore.execution.race_settings import check_race
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
        matrix["results"] = matrix.drop(columns=["contender", "settings"]).sum(axis=1)
    refused = pd.DataFrame(
        [{"model": r.model, "settings": format_settings(r.settings), "reason": r.reason} for r in plan.refused],
        columns=["model", "settings", "reason"],
    )
    return {
        "matrix": matrix,
        "results": plan.calls,
        "cost": estimate.usd if plan.contenders else 0.0,
        "cost_range": (estimate.low_usd, estimate.high_usd) if estimate.usd is not None else None,
        "cost_text": describe(estimate),
        "calls_text": calls_text(estimate),
        "cost_floor": estimate.lower_bound,
        "refused": refused,
        "missing_keys": dict(plan.missing_keys),
        "budget_error": _refusal(check_budget, plan),
        "race_error": _refusal(lambda p: check_race(p.options.adaptive, p.contenders), plan),
    }


def _refusal(check: Any, plan: Any) -> str | None:
    """What ``check(plan)`` refuses, in words, or None."""
    try:
        check(plan)
    except EvalcoreError as exc:
        return str(exc)
    return None


def spend_text(progress: Any) -> str:
    """``Spent $0.01234 of the $0.05 budget cap`` for a capped run's progress, else ''."""
    from evalcore.execution.budget import usd_text

    cap = getattr(progress, "cap_usd", None)
    if cap is None:
        return ""
    return f"Spent {usd_text(progress.spent_usd)} of the {usd_text(cap)} budget cap"


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
        """Per contender: ``contender, done, total, errors, share, skipped, blocked, waiting, stopped`` (see
        :func:`progress_rows`)."""
        return progress_rows(self.progress)


def progress_rows(progress: Any) -> pd.DataFrame:
    """A runner ``Progress`` as rows: ``contender, done, total, errors, share`` (done out of the whole run,
    a resumed run's earlier results included; share in [0, 1]), ``skipped`` (cases not called because the
    endpoint could not be reached), ``blocked`` (why, or '') and ``waiting`` (calls waiting on a rate limit of the
    suite and why: ``3 waiting on rpm limit of openai/gpt-4o-mini``, or '') and ``stopped`` (an adaptive run's
    race stopped calling it, and why: ``stopped after 120 of 500 cases: behind …``, or '')."""
    columns = ["contender", "done", "total", "errors", "share", "skipped", "blocked", "waiting", "stopped"]
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
            "stopped": p.stopped or "",
        }
        for name, p in list(progress.contenders.items())
    ]
    return pd.DataFrame(rows, columns=columns)


def launch_run(plan: Any, db_path: str | Path, access: Access, roots: Sequence[str | Path] | None = None) -> RunJob:
    """Start ``plan`` in a background thread writing to the store at ``db_path``.

    The run's header is stored before this returns, so the run is in the history at once. A signed-in
    visitor is recorded as the run's ``provenance.launched_by``. ``roots`` are the suite folders the app
    may run (default: :func:`~evalcore.explorer.suite_roots.suite_roots` of the environment).

    Raises:
        ConfigError: the plan cannot run (nothing to run, a missing API key); nothing was stored.
        AccessDenied: the deployment's roles forbid ``access.visitor`` to launch; nothing was stored.
        EvalcoreError: the plan's suite is outside ``roots``; nothing was stored.
    """
    from evalcore.execution.runner import start_run
    from evalcore.storage.store import Store

    access.require("launch")
    confine(plan.suite.path, suite_roots() if roots is None else roots)
    plan.options.launched_by = access.visitor.stamp()
    store = Store(db_path)
    run = start_run(plan, store, str(uuid.uuid4()))

    return _in_background(plan, store, run)


def resume_run(
    run_id: str,
    db_path: str | Path,
    access: Access,
    roots: Sequence[str | Path] | None = None,
    max_cost_usd: float | None = None,
    retry_errors: bool = False,
) -> RunJob:
    """Finish an interrupted run in a background thread: only missing results are called (with
    ``retry_errors``, the results stored as errors too, a completed run's included).

    Args:
        run_id: a stored run's id, or a unique prefix of one.
        db_path: the store.
        access: who asks, under the deployment's roles.
        roots: the suite folders the app may run (default: :func:`~evalcore.explorer.suite_roots.suite_roots`
            of the environment); the run's stored suite folder must lie under one.
        max_cost_usd: a new budget cap for the whole run (0: none); None keeps the one the run recorded.
        retry_errors: call every result stored as an error again; the retry is recorded in the run's settings.

    Raises:
        ConfigError: the run is completed (without ``retry_errors``, or with no error), or its suite changed
            or is gone.
        AccessDenied: the deployment's roles forbid ``access.visitor`` to resume; nothing was changed.
        EvalcoreError: the run's suite folder is outside ``roots``; nothing was changed.
    """
    from evalcore.execution.runner import resume_plan
    from evalcore.storage.store import Store

    access.require("resume")
    store = Store(db_path)
    run_id = store.resolve_run_id(run_id)
    # Checked before resume_plan reads the suite: a run imports the suite's own scorer and adapter modules,
    # and a run file anyone uploaded can name any folder.
    suite_path = store.load_run(run_id, results=False).info.settings.get("suite_path")
    if suite_path:
        confine(suite_path, suite_roots() if roots is None else roots)
    plan, run, done = resume_plan(store, run_id, max_cost_usd=max_cost_usd, retry_errors=retry_errors)
    store.set_status(run_id, "running")

    return _in_background(plan, store, run, done)


def rescore_run(
    run_id: str,
    db_path: str | Path,
    access: Access,
    roots: Sequence[str | Path] | None = None,
    judge_cache: bool = True,
) -> RunJob:
    """Score a stored run's outputs again with its suite's current scorers, as a new run, in a background
    thread (``evalcore rescore``): no contender is called; a judge is called only where its verdict cannot be
    reused (``judge_cache``: the judge's model and prompt are unchanged).

    Raises:
        ConfigError: the run names no suite folder, or its folder is gone.
        AccessDenied: the deployment's roles forbid ``access.visitor`` to rescore (judges may be called).
        EvalcoreError: the run's suite folder is outside ``roots``; nothing was stored.
    """
    from evalcore.core.errors import ConfigError
    from evalcore.execution.plan import RunOptions
    from evalcore.execution.replay import open_replay
    from evalcore.execution.rescore import keep_ratings, rescore_plan
    from evalcore.execution.runner import start_run
    from evalcore.storage.store import Store
    from evalcore.suite.loader import load_suite

    access.require("rescore")
    store = Store(db_path)
    replay = open_replay(store.resolve_run_id(run_id), store)
    suite_path = replay.run.info.settings.get("suite_path")
    if not suite_path or not Path(suite_path).is_dir():
        named = f"names {suite_path!r}, which is not a folder here" if suite_path else "names no suite folder"
        raise ConfigError(f"run {replay.run.info.id} {named}: rescore it with evalcore rescore RUN --suite PATH")
    # Checked before the suite is read: its scorer modules are code the server would run.
    confine(suite_path, suite_roots() if roots is None else roots)
    options = RunOptions(judge_cache=judge_cache, launched_by=access.visitor.stamp())
    plan = rescore_plan(replay, load_suite(suite_path), options)
    run = start_run(plan, store, str(uuid.uuid4()))
    keep_ratings(store, replay.run, run.info.id)
    return _in_background(plan, store, run)


def _in_background(plan: Any, store: Any, run: Run, done: Any = None) -> RunJob:
    """Execute ``plan`` into the stored ``run`` on a thread of its own (``done``: results a resume keeps), and
    store the run's summary when it stops, so the app opens its leaderboard without reading every result."""
    from evalcore.analysis.tables.summaries import refresh_summary
    from evalcore.execution.runner import execute_plan

    def work(job: RunJob) -> str:
        status = asyncio.run(execute_plan(plan, store, run, done, on_progress=job.on_progress, stop=job.stop))
        refresh_summary(store, run.info.id)
        return status

    return RunJob(run, work).start()


def size_lines(plan: Any, db_path: str | Path | None, detect: float, usd: float | None = None) -> list[str]:
    """How many cases ``plan``'s suite needs to detect a difference of ``detect`` (a fraction) between two
    contenders, in sentences (:func:`evalcore.execution.size_plan.plan_size`), from the store's past runs;
    priced at ``usd`` (the plan's estimated cost) when it is known."""
    from evalcore.execution.size_plan import plan_size
    from evalcore.storage.store import Store

    past = Store(db_path) if db_path is not None and Path(db_path).is_file() else None
    try:
        return plan_size(plan, past, detect, usd=usd).lines()
    finally:
        if past is not None:
            past.close()
