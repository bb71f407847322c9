"""Should this run ship? A suite's ``gate:`` checks on one contender of a candidate run: PASS, WARN or FAIL.

Four kinds of check (``docs/compare.md``, "The gate: block"):

- ``minimum``: absolute limits on the candidate's leaderboard values, overall or per dataset;
- ``errors``: a ceiling on the candidate's error rate;
- ``regression``: how much worse than a baseline run a value may get, measured on the cases both runs
  share with :func:`evalcore.analysis.decisions.compare.compare`; by default the worsening must also be
  significant (the paired test of ``evalcore significance``, p < alpha) to count;
- ``guardrails``: rules on a metric (``max``, ``min``, ``must_not_increase``, ``must_not_decrease``) that fail
  the gate on any breach and fail closed when the metric has no value (:mod:`evalcore.analysis.decisions.guardrails`).

Without a ``gate:`` block the :data:`DEFAULT_GATE` applies: the primary score must not drop by more
than 0.02 with significance at 0.05, and the error rate must not rise by more than 0.01.

The verdict is FAIL when any check fails, WARN when one only warns, else PASS. :class:`GateError`
means the gate cannot decide (nothing to check, an unknown name, a missing contender): the CLI exits 2.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
from pydantic import ValidationError

from evalcore.analysis.decisions.compare import CompareError, Comparison, compare
from evalcore.analysis.decisions.guardrails import guardrail_results, support_drift
from evalcore.analysis.scores.formats import format_value
from evalcore.analysis.scores.results import Filters
from evalcore.analysis.tables.runs import metric_set_of, rank_run
from evalcore.core.errors import EvalcoreError
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Metric, Run
from evalcore.core.repeat_metrics import RepeatMetric
from evalcore.storage.history import StoredRun, header_of
from evalcore.suite.config import GateModel, LimitModel, RegressionModel

#: The gate of a suite without a ``gate:`` block.
DEFAULT_GATE = GateModel(
    regression={
        "score": RegressionModel(tolerance=0.02, alpha=0.05),
        "errors": RegressionModel(tolerance=0.01, significant=False, alpha=0.05),
    }
)
DEFAULT_GATE_TEXT = (
    "default gate (the suite has no gate: block): the score must not drop by more than 2 points with "
    "significance at 0.05, and the error rate must not rise by more than 1 point"
)
PASS, WARN, FAIL = "PASS", "WARN", "FAIL"


class GateError(EvalcoreError):
    """The gate cannot decide: nothing to check, a name it cannot check, a contender it cannot find."""


@dataclass
class Check:
    """One check: what was measured, against what limit, and the outcome."""

    kind: str  # minimum, errors, regression or guardrail
    name: str
    scope: str  # "all" or a dataset name
    value: float
    limit: str
    status: str  # PASS, WARN or FAIL
    detail: str = ""
    #: A regression beyond the tolerance but not significant: about how many more shared cases would decide
    #: a difference of its size (:attr:`evalcore.analysis.decisions.compare.Change.more_cases`); else None.
    more_cases: int | None = None


@dataclass
class GateReport:
    """A gate's checks and verdict for one contender of a run."""

    run: str
    contender: str
    baseline: str | None
    baseline_contender: str | None
    checks: list[Check]
    notes: list[str] = field(default_factory=list)
    comparison: Comparison | None = None
    #: (dataset, case) of the flaky cases left out of the minimum and guardrail checks (``flaky: exclude``).
    excluded: list[tuple[str, str]] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        statuses = {c.status for c in self.checks}
        return FAIL if FAIL in statuses else WARN if WARN in statuses else PASS

    @property
    def inconclusive(self) -> list[str]:
        """One sentence per check the data cannot decide: ``score worse by 3.0 pts: inconclusive: about N more
        cases would decide a difference this size``."""
        return [
            f"{c.name} worse by {format_value(c.name, c.value, delta=True)}: inconclusive: about "
            f"{c.more_cases:,} more cases would decide a difference this size"
            for c in self.checks
            if c.more_cases is not None
        ]

    @property
    def exit_code(self) -> int:
        """0 on PASS or WARN, 1 on FAIL."""
        return 1 if self.verdict == FAIL else 0


def gate_of(raw: Mapping[str, Any] | GateModel | None) -> GateModel | None:
    """A gate from a suite's ``gate:`` block or a run's ``settings.gate``; None when there is none.

    Raises:
        GateError: the block is not a valid gate; the message says which key.
    """
    if raw is None or isinstance(raw, GateModel):
        return raw
    try:
        return GateModel.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise GateError(f"gate: {problems}") from None


def check_gate_names(gate: GateModel, metrics: Sequence[Metric], datasets: Sequence[str] | None = None) -> None:
    """Refuse a gate that names something it cannot check, listing what it can.

    Guardrails are not refused here: one whose metric the run lacks fails closed (a FAIL that says so).

    Raises:
        GateError: an unknown metric or dataset name.
    """
    allowed = ["score", *(m.name for m in metrics), "errors", "cost", "time", "pass_rate"]
    named = [n for n in gate.minimum if n != "datasets"] + list(gate.regression)
    per_dataset = gate.minimum.get("datasets")
    if isinstance(per_dataset, dict):
        for dataset, limits in per_dataset.items():
            if datasets is not None and dataset not in datasets:
                raise GateError(f"gate: minimum.datasets names {dataset!r}; the datasets are {', '.join(datasets)}")
            named += list(limits)
    unknown = [n for n in dict.fromkeys(named) if n not in allowed]
    unknown += [n for n in gate.regression if n == "pass_rate"]  # no paired value per case to compare
    if unknown:
        raise GateError(f"gate: cannot check {', '.join(map(repr, unknown))}: allowed names are {', '.join(allowed)}")
    repeated = [n for n in gate.regression if any(m.name == n for m in metrics if isinstance(m, RepeatMetric))]
    if repeated:
        raise GateError(
            f"gate: regression: {', '.join(map(repr, repeated))} is a repeat metric, with no paired value per result "
            "to compare with a baseline; give it a floor under minimum: instead (e.g. minimum: {'pass^3': 0.9})"
        )


def evaluate(
    candidate: Run | StoredRun,
    gate: GateModel | None,
    *,
    contender: str | None = None,
    baseline: Run | StoredRun | None = None,
    baseline_contender: str | None = None,
    baseline_why: str | None = None,
    B: int = 1000,  # noqa: N803
    seed: int = 0,
) -> GateReport:
    """Run a gate on one contender of a candidate run (see the module docstring).

    Args:
        candidate: the run to judge.
        gate: the suite's gate; None: :data:`DEFAULT_GATE`.
        contender: which contender; none: the only one, else the run's top-ranked (said in the notes).
        baseline: the run to compare with for regression checks; none: they are skipped (said in the notes).
        baseline_contender: which contender of the baseline; none: the same id, else the only one, else
            the baseline's top-ranked.
        baseline_why: how the baseline was chosen, or why there is none (a note of the report).

    Raises:
        GateError: the gate cannot decide.
    """
    head = header_of(candidate)
    notes = [] if gate is not None else [DEFAULT_GATE_TEXT]
    gate = gate or DEFAULT_GATE
    metric_set = metric_set_of(candidate)
    metrics = metric_set.metrics  # macro-F1 of a classification scorer is checked like any metric
    check_gate_names(gate, metrics, sorted(head.info.provenance.get("dataset_hashes") or {}) or None)
    table = rank_run(candidate, head.info.weights, ci=False, metric_set=metric_set)
    chosen, why = choose_contender(table, [c.id for c in head.contenders], contender, "run " + head.info.id)
    if why:
        notes.append(why)
    excluded = _flaky_excluded(gate, candidate, chosen, notes)
    if excluded:
        kept = Filters(exclude_cases=frozenset(excluded))
        table = rank_run(candidate, head.info.weights, kept, ci=False, metric_set=metric_set)
    checks = _minimum_checks(gate, candidate, table, chosen, metric_set, excluded)
    comparison = None
    base_chosen = None
    base_row = None
    if not gate.needs_baseline and baseline is not None:
        # Reported as no baseline at all: naming one without its contender read as "contender None".
        notes.append(
            "the gate has no regression checks or must_not_* guardrails: "
            f"baseline run {_run_id(baseline)} is not compared"
        )
        baseline = None
    elif gate.needs_baseline and baseline is None:
        because = f" ({baseline_why})" if baseline_why else ""
        notes.append(
            f"no baseline{because}: regression checks and must_not_* guardrails skipped "
            "(pin one with evalcore baseline set RUN_ID)"
        )
    elif baseline is not None:
        if baseline_why:
            notes.append(f"baseline run {_run_id(baseline)}: {baseline_why}")
        base_head = header_of(baseline)
        base_table = rank_run(baseline, base_head.info.weights, ci=False)
        base_ids = [c.id for c in base_head.contenders]
        wanted = baseline_contender or (chosen if chosen in base_ids else None)
        base_chosen, why = choose_contender(base_table, base_ids, wanted, "baseline " + base_head.info.id)
        if why:
            notes.append(why)
        base_row = _row(base_table, base_chosen)
        if gate.regression:
            try:
                comparison = compare(baseline, candidate, {base_chosen: chosen}, B=B, seed=seed)
            except CompareError as exc:
                raise GateError(f"cannot compare with the baseline: {exc}") from None
            if isinstance(candidate, StoredRun):
                from evalcore.analysis.decisions.flaky import flaky_note, mark_flaky

                comparison = mark_flaky(comparison, candidate, candidate.store)
                notes += [n for n in [flaky_note(comparison)] if n]
            notes += _comparison_notes(comparison)
            checks += _regression_checks(gate, comparison)
    checks += _guardrail_checks(gate, _row(table, chosen), base_row if baseline is not None else None, metrics)
    if baseline is not None:
        notes += support_drift(metrics, partial(_value, _row(table, chosen)), partial(_value, base_row))
    if not checks:
        because = f" ({baseline_why})" if baseline_why else ""
        raise GateError(
            f"nothing to check: the gate has only regression checks and there is no baseline{because} "
            "(pin one with evalcore baseline set RUN_ID, or pass --baseline)"
        )
    return GateReport(head.info.id, chosen, _run_id(baseline), base_chosen, checks, notes, comparison, excluded)


def _flaky_excluded(
    gate: GateModel, candidate: Run | StoredRun, contender: str, notes: list[str]
) -> list[tuple[str, str]]:
    """With ``flaky: exclude``, the contender's flaky cases by the store's history (said in ``notes``)."""
    if gate.flaky != "exclude":
        return []
    if not isinstance(candidate, StoredRun):
        notes.append("flaky: exclude: a run file has no stored history to tell flaky cases by; nothing excluded")
        return []
    from evalcore.analysis.decisions.flaky import run_flaky

    found = sorted((d, c) for (who, d, c) in run_flaky(candidate.store, candidate.id) if who == contender)
    named = ", ".join(f"{d}/{c}" for d, c in found) or "none found"
    notes.append(f"flaky: exclude: flaky cases left out of the minimum and guardrail checks: {named}")
    return found


def _run_id(run: Run | StoredRun | None) -> str | None:
    return None if run is None else header_of(run).info.id


def choose_contender(table: pd.DataFrame | None, ids: list[str], wanted: str | None, where: str) -> tuple[str, str]:
    """The contender to judge, and a note saying how it was chosen when the user did not name it: ``wanted``,
    else the only one, else the top-ranked row of ``table`` (the run's ranked leaderboard; only read then).

    Raises:
        GateError: ``wanted`` is not one of ``ids``, or there is nothing to choose from.
    """
    if wanted is not None:
        if wanted not in ids:
            raise GateError(f"{where} has no contender {wanted!r}; it has {', '.join(ids)}")
        return wanted, ""
    if len(ids) == 1:
        return ids[0], ""
    if table is None or not len(table):
        raise GateError(f"{where} has no result to judge")
    top = str(table.iloc[0]["contender"])
    return top, f"{where}: judging its top-ranked contender {top} (choose another with --contender)"


def _comparison_notes(comparison: Comparison) -> list[str]:
    notes = []
    if comparison.changed_datasets:
        notes.append(
            f"datasets changed since the baseline: {', '.join(comparison.changed_datasets)}; "
            f"compared the {comparison.shared_cases} shared cases, left out {comparison.left_out_cases}"
        )
    elif comparison.left_out_cases:
        notes.append(f"compared the {comparison.shared_cases} shared cases, left out {comparison.left_out_cases}")
    return notes


def _direction(name: str, metrics: Sequence[Metric]) -> bool:
    """Whether higher is better for ``name``."""
    if name in ("errors", "cost", "time"):
        return False
    return next((m.higher_is_better for m in metrics if m.name == name), True)


def _minimum_checks(
    gate: GateModel,
    run: Run | StoredRun,
    table: pd.DataFrame,
    contender: str,
    metric_set: MetricSet,
    excluded: Sequence[tuple[str, str]] = (),
) -> list[Check]:
    metrics = metric_set.metrics
    checks = []
    overall = _row(table, contender)
    for name, limit in gate.minimum.items():
        if name == "datasets":
            continue
        checks.append(_limit_check(name, "all", _value(overall, name), _as_limit(limit, name, metrics)))
    if gate.errors is not None:
        rate = _value(overall, "errors")
        failed = not rate <= gate.errors.max_rate
        checks.append(
            Check(
                "errors",
                "errors",
                "all",
                rate,
                f"≤ {_points(gate.errors.max_rate)}",
                (FAIL if gate.errors.level == "fail" else WARN) if failed else PASS,
                "error rate: errors / results",
            )
        )
    per_dataset = gate.minimum.get("datasets")
    if isinstance(per_dataset, dict) and per_dataset:
        kept = Filters(exclude_cases=frozenset(excluded)) if excluded else None
        weights = header_of(run).info.weights
        by_dataset = rank_run(run, weights, kept, by_dataset=True, ci=False, metric_set=metric_set)
        for dataset, limits in per_dataset.items():
            part = by_dataset[by_dataset["dataset"] == dataset]
            row = _row(part, contender)
            for name, limit in limits.items():
                checks.append(_limit_check(name, dataset, _value(row, name), _as_limit(limit, name, metrics)))
    return checks


def _row(table: pd.DataFrame, contender: str) -> pd.Series | None:
    rows = table[table["contender"] == contender]
    return rows.iloc[0] if len(rows) else None


def _value(row: pd.Series | None, name: str) -> float:
    """A leaderboard value of a row; ``errors`` as a rate (errors / results)."""
    if row is None:
        return float("nan")
    if name == "errors":
        return float(row["errors"]) / float(row["cases"]) if row["cases"] else float("nan")
    value = row.get(name)
    return float("nan") if value is None or pd.isna(value) else float(value)


def _as_limit(limit: float | LimitModel | dict, name: str, metrics: Sequence[Metric]) -> LimitModel:
    if isinstance(limit, LimitModel):
        return limit
    if isinstance(limit, dict):
        raise GateError(f"gate: minimum.{name}: give a number or {{min: ...}} / {{max: ...}}")
    return LimitModel(min=limit) if _direction(name, metrics) else LimitModel(max=limit)


def _limit_check(name: str, scope: str, value: float, limit: LimitModel) -> Check:
    bad = FAIL if limit.level == "fail" else WARN
    if np.isnan(value):
        return Check("minimum", name, scope, value, _limit_text(name, limit), bad, "no value: nothing scored")
    ok = value >= limit.min if limit.min is not None else value <= limit.max  # type: ignore[operator]
    return Check("minimum", name, scope, value, _limit_text(name, limit), PASS if ok else bad)


def _limit_text(name: str, limit: LimitModel) -> str:
    bound = limit.min if limit.min is not None else limit.max
    sign = "≥" if limit.min is not None else "≤"
    return f"{sign} {format_value(name, float(bound))}"  # type: ignore[arg-type]


def _guardrail_checks(
    gate: GateModel, row: pd.Series | None, base_row: pd.Series | None, metrics: Sequence[Metric]
) -> list[Check]:
    """Each rule of each guardrail as a check: PASS, or FAIL on a breach (never only a warning)."""
    baseline = partial(_value, base_row) if base_row is not None else None
    declared = ["score", *(m.name for m in metrics), "errors", "cost", "time", "pass_rate"]
    found = guardrail_results(gate.guardrails, partial(_value, row), baseline, declared)
    return [Check("guardrail", g.name, "all", g.value, g.rule, PASS if g.ok else FAIL, g.detail) for g in found]


def _regression_checks(gate: GateModel, comparison: Comparison) -> list[Check]:
    pair = comparison.pairs[0]
    checks = []
    for name, rule in gate.regression.items():
        change = pair.change(name)
        if change is None or change.verdict == "no data":
            checks.append(
                Check("regression", name, "all", float("nan"), _tolerance_text(name, rule), FAIL, "no paired values")
            )
            continue
        worse = -change.diff if change.higher_is_better else change.diff
        if rule.relative:
            worse = worse / abs(change.base) if change.base else (np.inf if worse > 0 else 0.0)
        worse = 0.0 if abs(worse) < 1e-12 else worse  # no "-0.0 pts"
        too_much = worse > rule.tolerance + 1e-12
        significant = change.p_value < rule.alpha
        failed = too_much and (significant or not rule.significant)
        detail = f"base {format_value(name, change.base)} → {format_value(name, change.candidate)}"
        if rule.significant:
            detail += f", p = {change.p_value:.3f} ({change.method})"
            if too_much and not significant:
                detail += ": beyond the tolerance but not significant"
        more = change.more_cases if rule.significant and too_much and not significant else None
        status = (FAIL if rule.level == "fail" else WARN) if failed else PASS
        checks.append(Check("regression", name, "all", worse, _tolerance_text(name, rule), status, detail, more))
    return checks


def _tolerance_text(name: str, rule: RegressionModel) -> str:
    amount = f"{100 * rule.tolerance:g}%" if rule.relative else format_value(name, rule.tolerance, delta=True)
    return f"≤ {amount} worse" + (f" (counts if p < {rule.alpha:g})" if rule.significant else "")


def _points(value: float) -> str:
    return f"{100 * value:.1f}%"
