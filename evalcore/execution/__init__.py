"""Running a lineup: the plan (contenders × cases), its cost estimate, the concurrent runner, progress, verify.

- :mod:`~evalcore.execution.plan`: :func:`make_plan` and :class:`RunOptions`.
- :mod:`~evalcore.execution.estimate`: the estimated cost of a plan.
- :mod:`~evalcore.execution.budget`: a run's budget cap (``--max-cost``), checked before each call.
- :mod:`~evalcore.execution.runner`: :func:`run_suite`, :func:`execute_plan`, :func:`resume_plan`;
  :mod:`~evalcore.execution.writer`: the thread that stores its results in batches.
- :mod:`~evalcore.execution.progress`: the progress records the runner keeps, and progress bars on stderr.
- :mod:`~evalcore.execution.replay`: :func:`open_replay`, a stored run whose replies answer a run's calls.
- :mod:`~evalcore.execution.verify`: offline checks of a suite (:func:`verify_suite`).

May import every sub-package below it: :mod:`evalcore.analysis` (weights), :mod:`evalcore.storage`,
:mod:`evalcore.scoring`, :mod:`evalcore.suite`, :mod:`evalcore.models`, :mod:`evalcore.core`.
"""

from evalcore._util.lazy import lazy_exports

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
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
