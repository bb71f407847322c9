"""``evalcore judge align``: a judge given few-shot examples where it disagreed with people, measured on held-out
ratings, written as a new judge only when it is better by more than the noise.

The items are the run's replies people rated alone (single ratings, several raters averaged) that the judge
judged: people's label ``pass`` when their mean value is at least 0.5, the judge's ``pass`` when its judged metric
is. Cross-validated (:mod:`evalcore.analysis.people.alignment`): per fold, examples are chosen from the other
folds' disagreements and the aligned judge (the suite's ``llm_judge`` with those ``examples``) is asked about the
fold's items through the run's judge call path (:class:`~evalcore.execution.judge_calls.JudgeCalls`: circuit
breaker, the suite's ``limits:``, the budget cap ``--max-cost``, the suite's prices). The judge "before" is its
stored verdict, or with ``--rejudge-before`` a fresh call with the judge as it is (so a judge model that changed
since the run is not credited to the alignment). With ``--rewrite-rubric MODEL``, that model also rewrites the
judge's rubric from each fold's examples (one call per fold, and one for the judge written), through the same
guard.

Nothing is written from partial data: when any held-out item could not be judged (an endpoint down, a reply
that is not a verdict, the budget cap), the outcome is ``incomplete`` and no judge file is written.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from evalcore.analysis.people.alignment import AlignmentReport, alignment_report, assign_folds, pick_examples
from evalcore.analysis.people.human import human_value, rated_dimension
from evalcore.core.errors import CallFailed, ConfigError
from evalcore.core.images import text_input
from evalcore.core.records import Case, Contender, Rating, Result, Run
from evalcore.execution.budget import Budget
from evalcore.execution.estimate import prices_of
from evalcore.execution.judge_calls import JudgeCalls, judge_contender
from evalcore.execution.plan import rate_limits
from evalcore.models.breaker import Breakers
from evalcore.models.limits import Limits
from evalcore.models.registry import get_provider
from evalcore.models.types import Request
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.client import Client, JudgeModel
from evalcore.scoring.judge import JSON_FORMAT, LlmJudge
from evalcore.scoring.judge_prompt import Example, VerdictError, parse_rubric, prompt_text, rubric_messages
from evalcore.scoring.plugins import build_scorer
from evalcore.scoring.scorer_set import NAME
from evalcore.suite.loader import Suite

log = logging.getLogger(__name__)
Status = Literal["aligned", "not better", "incomplete"]
Key = tuple[str, str, int, str]
#: Where the aligned judge's file goes, in the suite's folder.
JUDGES_FOLDER = "judges"


@dataclass
class AlignOptions:
    """How to align (the command's options)."""

    judge: str | None = None
    shots: int = 4
    folds: int = 5
    seed: int = 0
    max_cost: float | None = None
    name: str | None = None
    rewrite_rubric: str | None = None
    rejudge_before: bool = False
    concurrency: int = 4
    timeout_s: float = 60.0
    max_attempts: int = 3


@dataclass
class Item:
    """One rated, judged reply."""

    key: Key
    case: Case
    output: Any
    human: str
    before: str
    #: Every rating of it came in a random draw (not put first because judges disagreed).
    random: bool = True


@dataclass
class AlignOutcome:
    """What the alignment did.

    Attributes:
        status: ``aligned`` (better by more than the noise, written), ``not better`` (nothing written) or
            ``incomplete`` (some held-out items could not be judged: nothing measured, nothing written).
        report: the before/after report (None when incomplete).
        written: the aligned judge's file, when written.
        message: one line for the user.
        judged: held-out items the aligned judge gave a verdict on.
        items: held-out items in all.
        spent_usd: what the judge calls cost.
    """

    status: Status
    message: str
    report: AlignmentReport | None = None
    written: Path | None = None
    judged: int = 0
    items: int = 0
    spent_usd: float = 0.0
    entry: dict[str, Any] = field(default_factory=dict)
    #: The aligned judge to write: the examples (and rubric) chosen from every rated item.
    final: LlmJudge | None = None


def chosen_judge(suite: Suite, wanted: str | None) -> tuple[str, LlmJudge, str]:
    """The suite's ``llm_judge`` to align: (its id, the scorer, its judged metric's name in the run).

    Raises:
        ConfigError: no ``llm_judge``, several and none named, or ``--judge`` naming none of them.
    """
    scorer = build_scorer(suite.scorer_refs, suite.path)
    members = getattr(scorer, "members", None)
    found: list[tuple[str, LlmJudge, str]] = []
    if members is None:
        if isinstance(scorer, LlmJudge):
            found.append(("llm_judge", scorer, "judge_score"))
    else:
        found += [(m.id, m.scorer, m.names["judge_score"]) for m in members if isinstance(m.scorer, LlmJudge)]
    where = suite.path / "evalcore.yaml"
    if not found:
        raise ConfigError(f"{where}: no llm_judge scorer to align; add one under scorers: (docs/judges.md)")
    if wanted is None:
        if len(found) > 1:
            raise ConfigError(
                f"{where}: {len(found)} llm_judge scorers: choose with --judge ({', '.join(f[0] for f in found)})"
            )
        return found[0]
    for entry in found:
        if wanted in (entry[0], *entry[1].models):
            return entry
    raise ConfigError(f"--judge {wanted!r} is not an llm_judge of {where}: {', '.join(f[0] for f in found)}")


def rated_items(run: Run, ratings: list[Rating], metric: str) -> list[Item]:
    """The replies people rated alone that the judge judged, in a stable order (dataset, case, sample, contender)."""
    people: dict[Key, list[float]] = defaultdict(list)
    drawn: dict[Key, bool] = {}
    dimension = rated_dimension(run, metric)
    for r in ratings:
        value = human_value(r, dimension) if r.b is None else None
        if value is not None:
            key = (r.dataset, r.case, r.sample, r.a)
            people[key].append(value)
            drawn[key] = drawn.get(key, True) and r.random
    results: dict[Key, Result] = {}
    for res in run.results:
        if res.status == "scored" and res.metrics.get(metric) is not None:
            results[(res.dataset, res.case, res.sample, res.contender)] = res
    cases = {(c.dataset, c.id): c for c in run.cases}
    items = []
    for key in sorted(set(people) & set(results)):
        res = results[key]
        judged = float(res.metrics[metric] or 0.0)
        human = "pass" if float(np.mean(people[key])) >= 0.5 else "fail"
        before = "pass" if judged >= 0.5 else "fail"
        items.append(Item(key, cases[(key[0], key[1])], res.output, human, before, drawn[key]))
    return items


def examples_of(items: list[Item], chosen: list[int]) -> list[Example]:
    """The few-shot examples of the chosen items: question, reply and the people's verdict."""
    return [
        Example(prompt_text(text_input(items[i].case.input)), prompt_text(items[i].output), items[i].human)
        for i in chosen
    ]


def align_judge(run: Run, ratings: list[Rating], suite: Suite, options: AlignOptions) -> AlignOutcome:
    """Align the suite's judge to the run's ratings (see the module docstring).

    Raises:
        ConfigError: no judge, too few rated items for the folds, or a model without a price under ``--max-cost``.
    """
    judge_id, judge, metric = chosen_judge(suite, options.judge)
    name = options.name or f"{judge_id}_aligned"
    if not NAME.match(name):  # it names a file in the suite's folder and a scorer id: nothing else
        raise ConfigError(f"--name {name!r} is not a scorer id ([a-z][a-z0-9_]*), e.g. llm_judge_aligned")
    if metric not in {m.name for m in run.metrics}:
        raise ConfigError(f"run {run.info.id} has no metric {metric!r}: it was not judged by {judge_id}")
    items = rated_items(run, ratings, metric)
    if len(items) < options.folds:
        raise ConfigError(
            f"run {run.info.id}: {len(items)} replies rated by people and judged by {judge_id}; "
            f"--folds {options.folds} needs at least {options.folds} (rate more on the Rate page)"
        )
    writer = options.rewrite_rubric
    writer_models = [JudgeModel(writer)] if writer is not None and writer not in judge.models else []
    models = [*judge.judge_models, *writer_models]
    budget = None
    if options.max_cost is not None:
        for model in models:
            if prices_of(judge_contender(suite, model)) is None:
                raise ConfigError(f"{model.model} has no known price; give it under prices: to use --max-cost")
        budget = Budget(options.max_cost, {})
    calls = JudgeCalls(suite, models, Breakers(), Limits(rate_limits(suite)), budget, lambda _: lambda *_: None)
    outcome = asyncio.run(_align(items, judge, calls, options))
    outcome.spent_usd = budget.spent_usd if budget is not None else 0.0
    if outcome.status == "aligned":
        assert outcome.report is not None and outcome.final is not None
        outcome.written, outcome.entry = write_aligned(suite, outcome.final, name, run.info.id, outcome.report)
        outcome.message = f"aligned judge written to {outcome.written}"
    return outcome


async def _align(items: list[Item], judge: LlmJudge, calls: JudgeCalls, options: AlignOptions) -> AlignOutcome:
    """Judge each fold's items with the judge aligned on the other folds; the report; the final judge when better."""
    fold = assign_folds(len(items), options.folds, options.seed)
    human = [i.human for i in items]
    before = [i.before for i in items]
    if options.rejudge_before:
        plain = copy.copy(judge)
        plain.cache = {}
        fresh = await _judge_all(items, lambda _: plain, calls, options)
        failed = [f for f in fresh if f.startswith("error: ")]
        if failed:
            why = f"{len(failed)} of {len(items)} items could not be judged again as before ({failed[0][7:]})"
            return _incomplete(why, 0, len(items))
        before = fresh
    chosen = [
        pick_examples(human, before, [j for j in range(len(items)) if fold[j] != f], options.shots, options.seed + f)
        for f in range(options.folds)
    ]
    aligned = await asyncio.gather(*(_aligned(judge, examples_of(items, c), calls, options) for c in chosen))
    after = await _judge_all(items, lambda i: aligned[int(fold[i])], calls, options)
    errors = [a for a in after if a.startswith("error: ")]
    if errors:
        return _incomplete(f"{len(errors)} of {len(items)} held-out items could not be judged ({errors[0][7:]})",
                           len(items) - len(errors), len(items))  # fmt: skip
    report = alignment_report(
        human, before, after, folds=options.folds, shots=options.shots, examples=chosen, seed=options.seed
    )
    chosen_first = sum(not i.random for i in items)
    if chosen_first:
        report.notes.append(
            f"{chosen_first} of {len(items)} items were rated because judges disagreed on them (not drawn at random): "
            "the agreement describes the rated items, not every reply of the run"
        )
    if not report.better:
        message = "the aligned judge is not better by more than the noise: nothing written"
        return AlignOutcome("not better", message, report, judged=len(items), items=len(items))
    final = examples_of(items, pick_examples(human, before, range(len(items)), options.shots, options.seed))
    judged = await _aligned(judge, final, calls, options)
    if isinstance(judged, str):
        return _incomplete(f"the final rubric could not be rewritten ({judged[7:]})", len(items), len(items))
    return AlignOutcome("aligned", "", report, judged=len(items), items=len(items), final=judged)


def _incomplete(why: str, judged: int, items: int) -> AlignOutcome:
    return AlignOutcome("incomplete", f"{why}; nothing measured, no aligned judge written", judged=judged, items=items)


async def _judge_all(
    items: list[Item], judge_of: Callable[[int], LlmJudge | str], calls: JudgeCalls, options: AlignOptions
) -> list[str]:
    """Each item's label from the judge ``judge_of`` gives it (``--concurrency`` at once); ``error: …`` where it gave
    none, or where ``judge_of`` gives an error instead of a judge (its rubric could not be rewritten)."""
    gate = asyncio.Semaphore(options.concurrency)

    async def ask(i: int) -> str:
        one = judge_of(i)
        if isinstance(one, str):
            return one
        async with gate:
            return await _judge_one(one, items[i], calls, options)

    return list(await asyncio.gather(*(ask(i) for i in range(len(items)))))


async def _aligned(
    judge: LlmJudge, examples: list[Example], calls: JudgeCalls, options: AlignOptions
) -> LlmJudge | str:
    """The judge shown ``examples`` (and, with ``--rewrite-rubric``, a rubric rewritten from them by that model);
    ``error: …`` when the rewrite gave no rubric."""
    one = copy.copy(judge)
    one.examples, one.cache = examples, {}
    if options.rewrite_rubric is None or not examples:
        return one
    caller = Contender(id="evalcore judge align", model=options.rewrite_rubric)
    request = Request(caller, [], timeout_s=options.timeout_s, max_attempts=options.max_attempts)
    session = calls.session(caller, 0.0)
    client = Client(request, get_provider(options.rewrite_rubric), Context("", ()), guard=session)
    try:
        # The judge's own model rewrites through the judge's endpoint and settings.
        own = options.rewrite_rubric in judge.models
        reply = await client.complete(
            rubric_messages(judge.rubric, examples),
            model=options.rewrite_rubric,
            settings=judge.settings if own else None,
            api_base=judge.api_base if own else None,
            response_format=JSON_FORMAT,
        )
        one.rubric = parse_rubric(reply.text)
    except (CallFailed, VerdictError) as exc:
        log.info("rubric rewrite by %s: %s", options.rewrite_rubric, exc)
        return f"error: rubric by {options.rewrite_rubric}: {getattr(exc, 'message', exc)}"
    finally:
        session.close()
    return one


async def _judge_one(judge: LlmJudge, item: Item, calls: JudgeCalls, options: AlignOptions) -> str:
    dataset, _, sample, contender = item.key
    caller = Contender(id=contender, model=contender)
    request = Request(
        caller, [], case=item.case, sample=sample, timeout_s=options.timeout_s, max_attempts=options.max_attempts
    )
    session = calls.session(caller, 0.0)
    client = Client(request, get_provider(judge.models[0]), Context("", ()), guard=session)
    try:
        scored = await judge.ascore(item.case, Parsed(item.output), Context("", ()), client)
    except CallFailed as exc:
        log.info("aligned judge: %s/%s: %s", dataset, item.key[1], exc)
        return f"error: {exc.message}"
    finally:
        session.close()
    return "pass" if float(scored.metrics.get("judge_score") or 0.0) >= 0.5 else "fail"


def write_aligned(
    suite: Suite, judge: LlmJudge, name: str, run_id: str, report: AlignmentReport
) -> tuple[Path, dict[str, Any]]:
    """Write the aligned judge's file ``judges/NAME.yaml`` in the suite's folder: its examples, where they came
    from, the report, and the scorer entry that uses it (with the rewritten rubric, if any). Returns the path and
    that entry."""
    import yaml

    options: dict[str, Any] = {
        "model": judge.models if len(judge.models) > 1 else judge.models[0],
        "rubric": judge.rubric,
        "dimensions": judge.dimensions,
        "scale": [judge.scale[0], judge.scale[1]],
        "reference": "expected" if judge.reference else "none",
        "samples": judge.samples,
        "examples": f"{JUDGES_FOLDER}/{name}.yaml",
    }
    if judge.settings:
        options["settings"] = judge.settings
    if judge.api_base:
        options["api_base"] = judge.api_base
    entry = {"name": "llm_judge", "id": name, "options": options}
    data = {
        "examples": [dataclasses.asdict(e) for e in judge.examples],
        "aligned_from": {"run": run_id, "report": report.to_data()},
        "scorer_entry": entry,
    }
    folder = suite.path / JUDGES_FOLDER
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.yaml"
    tmp = path.with_suffix(".yaml.tmp")
    tmp.write_text(
        "# Written by evalcore judge align; add scorer_entry under scorers: in evalcore.yaml to use this judge.\n"
        + yaml.safe_dump(data, sort_keys=False, allow_unicode=True),
        encoding="utf-8",
    )
    tmp.replace(path)
    return path, entry
