"""Offline checks of a suite: configuration, cases, expected answers, adapter, scorer, prompts and lineup."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from evalcore.core.errors import ConfigError, EvalcoreError
from evalcore.core.images import image_refs
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Case
from evalcore.execution.judge_calls import check_judges_take_images
from evalcore.execution.pairwise import pairwise_lines
from evalcore.execution.plan import suite_contexts
from evalcore.execution.readiness import check_weights
from evalcore.scoring.adapters import Parsed, prompt_messages
from evalcore.scoring.plugins import build_adapter, build_scorer
from evalcore.suite.lineup import expand_lineup, missing_api_keys, name_problems, split_refused
from evalcore.suite.loader import Suite, check_expected, load_suite, uses_fields
from evalcore.suite.prompts import check_prompt_names


@dataclass
class Report:
    """What ``evalcore verify`` found: ``ok`` is False when the suite cannot run."""

    ok: bool = True
    lines: list[str] = field(default_factory=list)


def verify_suite(path: str | Path) -> Report:
    """Check everything about a suite that can be checked without calling a model."""
    report = Report()
    try:
        suite = load_suite(path)
        _check_cases(suite, report)
        _check_prompts(suite, report)
        check_weights(suite)
        _check_lineup(suite, report)
        if any(image_refs(c.input) for c in suite.cases):
            check_judges_take_images(suite)
    except EvalcoreError as exc:
        report.ok = False
        report.lines.append(f"error: {exc}")
    if report.ok:
        report.lines.append("ok: the suite is ready to run")
    return report


class CaseCheck:
    """What ``evalcore verify`` checks of each case of a suite, set up once: the field schema, the adapter's
    messages and its word on the expected answer, the scorer's, and (a scorer that asks no model) whether the
    expected answer scores itself. ``evalcore generate`` drops a proposed case it finds a problem with."""

    def __init__(self, suite: Suite):
        self.suite = suite
        self.adapter = build_adapter(suite.adapter_ref, suite.path)
        #: What the adapter says about a case's expected answer (an agent's: the actions name its tools).
        self._adapter_case = getattr(self.adapter, "check_case", None)
        self.scorer = build_scorer(suite.scorer_refs, suite.path)
        self._scorer_case = getattr(self.scorer, "check_case", None)
        self.primary = next(m.name for m in self.scorer.metrics if m.primary)
        self.contexts = suite_contexts(suite)
        # A scorer whose expected answers hold rules (acceptable values, optional parts) says what a right reply is.
        self._right_output = getattr(self.scorer, "perfect_output", lambda case: case.expected)
        # A scorer of an agent's path scores a trace: it says what a right one is.
        self._right_trace = getattr(self.scorer, "perfect_trace", lambda case: None)
        #: A judge: verify calls no model, so it scores nothing.
        self.asks_model = getattr(self.scorer, "ascore", None) is not None

    def problem(self, case: Case) -> str | None:
        """What is wrong with ``case`` for this suite, or None; the adapter's messages are built on the way."""
        dataset = self.suite.datasets[case.dataset]
        if uses_fields(self.suite.config):
            try:
                check_expected(case, dataset.fields)
            except ConfigError as exc:
                return str(exc).removeprefix(f"{case.source}: ")
        self.adapter.build_messages(case, self.contexts[case.dataset])
        problem = self._adapter_case(case) if self._adapter_case is not None else None
        return problem or (self._scorer_case(case) if self._scorer_case is not None else None)

    def scores_itself(self, case: Case) -> bool | None:
        """Whether the case's expected answer scores 1 on the primary metric against itself; None for a judge."""
        if self.asks_model:
            return None
        right = Parsed(output=self._right_output(case), trace=self._right_trace(case))
        return self.scorer.score(case, right, self.contexts[case.dataset]).metrics.get(self.primary) == 1.0


def _check_cases(suite: Suite, report: Report) -> None:
    check = CaseCheck(suite)
    adapter, scorer, primary, asks_model = check.adapter, check.scorer, check.primary, check.asks_model
    check_adapter = getattr(adapter, "check_ready", None)
    if check_adapter is not None:  # what the adapter would start (an agent's MCP servers' programs)
        check_adapter()
    learn = getattr(adapter, "learn_tools", None)  # an agent's MCP servers, opened to list their tools
    if learn is not None and (unlisted := learn()) is not None:
        report.lines.append(f"note: the MCP servers' tools are not checked against the expected actions: {unlisted}")
    perfect = 0
    for dataset in suite.datasets.values():
        for case in dataset.cases:
            problem = check.problem(case)
            if problem is not None:
                raise ConfigError(f"{case.source or f'{case.dataset}/{case.id}'}: {problem}")
            perfect += bool(check.scores_itself(case))
    total = len(suite.cases)
    report.lines.append(
        f"{_counted(total, 'case')} in {_counted(len(suite.datasets), 'dataset')} "
        f"({', '.join(f'{n}: {len(d.cases)}' for n, d in suite.datasets.items())})"
    )
    aggregates = MetricSet.of(scorer.metrics).aggregates
    computed = f"; computed from the labels: {', '.join(a.name for a in aggregates)}" if aggregates else ""
    report.lines.append(
        f"adapter {adapter.name}, scorer {' + '.join(r.name for r in suite.scorer_refs)} "
        f"(metrics: {', '.join(m.name for m in scorer.metrics)}; primary {primary}{computed})"
    )
    if asks_model:
        report.lines.append(f"{primary} comes from a model (a judge): the expected answers are not scored offline")
    else:
        report.lines.append(f"the expected answers score {perfect}/{total} on {primary} against themselves")
    if suite.scorer_ref.name == "fields" and perfect != total:
        report.ok = False
        report.lines.append("error: an expected answer does not score 1 against itself; check the schema")


def _check_prompts(suite: Suite, report: Report) -> None:
    """Render every prompt for every case: the first failure of each prompt, with its file and line."""
    if not suite.prompts:
        return
    kinds = ", ".join(f"{n} ({_counted(len(p.parts), 'message')})" for n, p in suite.prompts.items())
    report.lines.append(f"prompts: {kinds}; each rendered for every case")
    contexts = suite_contexts(suite)
    cases = suite.cases
    for prompt in suite.prompts.values():
        failed: list[tuple[str, str]] = []
        for case in cases:
            try:
                prompt_messages(prompt, case, contexts[case.dataset])
            except ConfigError as exc:
                failed.append((f"{case.dataset}/{case.id}", str(exc)))
        if failed:
            report.ok = False
            where, first = failed[0]
            report.lines.append(
                f"error: {first} (case {where}; fails on {len(failed)} of {_counted(len(cases), 'case')})"
            )


def _check_lineup(suite: Suite, report: Report) -> None:
    lineup = expand_lineup(suite.config)
    check_prompt_names(lineup, suite.prompts, suite.path)
    contenders, refused = split_refused(lineup, images=any(image_refs(c.input) for c in suite.cases))
    report.lines.append(f"lineup: {_counted(len(contenders), 'contender')}, {len(refused)} refused")
    report.lines.extend(pairwise_lines(suite, [c.id for c in contenders]))
    problems = name_problems(lineup)
    for r in refused:
        if not (r.model in problems and problems[r.model].error):  # said below, as an error
            report.lines.append(f"  refused: {r.text}")
    for problem in problems.values():
        report.ok &= not problem.error
        where = f"{suite.path / 'evalcore.yaml'}: lineup"
        report.lines.append(f"{'error' if problem.error else '  warning'}: {where}: {problem.message}")
    for model, keys in missing_api_keys(contenders).items():
        report.lines.append(f"  warning: {model} needs {', '.join(keys)} in the environment to run")


def _counted(n: int, noun: str) -> str:
    """``1 case``, ``2 cases``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
