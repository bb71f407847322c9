"""``llm_judge``: a model (or a panel of models) scores free-text answers against a rubric.

.. code-block:: yaml

    scorers:
      - name: llm_judge
        options:
          model: [fake/judge, fake/judge-strict]   # a litellm id, or a list: a panel
          rubric: Does the answer solve the customer's problem using only the policy text?
          dimensions: [correct, grounded, tone]    # each a metric in 0..1
          scale: [1, 5]                            # what the judge gives, mapped to 0..1 (default [0, 1])
          reference: expected                      # the judge sees the expected answer; or none
          samples: 1                               # judge calls per judge and result, averaged
          disagreement_threshold: 0.5              # a panel only: flag a result whose judges spread this much
          examples: judges/aligned.yaml            # few-shot examples people graded (evalcore judge align)

Metrics: one per dimension (the mean over judges and samples), ``judge_score`` (the mean of the dimensions;
primary unless ``primary: <dimension>`` says otherwise) and, for a panel, ``judge_disagreement``: the spread
(max - min) of the judges' own ``judge_score``, where a human should look. With ``disagreement_threshold``,
``judge_flagged`` is 1 for a result whose spread is at least the threshold and 0 otherwise: its mean on the
leaderboard is the share of flagged results, the ones a person should review (the Rate page can put them first).

The judge scores in the run's async path (:meth:`LlmJudge.ascore`): its calls go through the run's provider
layer (:class:`~evalcore.scoring.client.Client`) with the run's timeout and retries, and their tokens and cost
are summed apart from the contender's. Everything it did is kept in the result's ``diagnostics["judge"]``: per
judge its model, prompt (``messages``), the prompt's ``key`` (:func:`~evalcore.scoring.judge_prompt.verdict_key`)
and each call's raw reply, verdict, reasoning, tokens, cost, latency and attempts, plus the totals. A reply that
is not a verdict, or a judge call that fails after its retries, makes the result an error of kind ``judge``
(:class:`JudgeFailed`), never a 0.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from evalcore.core.errors import CallFailed, ConfigError, EvalcoreError
from evalcore.core.records import RESERVED_NAMES, Case, Metric, Run
from evalcore.models.breaker import EndpointUnreachable
from evalcore.models.fakes import FakeProvider
from evalcore.scoring._base import Scored
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.client import UNJUDGED_PREFIX, Client, JudgeModel, NotCalled
from evalcore.scoring.judge_prompt import Example, VerdictError, judge_messages, parse_verdict, verdict_key
from evalcore.scoring.scorer_set import NAME
from evalcore.suite.settings import secret_settings_problem

JUDGE_KIND = "judge"
#: The key of a judge's record in a result's diagnostics.
DIAGNOSTICS_KEY = "judge"
DEFAULT_RUBRIC = "Is the answer correct, complete and helpful for the question asked?"
JSON_FORMAT = {"type": "json_object"}
#: The description of a panel's ``judge_flagged`` metric: how a run's metrics say which of them flag results
#: for review (the scorer's set keeps it when it renames the metric).
FLAGGED_DESCRIPTION = "judge panel: 1 when the judges' scores spread by at least the disagreement_threshold"
#: A spread this far below the threshold is float noise, not a miss (0.3 - 0.1 is 0.19999999999999998).
SPREAD_TOLERANCE = 1e-9
#: Tokens of a verdict's ``reasoning`` when none was seen yet (about 60 words), and of each dimension's score.
REASONING_TOKENS = 80
TOKENS_PER_DIMENSION = 8
_WHERE = "evalcore.yaml: scorers: llm_judge.options"


class JudgeFailed(CallFailed):
    """A judge gave no verdict: the result is an error of kind ``judge``; ``diagnostics`` keeps what it did."""

    def __init__(self, message: str, diagnostics: dict[str, Any], attempts: int = 1):
        super().__init__(JUDGE_KIND, message, attempts=attempts)
        self.diagnostics = diagnostics


class LlmJudge:
    """The ``llm_judge`` scorer (see the module docstring for its options)."""

    name = "llm_judge"

    def __init__(
        self,
        model: str | list[str],
        rubric: str = DEFAULT_RUBRIC,
        dimensions: list[str] | None = None,
        scale: list[float] | None = None,
        reference: str = "expected",
        samples: int = 1,
        settings: dict[str, Any] | None = None,
        api_base: str | None = None,
        primary: str = "judge_score",
        disagreement_threshold: float | None = None,
        examples: str | list[dict[str, Any]] | None = None,
        suite_dir: Path | None = None,
    ):
        self.models = _models(model)
        if not isinstance(rubric, str) or not rubric.strip():
            raise ConfigError(f"{_WHERE}.rubric: give the rubric as text")
        self.rubric = rubric
        self.dimensions = _dimensions(dimensions if dimensions is not None else ["correct"])
        self.scale = _scale(scale if scale is not None else [0, 1])
        if reference not in ("expected", "none"):
            raise ConfigError(f"{_WHERE}.reference: {reference!r} is not one of ['expected', 'none']")
        self.reference = reference == "expected"
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
            raise ConfigError(f"{_WHERE}.samples: {samples!r} is not a whole number >= 1")
        self.samples = samples
        self.settings = dict(settings or {})
        secret = secret_settings_problem(self.settings)
        if secret:
            raise ConfigError(f"{_WHERE}.settings.{secret}")
        for m in self.models:  # a fake judge is checked here; a litellm id only when called (no import at load)
            refusal = FakeProvider().refusal(m, self.settings) if m.startswith("fake/") else None
            if refusal:
                raise ConfigError(f"{_WHERE}.model: {refusal}")
        self.api_base = api_base
        names = [*self.dimensions, "judge_score"]
        if primary not in names:
            raise ConfigError(f"{_WHERE}.primary: {primary!r} is not one of {names}")
        self.metrics = [Metric(d, f"judge: {d}, 0..1", primary=d == primary) for d in self.dimensions]
        self.metrics.append(Metric("judge_score", "judge: mean of the dimensions", primary=primary == "judge_score"))
        if len(self.models) > 1:
            self.metrics.append(
                Metric("judge_disagreement", "spread of the judges' scores (max - min)", higher_is_better=False)
            )
        self.threshold = _threshold(disagreement_threshold, self.models)
        if self.threshold is not None:
            self.metrics.append(Metric("judge_flagged", FLAGGED_DESCRIPTION, higher_is_better=False))
        self.examples = load_examples(examples, suite_dir)
        #: Stored judge records by :func:`verdict_key`, reused instead of calling (``evalcore rescore --judge-cache``).
        self.cache: Mapping[str, dict[str, Any]] = {}

    @property
    def judge_models(self) -> list[JudgeModel]:
        """The judges this scorer asks about every result, with their calls per result and expected reply size."""
        reply = REASONING_TOKENS + TOKENS_PER_DIMENSION * len(self.dimensions) + 10
        return [JudgeModel(m, self.settings, self.api_base, self.samples, reply) for m in self.models]

    def score(self, case: Case, parsed: Parsed, context: Context) -> Scored:
        """A judge needs a model: it scores only in a run (:meth:`ascore`)."""
        raise EvalcoreError("llm_judge asks a model, so it scores only in a run (evalcore run / rescore)")

    def use_cache(self, records: Mapping[str, dict[str, Any]]) -> None:
        """Reuse these stored judge records (by prompt key) instead of asking the judge again."""
        self.cache = records

    async def ascore(self, case: Case, parsed: Parsed, context: Context, client: Client) -> Scored:
        """Ask every judge ``samples`` times about the output; the metrics and the judge record.

        Raises:
            JudgeFailed: a judge's reply is not a verdict, or its call failed after retries. When a judge was not
                called (the budget cap, an open circuit breaker) or its endpoint could not be reached, the message
                begins with :data:`~evalcore.scoring.client.UNJUDGED_PREFIX`: a resume judges the reply again.
        """
        messages = judge_messages(
            self.rubric, self.dimensions, self.scale, case, parsed.output, self.reference, self.examples
        )
        judged = await asyncio.gather(*(self._judge(model, messages, client) for model in self.models))
        record = _record(judged)
        unjudged = [j["unjudged"] for j in judged if "unjudged" in j]
        if unjudged:
            attempts = sum(j["attempts"] for j in judged)
            raise JudgeFailed(UNJUDGED_PREFIX + unjudged[0], {DIAGNOSTICS_KEY: record}, attempts)
        failures = [j["error"] for j in judged if "error" in j]
        if failures:
            attempts = sum(j["attempts"] for j in judged)
            raise JudgeFailed(failures[0], {DIAGNOSTICS_KEY: record}, attempts)
        return Scored(self._metrics(judged), {DIAGNOSTICS_KEY: record})

    def _metrics(self, judged: list[dict[str, Any]]) -> dict[str, float | None]:
        per_judge = [j["scores"] for j in judged]
        metrics: dict[str, float | None] = {d: _mean(s[d] for s in per_judge) for d in self.dimensions}
        metrics["judge_score"] = _mean(metrics[d] or 0.0 for d in self.dimensions)
        if len(judged) > 1:
            overall = [_mean(s[d] for d in self.dimensions) for s in per_judge]
            spread = max(overall) - min(overall)
            metrics["judge_disagreement"] = spread
            if self.threshold is not None:
                metrics["judge_flagged"] = 1.0 if spread >= self.threshold - SPREAD_TOLERANCE else 0.0
        return metrics

    async def _judge(self, model: str, messages: list[dict[str, str]], client: Client) -> dict[str, Any]:
        key = verdict_key(model, messages)
        stored = self.cache.get(key)
        if stored is not None and len(stored.get("calls", [])) >= self.samples:
            calls = [dict(c, cached=True) for c in stored["calls"][: self.samples]]
        else:
            calls = list(await asyncio.gather(*(self._call(model, messages, client) for _ in range(self.samples))))
        judge: dict[str, Any] = {"model": model, "key": key, "messages": messages, "calls": calls}
        judge["attempts"] = sum(c["attempts"] for c in calls if not c.get("cached"))
        missed = next((c for c in calls if "unjudged" in c), None)
        if missed is not None:
            judge["unjudged"] = f"judge {model}: {missed['unjudged']}"
        bad = next((c for c in calls if "error" in c), None)
        if bad is not None:
            judge["error"] = f"judge {model}: {bad['error']}"
            return judge
        judge["scores"] = {d: _mean(c["scores"][d] for c in calls) for d in self.dimensions}
        return judge

    async def _call(self, model: str, messages: list[dict[str, str]], client: Client) -> dict[str, Any]:
        started = time.monotonic()
        try:
            reply = await client.complete(
                messages, model=model, settings=self.settings, api_base=self.api_base, response_format=JSON_FORMAT
            )
        except CallFailed as exc:
            latency = exc.latency_s if exc.latency_s is not None else time.monotonic() - started
            # No reply, so nothing billed that the provider layer could count.
            failed = {"error": f"{exc.kind}: {exc.message}", "attempts": exc.attempts, "latency_s": latency}
            if isinstance(exc, NotCalled | EndpointUnreachable):  # says nothing of the answer: judged on resume
                failed["unjudged"] = exc.message
            return failed | {"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0}
        call: dict[str, Any] = {
            "raw": reply.text,
            "input_tokens": reply.usage.input_tokens,
            "output_tokens": reply.usage.output_tokens,
            "cost_usd": reply.usage.cost_usd,
            "latency_s": reply.latency_s,
            "attempts": reply.attempts,
        }
        if reply.cached_at is not None:  # the reply cache's: counted apart from the calls made, as a reused verdict
            call["cached"] = True
        try:
            verdict = parse_verdict(reply.text, self.dimensions, self.scale)
        except VerdictError as exc:
            call["error"] = str(exc)
            return call
        call.update(verdict=verdict.given, scores=verdict.scores, reasoning=verdict.reasoning)
        return call


def _record(judged: list[dict[str, Any]]) -> dict[str, Any]:
    """The judge record of a result: each judge's, and the totals of the calls made (not those reused)."""
    made = [c for j in judged for c in j["calls"] if not c.get("cached")]
    return {
        "judges": [{k: v for k, v in j.items() if k not in ("error", "unjudged")} for j in judged],
        "input_tokens": known_total(c.get("input_tokens") for c in made),
        "output_tokens": known_total(c.get("output_tokens") for c in made),
        "cost_usd": known_total(c.get("cost_usd") for c in made),
        "latency_s": sum(c.get("latency_s") or 0.0 for c in made),
        "attempts": sum(c.get("attempts", 0) for c in made),
        "calls": len(made),
        "cached": sum(1 for j in judged for c in j["calls"] if c.get("cached")),
    }


def stored_verdicts(run: Run) -> dict[str, dict[str, Any]]:
    """Every judge record a run holds, by prompt key, for :meth:`LlmJudge.use_cache`; those that failed are left
    out (they are asked again)."""
    found: dict[str, dict[str, Any]] = {}
    for result in run.results:
        for record in judge_records(result.diagnostics):
            for judge in record.get("judges", []):
                calls = judge.get("calls") or []
                if calls and all("scores" in c for c in calls) and isinstance(judge.get("key"), str):
                    found[judge["key"]] = judge
    return found


def judge_records(diagnostics: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The judge records in a result's diagnostics: its own ``judge`` entry (one scorer), or its scorers'
    (several scorers keep their diagnostics under their ids)."""
    if not diagnostics:
        return []
    found = []
    own = diagnostics.get(DIAGNOSTICS_KEY)
    if isinstance(own, dict) and "judges" in own:
        found.append(own)
    for value in diagnostics.values():
        nested = value.get(DIAGNOSTICS_KEY) if isinstance(value, dict) else None
        if isinstance(nested, dict) and "judges" in nested:
            found.append(nested)
    return found


def load_examples(examples: Any, suite_dir: Path | None) -> list[Example]:
    """The ``examples`` option: a list of ``{question, answer, verdict}``, or a YAML file (relative to the suite's
    folder) whose ``examples:`` key holds one, as ``evalcore judge align`` writes it.

    Raises:
        ConfigError: a missing or unreadable file, or an example without its three texts.
    """
    if examples is None:
        return []
    where = f"{_WHERE}.examples"
    if isinstance(examples, str):
        import yaml

        path = (suite_dir or Path(".")) / examples
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"{where}: {examples!r}: cannot read {path}: {exc}") from None
        examples = data.get("examples") if isinstance(data, dict) else None
        where = f"{path}: examples"
    if not isinstance(examples, list):
        raise ConfigError(f"{where}: give a list of {{question, answer, verdict}} or a file that holds one")
    found = []
    for i, item in enumerate(examples):
        keys = ("question", "answer", "verdict")
        if not isinstance(item, dict) or set(item) != set(keys) or not all(isinstance(item[k], str) for k in keys):
            raise ConfigError(f"{where}[{i}]: {str(item)[:80]!r} is not {{question, answer, verdict}}, each a text")
        found.append(Example(item["question"], item["answer"], item["verdict"]))
    return found


def _models(model: Any) -> list[str]:
    models = [model] if isinstance(model, str) else model
    if not isinstance(models, list) or not models or not all(isinstance(m, str) and m for m in models):
        raise ConfigError(f"{_WHERE}.model: give a model id (e.g. openai/gpt-4o-mini) or a list of them (a panel)")
    if len(set(models)) != len(models):
        raise ConfigError(f"{_WHERE}.model: {models} names a judge twice")
    return list(models)


def _dimensions(dimensions: Any) -> list[str]:
    if not isinstance(dimensions, list) or not dimensions:
        raise ConfigError(f"{_WHERE}.dimensions: give a list of names, e.g. [correct, grounded, tone]")
    for d in dimensions:
        taken = RESERVED_NAMES | {"judge_score", "judge_disagreement", "judge_flagged", "reasoning"}
        if not isinstance(d, str) or not NAME.match(d) or d in taken:
            raise ConfigError(
                f"{_WHERE}.dimensions: {d!r} is not a usable name ([a-z][a-z0-9_]*, not one of {sorted(taken)})"
            )
    if len(set(dimensions)) != len(dimensions):
        raise ConfigError(f"{_WHERE}.dimensions: {dimensions} repeats a name")
    return list(dimensions)


def _threshold(threshold: Any, models: list[str]) -> float | None:
    if threshold is None:
        return None
    if len(models) < 2:
        raise ConfigError(
            f"{_WHERE}.disagreement_threshold: a single judge cannot disagree; list two judges or more in model, "
            "e.g. model: [openai/gpt-4o-mini, fake/judge]"
        )
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 < threshold <= 1:
        raise ConfigError(
            f"{_WHERE}.disagreement_threshold: {threshold!r} is not a spread above 0 and at most 1 "
            "(scores are on 0..1), e.g. 0.5"
        )
    return float(threshold)


def _scale(scale: Any) -> tuple[float, float]:
    ok = isinstance(scale, list) and len(scale) == 2
    ok = ok and all(isinstance(v, int | float) and not isinstance(v, bool) for v in scale)
    if not ok or not scale[0] < scale[1]:
        raise ConfigError(f"{_WHERE}.scale: {scale!r} is not [lowest, highest], e.g. [1, 5]")
    return float(scale[0]), float(scale[1])


def _mean(values: Iterable[float | None]) -> float:
    found = [v for v in values if v is not None]
    return sum(found) / len(found) if found else 0.0


def known_total(values: Iterable[Any]) -> Any:
    """A sum that is None (unknown) when any part is unknown."""
    total = 0.0
    for v in values:
        if v is None:
            return None
        total += v
    return total
