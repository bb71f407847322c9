"""What is checked before a run starts, so that a run that would fail for want of configuration is refused
before any model is called: the lineup, keys, the adapter's and trackers' options, weights, pairwise judges,
images, the budget and the race."""

from __future__ import annotations

from collections.abc import Sequence

from evalcore.analysis.scores.weights import validate_weights
from evalcore.core.errors import ConfigError, WeightsError
from evalcore.core.images import image_refs
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Metric
from evalcore.execution.budget import check_budget
from evalcore.execution.judge_calls import check_judges_take_images
from evalcore.execution.pairwise import check_pairwise
from evalcore.execution.plan import Plan
from evalcore.execution.race_settings import check_race
from evalcore.scoring.plugins import build_adapter, build_scorer
from evalcore.suite.loader import Suite
from evalcore.trackers import build_trackers, tracker_refs


def check_ready(plan: Plan) -> None:
    """Refuse to start a run that would fail for want of configuration."""
    if not plan.contenders:
        reasons = "; ".join(f"{r.model}: {r.reason}" for r in plan.refused) or "the lineup is empty"
        raise ConfigError(f"nothing to run: every contender was refused ({reasons})")
    if plan.missing_keys:
        model, keys = next(iter(plan.missing_keys.items()))
        raise ConfigError(
            f"{model} needs {', '.join(keys)} in the environment; set it (export "
            f"{keys[0]}=...) and run again. No model was called."
        )
    adapter = build_adapter(plan.suite.adapter_ref, plan.suite.path)  # its options (an http adapter's ${VAR}s)
    check_adapter = getattr(adapter, "check_ready", None)
    if check_adapter is not None and plan.replay is None:  # what it would start (an agent's MCP servers)
        check_adapter()
    build_trackers(tracker_refs(plan.suite.config.trackers, plan.options.trackers), plan.suite.path)
    check_weights(plan.suite, plan.metrics)
    check_pairwise(plan.suite, [c.id for c in plan.contenders])
    if any(image_refs(c.input) for c in plan.cases):
        check_judges_take_images(plan.suite)
    check_budget(plan)
    check_race(plan.options.adaptive, plan.contenders)


def check_weights(suite: Suite, metrics: Sequence[Metric] | None = None) -> None:
    """Refuse suite weights that name no weightable column: a typo would otherwise surface only after
    every model was called, when the leaderboard is drawn (and the run file could not be written)."""
    try:
        if metrics is None:  # the plan's, when there is one
            metrics = build_scorer(suite.scorer_refs, suite.path).metrics
        validate_weights(suite.weights, MetricSet.of(metrics))
    except WeightsError as exc:
        raise ConfigError(
            f"{suite.path / 'evalcore.yaml'}: weighted_score.weights: {exc}. Fix the name; no model was called."
        ) from None
