"""What a run will do, decided before anything is called: contenders, refusals, cases, settings."""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any

from evalcore.core.clock import utc_now
from evalcore.core.errors import ConfigError
from evalcore.core.images import image_refs
from evalcore.core.records import CORRECTED, RANK_BY, Case, Contender, Metric, Refusal, Run, RunInfo
from evalcore.core.version import __version__
from evalcore.execution.batch_settings import BatchSettings, batch_record
from evalcore.execution.race_settings import RaceSettings, race_record
from evalcore.execution.reply_cache import SETTING as CACHE_SETTING
from evalcore.models.limits import RateLimit
from evalcore.scoring.adapters import Adapter, Context, prompt_messages
from evalcore.scoring.plugins import build_adapter, build_scorer
from evalcore.storage.runs import METADATA_SETTING
from evalcore.suite.cases import MINIMUM_SCORES, check_minimum_scores
from evalcore.suite.fingerprint import SETTING as FINGERPRINT_SETTING
from evalcore.suite.fingerprint import definition_fingerprint
from evalcore.suite.lineup import Overrides, expand_lineup, missing_api_keys, split_refused
from evalcore.suite.loader import Suite
from evalcore.suite.prompts import PROMPT_SETTING, check_prompt_names, prompts_used

Messages = list[dict[str, Any]]
#: The setting of a run that scores imported traces: the id of the imported run whose calls it scores.
TRACES_SETTING = "scores_traces_of"
CaseKey = tuple[str, str]


@dataclass
class Replay:
    """A stored run whose raw replies answer a run's calls instead of the models (``evalcore run --replay``)."""

    run: Run
    #: The run file it was read from; None when it came from the store.
    file: str | None = None


@dataclass
class RunOptions:
    """How a run proceeds; None means "as the suite says"."""

    datasets: list[str] = field(default_factory=list)
    variants: list[str] = field(default_factory=list)
    limit: int | None = None
    samples: int | None = None
    parallelism: int | None = None
    concurrency: int | None = None
    max_attempts: int | None = None
    timeout_s: float | None = None
    backoff_s: float | None = None
    revision: str | None = None
    overrides: Overrides = field(default_factory=Overrides)
    #: Answer every call from this stored run instead of the models: no network, no API key needed.
    replay: Replay | None = None
    #: The run rescores ``replay``'s stored outputs (``evalcore rescore``): its provenance says ``rescored_from``.
    rescore: bool = False
    #: The run scores ``replay``'s imported traces (``evalcore import traces.json --suite``): its cases are that
    #: run's, not the suite's, and its settings say ``scores_traces_of`` so a resume finds them again.
    traces: bool = False
    #: Reuse ``replay``'s stored judge verdicts whose judge model and prompt are unchanged (``--judge-cache``).
    judge_cache: bool = False
    #: Stop calling before the run's cost passes this many USD (``--max-cost``); 0: no cap, whatever the suite says.
    max_cost_usd: float | None = None
    #: Who launched the run from the app when signed in (``{email, name}``): its provenance says ``launched_by``.
    launched_by: dict[str, str] | None = None
    #: Race the contenders (``--adaptive``): stop calling those that cannot be the best; None: call every one.
    adaptive: RaceSettings | None = None
    #: Labels of the run (``--metadata KEY=VALUE``: a branch, a ticket): its settings say ``metadata``.
    metadata: dict[str, str] = field(default_factory=dict)
    #: Trackers to send the run to besides the suite's ``trackers:`` (``--tracker NAME``, repeatable).
    trackers: list[str] = field(default_factory=list)
    #: Reuse stored replies of identical requests (``--cache``/``--no-cache``); None: as the suite's ``run.cache``.
    cache: bool | None = None
    #: Do not reuse a stored reply older than this many seconds (``--cache-max-age``); None: the suite's, else any.
    cache_max_age_s: float | None = None
    #: Send each contender's calls through its provider's batch API (``--batch``, ``docs/batch.md``); None: not.
    batch: BatchSettings | None = None


@dataclass
class Plan:
    """Everything a run needs, checked."""

    suite: Suite
    contenders: list[Contender]
    refused: list[Refusal]
    cases: list[Case]
    samples: int
    parallelism: int
    concurrency: int
    max_attempts: int
    timeout_s: float
    backoff_s: float
    options: RunOptions
    missing_keys: dict[str, list[str]] = field(default_factory=dict)
    #: {prompt: {case key: messages}} for every prompt the contenders use, rendered (so checked) up front.
    rendered: dict[str, dict[CaseKey, Messages]] = field(default_factory=dict)
    #: The suite's rate limits by model id or API base (none under a replay, which calls nothing).
    limits: dict[str, RateLimit] = field(default_factory=dict)
    #: The run's budget cap in USD (:mod:`evalcore.execution.budget`); None: no cap.
    max_cost_usd: float | None = None
    #: The cases each contender answers, when not every one does (imported traces: each call is one model's);
    #: None: every contender answers every case.
    slots: dict[str, set[CaseKey]] | None = None

    @cached_property
    def metrics(self) -> tuple[Metric, ...]:
        """The metrics the suite's scorer declares, in its order: derived once, on first use, and read by the
        checks before the run, its stored header and the runner (which metric is primary)."""
        return tuple(build_scorer(self.suite.scorer_refs, self.suite.path).metrics)

    @property
    def replay(self) -> Replay | None:
        """The stored run that answers this plan's calls, if any."""
        return self.options.replay

    @property
    def calls(self) -> int:
        """Results the run will produce (calls before retries)."""
        if self.slots is not None:
            return sum(len(self.cases_of(c.id)) for c in self.contenders) * self.samples
        return len(self.contenders) * len(self.cases) * self.samples

    def cases_of(self, contender_id: str) -> list[Case]:
        """The cases ``contender_id`` answers: every case, unless :attr:`slots` says which."""
        if self.slots is None:
            return self.cases
        mine = self.slots.get(contender_id, set())
        return [case for case in self.cases if case.key in mine]

    def matrix(self) -> dict[str, dict[str, int]]:
        """{contender id: {dataset: calls}}."""
        found: dict[str, dict[str, int]] = {}
        for contender in self.contenders:
            per_dataset = found.setdefault(contender.id, {})
            for case in self.cases_of(contender.id):
                per_dataset[case.dataset] = per_dataset.get(case.dataset, 0) + self.samples
        return found


def make_plan(suite: Suite, options: RunOptions | None = None) -> Plan:
    """Decide contenders, refusals and cases for a run of ``suite``; calls no model."""
    options = options or RunOptions()
    run = suite.config.run
    lineup = expand_lineup(suite.config, options.overrides)
    check_prompt_names(lineup, suite.prompts, suite.path)
    cases = select_cases(suite, options)
    contenders, refused = split_refused(lineup, images=any(image_refs(c.input) for c in cases))
    if any(MINIMUM_SCORES in c.metadata for c in cases):
        plan_metrics = build_scorer(suite.scorer_refs, suite.path).metrics
        check_minimum_scores(cases, ["score", *(m.name for m in plan_metrics)])
    return Plan(
        suite=suite,
        contenders=contenders,
        refused=refused,
        cases=cases,
        samples=options.samples or run.samples,
        parallelism=options.parallelism or run.parallelism,
        concurrency=options.concurrency or run.concurrency,
        max_attempts=options.max_attempts or run.max_attempts,
        timeout_s=options.timeout_s or run.timeout_s,
        backoff_s=run.backoff_s if options.backoff_s is None else options.backoff_s,
        options=options,
        missing_keys={} if options.replay else missing_api_keys(contenders),
        rendered=_render_prompts(suite, prompts_used(contenders), cases),
        limits={} if options.replay else rate_limits(suite),
        max_cost_usd=budget_cap(options.max_cost_usd, run.max_cost_usd),
    )


def budget_cap(given: float | None, suite: float | None) -> float | None:
    """The budget cap: the option's (0 lifts the suite's), else the suite's."""
    if given is None:
        return suite
    if given < 0:
        raise ConfigError(f"--max-cost {given:g}: give a positive amount in USD, or 0 for no cap")
    return given or None


def rate_limits(suite: Suite) -> dict[str, RateLimit]:
    """The suite's ``limits:``, by model id or API base."""
    return {
        key: RateLimit(key, rpm=m.rpm, tpm=m.tpm, concurrency=m.concurrency) for key, m in suite.config.limits.items()
    }


def _render_prompts(suite: Suite, names: list[str], cases: list[Case]) -> dict[str, dict[CaseKey, Messages]]:
    contexts = suite_contexts(suite) if names else {}
    return {
        name: {c.key: prompt_messages(suite.prompts[name], c, contexts[c.dataset]) for c in cases} for name in names
    }


@dataclass
class PlanMessages:
    """The messages a run sends, built before any call: a contender's prompt's, or the adapter's own."""

    #: {prompt name, or None for the adapter's own messages: {case key: messages}}.
    by_prompt: dict[str | None, dict[CaseKey, Messages]]

    def of(self, contender: Contender, case: Case) -> Messages:
        """What ``contender`` is asked for ``case``."""
        return self.by_prompt[contender.settings.get(PROMPT_SETTING)][case.key]


def messages_sent(plan: Plan, messages: PlanMessages, contender_id: str, dataset: str, case_id: str) -> Messages:
    """The messages a contender of the plan was sent for a case (for a tracker that records prompts)."""
    contender = next(c for c in plan.contenders if c.id == contender_id)
    case = next(c for c in plan.cases if c.key == (dataset, case_id))
    return list(messages.of(contender, case))


def plan_messages(plan: Plan, adapter: Adapter, contexts: dict[str, Context]) -> PlanMessages:
    """Every message list the plan's contenders send; the adapter builds them only when one has no prompt."""
    by_prompt: dict[str | None, dict[CaseKey, Messages]] = {name: m for name, m in plan.rendered.items()}
    if any(c.settings.get(PROMPT_SETTING) is None for c in plan.contenders):
        by_prompt[None] = {c.key: adapter.build_messages(c, contexts[c.dataset]) for c in plan.cases}
    return PlanMessages(by_prompt)


def case_messages(plan: Plan, case: Case) -> dict[str | None, Messages]:
    """The messages each prompt of the plan sends for ``case``; None: the adapter's own (contenders without a
    prompt, or a plan with no contender)."""
    found: dict[str | None, Messages] = {name: by_case[case.key] for name, by_case in plan.rendered.items()}
    if not found or any(c.settings.get(PROMPT_SETTING) is None for c in plan.contenders):
        adapter = build_adapter(plan.suite.adapter_ref, plan.suite.path)
        found = {None: adapter.build_messages(case, suite_contexts(plan.suite)[case.dataset]), **found}
    return found


def select_cases(suite: Suite, options: RunOptions) -> list[Case]:
    """The suite's cases after the dataset, variant and limit choices."""
    unknown = [d for d in options.datasets if d not in suite.datasets]
    if unknown:
        raise ConfigError(
            f"--dataset {unknown[0]!r}: no such dataset in {suite.path}. Datasets: {sorted(suite.datasets)}"
        )
    names = options.datasets or list(suite.datasets)
    cases = []
    for name in names:
        chosen = [c for c in suite.datasets[name].cases if not options.variants or c.variant in options.variants]
        cases.extend(chosen[: options.limit] if options.limit else chosen)
    if not cases:
        raise ConfigError(f"{suite.path}: no case matches datasets {names} and variants {options.variants or 'any'}.")
    return cases


def suite_contexts(suite: Suite) -> dict[str, Context]:
    """What the adapter knows of each dataset: the suite's and the dataset's instructions, and its fields."""
    return {
        name: Context(
            "\n\n".join(t.strip() for t in (suite.config.instructions, d.instructions) if t and t.strip()), d.fields
        )
        for name, d in suite.datasets.items()
    }


def new_run(plan: Plan, run_id: str | None = None) -> Run:
    """The header of a run about to start: no results yet."""
    suite = plan.suite
    info = RunInfo(
        id=run_id or str(uuid.uuid4()),
        suite=suite.name,
        created_at=utc_now(),
        status="running",
        weights=suite.weights,
        settings=_settings(plan),
        provenance={
            "tool": {"name": "evalcore", "version": __version__},
            "suite_hash": suite.suite_hash,
            "dataset_hashes": {d: suite.dataset_hashes[d] for d in sorted({c.dataset for c in plan.cases})},
            "revision": plan.options.revision,
        }
        | _prompts(plan)
        | ({"replay_of": plan.replay.run.info.id} if plan.replay else {})
        | ({"rescored_from": plan.replay.run.info.id} if plan.replay and plan.options.rescore else {})
        | ({"launched_by": dict(plan.options.launched_by)} if plan.options.launched_by else {}),
    )
    return Run(
        info=info,
        metrics=list(plan.metrics),
        contenders=list(plan.contenders),
        cases=list(plan.cases),
        results=[],
        refused=list(plan.refused),
    )


def _prompts(plan: Plan) -> dict[str, Any]:
    """``{"prompts": {name: {file, sha256, text}}}`` of the prompts the contenders use, so a run file says
    exactly what was asked; nothing when they use none."""
    prompts = {}
    for name in prompts_used(plan.contenders):
        prompt = plan.suite.prompts[name]
        file = prompt.path.relative_to(plan.suite.path).as_posix()
        prompts[name] = {"file": file, "sha256": prompt.sha256, "text": prompt.text}
    return {"prompts": prompts} if prompts else {}


def _settings(plan: Plan) -> dict[str, Any]:
    o = plan.options
    return (
        {
            "suite_path": str(plan.suite.path),
            "adapter": plan.suite.adapter_ref.name,
            "scorer": plan.suite.scorer_ref.name,
            "samples": plan.samples,
            "parallelism": plan.parallelism,
            "concurrency": plan.concurrency,
            "max_attempts": plan.max_attempts,
            "timeout_s": plan.timeout_s,
            "selection": {"datasets": o.datasets, "variants": o.variants, "limit": o.limit},
            "overrides": asdict(o.overrides),
            FINGERPRINT_SETTING: definition_fingerprint(plan.suite, plan.cases),
        }
        | _gate(plan)
        | _ranking(plan)
        | _calls(plan)
        | ({"max_cost_usd": plan.max_cost_usd} if plan.max_cost_usd is not None else {})
        | _race(plan)
        | ({METADATA_SETTING: dict(o.metadata)} if o.metadata else {})
        | _cache(plan)
        | batch_record(o.batch)
    )


def _cache(plan: Plan) -> dict[str, Any]:
    """The reply cache as the run records it (``{"reply_cache": {"max_age_s": …}}``); nothing when it is off."""
    run, o = plan.suite.config.run, plan.options
    if not (o.cache if o.cache is not None else run.cache):
        return {}
    return {CACHE_SETTING: {"max_age_s": o.cache_max_age_s or run.cache_max_age_s}}


def _calls(plan: Plan) -> dict[str, Any]:
    """How the calls were made, when not plainly: the stored run a replay answers from (its id, and its file
    when it came from one), the rate limits, and the deployments of router contenders (never their keys)."""
    found: dict[str, Any] = {}
    if plan.replay is not None:
        found["replay_of"] = plan.replay.run.info.id
        if plan.replay.file is not None:
            found["replay_file"] = plan.replay.file
        if plan.options.rescore:
            found["rescore"] = True
        if plan.options.traces:
            found[TRACES_SETTING] = plan.replay.run.info.id
        if plan.options.judge_cache:
            found["judge_cache"] = True
    if plan.limits:
        found["limits"] = {key: _limit_settings(limit) for key, limit in plan.limits.items()}
    routers = {c.model: _deployments(c.router, c.model) for c in plan.contenders if c.router is not None}
    if routers:
        found["routers"] = routers
    return found


def _deployments(router: dict[str, Any], group: str) -> list[dict[str, Any]]:
    """``[{model, api_base}]`` of a router's deployments of one model group."""
    shown = []
    for deployment in router["model_list"]:
        if deployment["model_name"] == group:
            params = deployment["litellm_params"]
            shown.append({"model": params["model"], "api_base": params.get("api_base")})
    return shown


def _limit_settings(limit: RateLimit) -> dict[str, int]:
    values = {"rpm": limit.rpm, "tpm": limit.tpm, "concurrency": limit.concurrency}
    return {name: value for name, value in values.items() if value is not None}


def _ranking(plan: Plan) -> dict[str, Any]:
    """``rank_by: corrected`` when the suite ranks by the judge's score corrected by people; nothing else, so
    other runs' settings stay as they were."""
    rank_by = plan.suite.config.weighted_score.rank_by
    return {RANK_BY: rank_by} if rank_by == CORRECTED else {}


def _race(plan: Plan) -> dict[str, Any]:
    """An adaptive run's race as the run records it; nothing for a plain run."""
    if plan.options.adaptive is None:
        return {}
    return race_record(plan.options.adaptive, len(plan.cases))


def _gate(plan: Plan) -> dict[str, Any]:
    """The suite's ``gate:`` block as the run records it (``evalcore gate`` applies it to a run file too)."""
    gate = plan.suite.config.gate
    return {"gate": gate.model_dump(mode="json", exclude_none=True)} if gate is not None else {}
