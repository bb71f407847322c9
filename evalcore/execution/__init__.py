"""Running a lineup: the plan (contenders × cases), its cost estimate, the concurrent runner, progress, verify.

- :mod:`~evalcore.execution.plan`: :func:`make_plan` and :class:`RunOptions`.
- :mod:`~evalcore.execution.estimate`: the estimated cost of a plan.
- :mod:`~evalcore.execution.budget`: a run's budget cap (``--max-cost``), checked before each call.
- :mod:`~evalcore.execution.runner`: :func:`run_suite`, :func:`execute_plan`, :func:`resume_plan`;
  :mod:`~evalcore.execution.writer`: the thread that stores its results in batches.
- :mod:`~evalcore.execution.adaptive`: adaptive runs (``--adaptive``): the race that stops contenders that cannot win;
  :mod:`~evalcore.execution.race_settings`: its settings, which the plan carries and the run records.
- :mod:`~evalcore.execution.progress`: the progress records the runner keeps, and progress bars on stderr.
- :mod:`~evalcore.execution.replay`: :func:`open_replay`, a stored run whose replies answer a run's calls.
- :mod:`~evalcore.execution.reply_cache`: a run's reply cache (``--cache``): stored replies reused per call.
- :mod:`~evalcore.execution.verify`: offline checks of a suite (:func:`verify_suite`), and of one case
  (:class:`~evalcore.execution.verify.CaseCheck`).
- :mod:`~evalcore.execution.generate`: new cases a writer model proposes (``evalcore generate``), filtered and
  queued; :mod:`~evalcore.execution.review`: a person's decision on them, an accepted case written to the dataset.

May import every sub-package below it: :mod:`evalcore.analysis` (weights), :mod:`evalcore.storage`,
:mod:`evalcore.scoring`, :mod:`evalcore.suite`, :mod:`evalcore.models`, :mod:`evalcore.core`.
"""

from typing import TYPE_CHECKING

from evalcore._util.lazy import lazy_exports

if TYPE_CHECKING:
    from evalcore.execution.estimate import estimate_cost, estimate_plan_cost
    from evalcore.execution.plan import Plan, RunOptions, make_plan
    from evalcore.execution.replay import open_replay
    from evalcore.execution.runner import Progress, execute_plan, resume_plan, run_suite, start_run
    from evalcore.execution.verify import verify_suite


_EXPORTS = {
    "make_plan": "plan",
    "RunOptions": "plan",
    "Plan": "plan",
    "estimate_cost": "estimate",
    "estimate_plan_cost": "estimate",
    "run_suite": "runner",
    "execute_plan": "runner",
    "resume_plan": "runner",
    "start_run": "runner",
    "Progress": "runner",
    "open_replay": "replay",
    "verify_suite": "verify",
}
__all__ = [
    "Plan",
    "Progress",
    "RunOptions",
    "estimate_cost",
    "estimate_plan_cost",
    "execute_plan",
    "make_plan",
    "open_replay",
    "resume_plan",
    "run_suite",
    "start_run",
    "verify_suite",
]
if not TYPE_CHECKING:  # hidden from mypy, which would otherwise type every unknown name as Any
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
