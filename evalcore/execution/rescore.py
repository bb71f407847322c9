"""Rescoring a stored run: its outputs scored again by the suite's current scorers, with no contender call.

``evalcore rescore RUN`` builds a plan over the stored run's own contenders, cases and samples, answered by a
replay of that run (:mod:`evalcore.execution.replay`): each reply is the stored raw text, with the stored
usage, latency and attempts, so the new run's cost and time columns read as the original's. Only scorers that
ask a model (an LLM judge) make calls, and with ``judge_cache`` not even those when the judge's model and
prompt are unchanged: the stored verdict is reused (:func:`evalcore.scoring.judge.stored_verdicts`).

The new run's provenance says ``rescored_from: <run id>``. The cases are the suite's current ones (a fixed
expected answer is used), matched to the stored run's by dataset and id; a case whose input changed cannot be
rescored and is a ``replay`` error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case, Run
from evalcore.execution.plan import Plan, Replay, RunOptions, make_plan, suite_contexts
from evalcore.scoring.adapters import prompt_messages
from evalcore.suite.loader import Suite
from evalcore.suite.prompts import check_prompt_names, prompts_used

if TYPE_CHECKING:
    from evalcore.storage.store import Store


def rescore_plan(replay: Replay, suite: Suite, options: RunOptions | None = None) -> Plan:
    """The plan that rescores ``replay``'s stored run with ``suite``'s current adapter and scorers.

    Args:
        replay: the stored run.
        suite: the suite whose scorers apply (usually the one the run was made with).
        options: how calls proceed (concurrency, timeout, ``judge_cache`` …); its selection, samples and
            replay are set here.

    Raises:
        ConfigError: the suite lacks a dataset, case or prompt of the stored run.
    """
    stored = replay.run
    options = options or RunOptions()
    datasets = sorted({c.dataset for c in stored.cases})
    missing = [d for d in datasets if d not in suite.datasets]
    if missing:
        raise ConfigError(f"{suite.path}: dataset {missing[0]!r} of run {stored.info.id} is not in the suite")
    options.datasets, options.variants, options.limit = datasets, [], None
    options.samples = _samples(stored)
    options.replay, options.rescore = replay, True
    plan = make_plan(suite, options)
    plan.contenders, plan.refused = list(stored.contenders), []
    plan.cases = _current_cases(stored, suite)
    check_prompt_names(plan.contenders, suite.prompts, suite.path)
    contexts = suite_contexts(suite)
    plan.rendered = {
        name: {c.key: prompt_messages(suite.prompts[name], c, contexts[c.dataset]) for c in plan.cases}
        for name in prompts_used(plan.contenders)
    }
    return plan


def _samples(run: Run) -> int:
    stored = run.info.settings.get("samples")
    if isinstance(stored, int) and stored >= 1:
        return stored
    return max((r.sample for r in run.results), default=0) + 1


def _current_cases(run: Run, suite: Suite) -> list[Case]:
    """The suite's version of each case of the stored run, in the run's order."""
    current = {c.key: c for c in suite.cases}
    gone = [c for c in run.cases if c.key not in current]
    if gone:
        where = f"{gone[0].dataset}/{gone[0].id}"
        raise ConfigError(
            f"{suite.path}: case {where} of run {run.info.id} is gone from the suite "
            f"({len(gone)} such); rescore it with the suite it was made with (--suite)"
        )
    return [current[c.key] for c in run.cases]


def keep_ratings(store: Store, stored: Run, new_id: str) -> None:
    """Give the rescored run ``new_id`` the ratings people made of ``stored``'s replies (a run file's own, else the
    store's): a rescore replays the same replies, so what people said of them holds, and a judge rescored beside
    another is compared with the same people."""
    from evalcore.storage.ratings import add_ratings, load_ratings

    ratings = list(stored.ratings) or load_ratings(store, stored.info.id)
    if ratings:
        add_ratings(store, new_id, ratings)
