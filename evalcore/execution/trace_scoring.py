"""Scoring imported production traces with a suite's scorers and judges (``evalcore import traces.json --suite``).

An imported trace run (:mod:`evalcore.runfile.importers.otlp`) holds each traced model call as a case and its
reply as a result, with no expected answer: production traffic has none. Scoring it is a rescore of that run
(:mod:`evalcore.execution.rescore`) whose cases come from the traces, not the suite: a replay answers every
call with the traced reply, so no contender is called; only the suite's judges make calls, through the run's
budget (``--max-cost``), breakers and retries, stored as any run's judge calls.

Only the scorers that never read the expected answer apply (:data:`evalcore.scoring.scorers.REFERENCE`: a
judge with ``reference: none``, ``non_empty``, ``regex_absent`` …). Each other scorer has nothing to compare
with: it is left out of the scoring run, said once in :attr:`TraceScorers.left_out`, and its metrics are
absent, never 0. The replies are read as free text (the ``chat`` adapter): that is what a trace records.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from evalcore.core.errors import ConfigError
from evalcore.core.records import RESERVED_NAMES, Run
from evalcore.execution.plan import TRACES_SETTING, Plan, Replay, RunOptions, budget_cap, rate_limits
from evalcore.scoring.plugins import build_scorer
from evalcore.scoring.scorer_set import scorer_id
from evalcore.scoring.scorers import REFERENCE, reference_free
from evalcore.suite.config import ScorerRef, WeightedScoreModel
from evalcore.suite.loader import Dataset, Suite

SETTING = TRACES_SETTING
#: The adapter traced replies are read with: a trace records the reply's text.
ADAPTER = "chat"


@dataclass
class TraceScorers:
    """A suite's scorers, split by whether they can score a reply that has no expected answer."""

    suite: Suite
    #: The entries that apply, in the suite's order.
    kept: list[ScorerRef]
    #: Each entry left out (by its id) with why: it needs an expected answer.
    left_out: dict[str, str] = field(default_factory=dict)

    @property
    def kept_ids(self) -> list[str]:
        return [_entry_id(ref, self.suite) for ref in self.kept]


def split_scorers(suite: Suite) -> TraceScorers:
    """The suite's scorers that can score traces, and why each other one cannot.

    Raises:
        ConfigError: none of the suite's scorers can (the message says what would make one able to).
    """
    kept: list[ScorerRef] = []
    left_out: dict[str, str] = {}
    for ref in suite.scorer_refs:
        built = build_scorer(ref, suite.path) if ref.name not in REFERENCE else None
        if reference_free(ref.name, ref.options, built) and ref.expected is None:
            kept.append(ref)
            continue
        scorer = built or build_scorer(ref, suite.path)
        metrics = ", ".join(m.name for m in scorer.metrics)
        use = REFERENCE.get(ref.name)
        how = (use.how() if use is not None else "declare reference_free = True on it") if ref.expected is None else ""
        left_out[_entry_id(ref, suite, scorer)] = (
            f"needs an expected answer, and traced calls have none: nothing to compare with; {metrics} absent"
            + (f" (to score traces with it, {how})" if how else "")
        )
    if not kept:
        why = "; ".join(f"{name} {text}" for name, text in left_out.items())
        raise ConfigError(
            f"{suite.path}: no scorer of suite {suite.name!r} can score traces: {why}. Add one that needs no expected "
            "answer (an llm_judge with reference: none, non_empty, regex_absent, max_chars, json_valid)"
        )
    return TraceScorers(suite, kept, left_out)


def _entry_id(ref: ScorerRef, suite: Suite, scorer: Any = None) -> str:
    if ref.id is not None or ":" not in ref.name:
        return ref.id or ref.name
    return scorer_id(None, ref.name, scorer or build_scorer(ref, suite.path))


def trace_plan(imported: Run, scorers: TraceScorers, options: RunOptions | None = None) -> Plan:
    """The plan that scores ``imported`` (a run of traced calls) with the scorers that apply.

    Args:
        imported: the imported trace run (stored, so a resume finds it).
        scorers: the suite's scorers, split (:func:`split_scorers`).
        options: how calls proceed (``max_cost_usd``, concurrency, timeout …); its replay is set here.
    """
    suite, options = scorers.suite, options or RunOptions()
    options.replay, options.rescore, options.traces = Replay(imported), True, True
    options.samples, options.datasets = 1, sorted({c.dataset for c in imported.cases})
    traced = replace(suite, config=_config(suite, scorers.kept), datasets=_datasets(imported))
    traced.dataset_hashes = dict(imported.info.provenance.get("dataset_hashes") or {})
    run = suite.config.run
    return Plan(
        suite=traced,
        contenders=list(imported.contenders),
        refused=[],
        cases=list(imported.cases),
        samples=1,
        parallelism=options.parallelism or run.parallelism,
        concurrency=options.concurrency or run.concurrency,
        max_attempts=options.max_attempts or run.max_attempts,
        timeout_s=options.timeout_s or run.timeout_s,
        backoff_s=run.backoff_s if options.backoff_s is None else options.backoff_s,
        options=options,
        limits=rate_limits(suite),
        max_cost_usd=budget_cap(options.max_cost_usd, run.max_cost_usd),
        slots=_slots(imported),
    )


def _config(suite: Suite, kept: list[ScorerRef]) -> Any:
    """The suite's configuration with only the scorers that apply, read as free text, and the weights, gate and
    pairwise judge left out where they name metrics or comparisons traces cannot have."""
    config = suite.config
    metrics = {m.name for m in build_scorer(kept, suite.path).metrics}
    weights = {k: v for k, v in config.weighted_score.weights.items() if k in metrics or k in RESERVED_NAMES}
    weighted = WeightedScoreModel.model_validate({**config.weighted_score.model_dump(), "weights": weights})
    return config.model_copy(
        update={"scorers": kept, "adapter": ADAPTER, "weighted_score": weighted, "gate": None, "pairwise": None}
    )


def _slots(imported: Run) -> dict[str, set[tuple[str, str]]]:
    """The traced calls of each model: a case is the call of one model, never asked of the others."""
    found: dict[str, set[tuple[str, str]]] = {c.id: set() for c in imported.contenders}
    for result in imported.results:
        found.setdefault(result.contender, set()).add((result.dataset, result.case))
    return found


def _datasets(imported: Run) -> dict[str, Dataset]:
    found: dict[str, Dataset] = {}
    for case in imported.cases:
        found.setdefault(case.dataset, Dataset(case.dataset, "traced calls", "", (), [])).cases.append(case)
    return found
