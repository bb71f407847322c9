"""Built-in fake models: offline, deterministic test doubles with realistic latency, tokens and prices.

They answer from the case's expected answer, so they are for demos and tests, never a measure of
any real model. Offered tools, they answer with the expected tool call(s), made wrong in their own ways.
Each draw is seeded by model, settings, case and sample (and attempt), so a run is repeatable.
``EVALCORE_FAKE_LATENCY_SCALE`` scales the simulated latency (1 = realistic, 0 = none).

======================  =========================================================================
``fake/oracle``         answers correctly; at temperature > 0.5 it slips on a field now and then
``fake/guesser``        fills in values for fields the text leaves open (hallucinates); cheap, fast
``fake/cautious``       never invents, but leaves some answerable fields null (less so at high effort)
``fake/flaky``          right when it answers, but half its calls fail transiently (retries, errors)
``fake/sloppy``         very cheap; one reply in five is not valid JSON
``fake/skill``          right on a case with the chance its ``skill`` setting gives (0..1), else wrong on every
                        field; which cases depends only on the case, the sample and ``seed`` (for races)
``fake/steady``         always wrong on a case whose metadata says ``difficulty: hard``, always right on the others
``fake/vision``         takes images: answers correctly when every image of the case came with the request
                        (it checks each one's hash), else says it was shown no image
``fake/judge``          an LLM judge: scores the answer by its overlap with the reference answer
``fake/judge-strict``   a harsher judge: the same evidence, lower scores for partial answers
``fake/judge-broken``   a judge whose reply is not JSON one time in four (an error of kind ``judge``)
``fake/judge-biased``   a pairwise judge that, one time in three, prefers whichever answer it reads first
``fake/judge-learner``  ``fake/judge``, but it grades as people did an example alike (:mod:`~.fake_learner`)
``fake/agent*``         agents in a tool loop that err in known ways (:mod:`evalcore.models.fake_agent`)
======================  =========================================================================

For free text (an expected answer that is a string), a fake answers with the expected text, unless the case
lists ``confusable`` labels (a classification demo) or ``distractors`` (sentences a worse model might say, not
backed by the case) in its metadata: then it errs as often as it does on fields, by adding a distractor
(``invent``), keeping only the first sentence (``omit``), answering with a distractor (``slip``) or stopping
two thirds of the way through (``garble``).

The fake judges read the prompt :mod:`evalcore.scoring.judge_prompt` writes: the answer between ``<answer>``
tags, the reference between ``<reference>`` tags (else the case's expected answer; with none, as for a traced
call, the question under ``## Question``) and the line naming the dimensions and the scale. ``correct`` (and any
other dimension) is how much of the reference the answer covers, ``grounded`` how much of the answer the reference
backs, ``tone`` whether it says enough (:mod:`evalcore.models.fake_judges`).
Every fake judge also answers the pairwise prompt of :mod:`evalcore.scoring.pairwise_prompt` (two answers
between ``<answer_a>`` and ``<answer_b>`` tags): the answer whose words overlap the reference more wins (a tie
when the two are within 0.05), except that a judge with a position bias sometimes picks the first one shown.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from dataclasses import dataclass
from typing import Any

from evalcore._util.suggest import did_you_mean
from evalcore.core.errors import CallFailed, ConfigError
from evalcore.core.images import image_refs, message_text, sent_images, sha256_of
from evalcore.core.records import Usage
from evalcore.core.schema import FieldSpec
from evalcore.core.toolcalls import (
    as_call_list,
    canonical_calls,
    example_value,
    field_spec_of,
    properties_of,
    tool_parameters,
)
from evalcore.models import fake_agent
from evalcore.models.fake_judges import verdict
from evalcore.models.types import NameProblem, Reply, Request

COMMON_SETTINGS = frozenset({"temperature", "max_tokens", "top_p", "seed"})
#: The setting of ``fake/skill``: its chance of answering a case right.
SKILL_SETTING = "skill"
#: Reasoning tokens a fake that takes ``reasoning_effort`` spends at ``high`` (half at ``medium``, none at ``low``).
REASONING_TOKENS_AT_HIGH = 400
#: What a fake counts an image as, in words of its prompt.
IMAGE_WORDS = 600


@dataclass(frozen=True)
class FakeSpec:
    """How one fake behaves."""

    latency_s: float
    input_cost_per_token: float
    output_cost_per_token: float
    takes_reasoning_effort: bool = False
    slip: float = 0.0  # chance a settled field comes back wrong
    invent: float = 0.0  # chance an open field comes back filled in
    omit: float = 0.0  # chance a settled field comes back null
    fail: float = 0.0  # chance an attempt fails transiently
    garble: float = 0.0  # chance the reply is not valid JSON
    judge: float = 0.0  # a judge when > 0: the power its raw scores are raised to (higher: harsher)
    first_bias: float = 0.0  # a pairwise judge's chance of preferring the answer shown first, whatever it says
    skilled: bool = False  # right or wrong on a whole case, with the chance its ``skill`` setting gives
    steady: bool = False  # right on a case unless its metadata says difficulty: hard, the same every sample
    vision: bool = False  # takes images (every judge does too: a suite's images go to its judges)
    learns: bool = False  # a judge that follows the people's verdict of a few-shot example alike
    agent: str = ""  # a fake agent when set: how it errs in a tool loop (evalcore.models.fake_agent)


FAKES: dict[str, FakeSpec] = {
    "oracle": FakeSpec(1.2, 2.5e-6, 1.0e-5, slip=0.0),
    "guesser": FakeSpec(0.5, 1.5e-7, 6.0e-7, takes_reasoning_effort=True, slip=0.04, invent=0.55),
    "cautious": FakeSpec(0.9, 1.0e-6, 4.0e-6, takes_reasoning_effort=True, omit=0.25),
    "flaky": FakeSpec(0.8, 5.0e-7, 2.0e-6, fail=0.5),
    "sloppy": FakeSpec(0.3, 5.0e-8, 2.0e-7, slip=0.08, invent=0.15, garble=0.2),
    "skill": FakeSpec(0.5, 5.0e-7, 2.0e-6, skilled=True),
    "steady": FakeSpec(0.5, 5.0e-7, 2.0e-6, steady=True),
    "vision": FakeSpec(1.0, 2.5e-6, 1.0e-5, vision=True),
    "judge": FakeSpec(0.7, 1.5e-7, 6.0e-7, judge=1.0),
    "judge-strict": FakeSpec(0.9, 1.0e-6, 4.0e-6, judge=2.0),
    "judge-broken": FakeSpec(0.4, 1.0e-7, 4.0e-7, judge=1.0, garble=0.25),
    "judge-biased": FakeSpec(0.6, 1.5e-7, 6.0e-7, judge=1.0, first_bias=1 / 3),
    "judge-learner": FakeSpec(0.6, 1.5e-7, 6.0e-7, judge=1.0, learns=True),
    "agent": FakeSpec(0.6, 1.0e-6, 4.0e-6, agent=fake_agent.RIGHT),
    "agent-skips": FakeSpec(0.4, 5.0e-7, 2.0e-6, agent=fake_agent.SKIPS),
    "agent-forbidden": FakeSpec(0.5, 5.0e-7, 2.0e-6, agent=fake_agent.FORBIDDEN),
    "agent-loops": FakeSpec(0.5, 5.0e-7, 2.0e-6, agent=fake_agent.LOOPS),
    "agent-wrong-arg": FakeSpec(0.5, 5.0e-7, 2.0e-6, agent=fake_agent.WRONG_ARG),
}


def _spec(model: str) -> FakeSpec | None:
    return FAKES.get(model.removeprefix("fake/"))


def latency_scale() -> float:
    """``EVALCORE_FAKE_LATENCY_SCALE`` as a float (default 1)."""
    try:
        return max(0.0, float(os.environ.get("EVALCORE_FAKE_LATENCY_SCALE", "1")))
    except ValueError:
        return 1.0


def _not_a_fake(model: str) -> str:
    names = sorted("fake/" + n for n in FAKES)
    return f"{model} is not a fake model{did_you_mean(model, names)} (fakes: {', '.join(names)})"


class FakeProvider:
    """Answers ``fake/<name>`` model ids."""

    def name_problem(self, model: str, api_base: str | None) -> NameProblem | None:
        """An id that names no fake is an error: no call to it can be answered."""
        return NameProblem(True, _not_a_fake(model)) if _spec(model) is None else None

    def refusal(self, model: str, settings: dict[str, Any]) -> str | None:
        spec = _spec(model)
        if spec is None:
            return _not_a_fake(model)
        for key in settings:
            takes = key in COMMON_SETTINGS or (key == "reasoning_effort" and spec.takes_reasoning_effort)
            if not takes and not (key == SKILL_SETTING and spec.skilled):
                return f"{model} does not take {key}"
        skill = settings.get(SKILL_SETTING)
        if spec.skilled and not (isinstance(skill, int | float) and not isinstance(skill, bool) and 0 <= skill <= 1):
            return f"{model} needs a {SKILL_SETTING} setting from 0 to 1 (its chance of answering a case right)"
        return None

    def missing_keys(self, model: str, api_base: str | None) -> list[str]:
        return []

    def takes_images(self, model: str) -> bool:
        """``fake/vision`` and the fake judges take images; the other fakes do not."""
        spec = _spec(model)
        return spec is not None and (spec.vision or spec.judge > 0)

    def cache_extra(self, request: Request) -> Any:
        """What a fake reads besides the request, for the reply cache's key: its case's expected answer and fields."""
        case = request.case
        return None if case is None else [case.dataset, case.id, case.expected, request.fields]

    async def complete(self, request: Request) -> Reply:
        spec = _spec(request.contender.model)
        if spec is None:
            raise CallFailed("bad_request", f"unknown fake model {request.contender.model}")
        for attempt in range(1, request.max_attempts + 1):
            rng = _rng(request, attempt)
            latency = _latency(spec, request, rng)
            await asyncio.sleep(latency)
            if rng.random() < spec.fail:
                if attempt == request.max_attempts:
                    raise CallFailed(
                        "rate_limit",
                        "fake/flaky: 429 Too Many Requests (simulated)",
                        attempts=attempt,
                        latency_s=latency,
                    )
                await asyncio.sleep(request.backoff_s * latency_scale() * rng.random())
                continue
            if spec.judge:
                text = verdict(spec, request, rng)
                return Reply(text=text, usage=_usage(spec, request, text), latency_s=latency, attempts=attempt)
            if spec.agent:
                text, calls = fake_agent.agent_answer(spec.agent, request)
                usage = _usage(spec, request, text + json.dumps(calls or ""))
                return Reply(text=text, usage=usage, latency_s=latency, attempts=attempt, tool_calls=calls)
            if "tools" in request.params:
                text, calls = _tool_answer(spec, request, _rng(request, 0))
                usage = _usage(spec, request, text + json.dumps(calls or ""))
                return Reply(text=text, usage=usage, latency_s=latency, attempts=attempt, tool_calls=calls)
            if spec.vision:
                text = _seen_answer(spec, request)
            else:
                by_case = spec.skilled or spec.steady  # right or wrong on the whole case
                text = _skilled_answer(request) if by_case else _answer(spec, request, _rng(request, 0))
            return Reply(text=text, usage=_usage(spec, request, text), latency_s=latency, attempts=attempt)
        raise AssertionError("unreachable: max_attempts >= 1")


def _rng(request: Request, attempt: int) -> random.Random:
    where = [request.case.dataset, request.case.id] if request.case else ["", ""]
    parts = [request.contender.model, request.contender.settings, *where, request.sample, attempt]
    return random.Random(json.dumps(parts, sort_keys=True, default=str))


def _effort(request: Request) -> float:
    return _effort_of(request.contender.settings)


def _effort_of(settings: dict[str, Any]) -> float:
    """0 for low effort, 1 for high; 0.5 when unset."""
    return {"low": 0.0, "minimal": 0.0, "medium": 0.5, "high": 1.0}.get(
        str(settings.get("reasoning_effort", "medium")), 0.5
    )


def reasoning_tokens(model: str, settings: dict[str, Any]) -> int:
    """The hidden reasoning tokens a fake adds to every reply's output tokens (0 for fakes that do not reason)."""
    spec = _spec(model)
    return int(REASONING_TOKENS_AT_HIGH * _effort_of(settings)) if spec and spec.takes_reasoning_effort else 0


def _temperature(request: Request) -> float:
    value = request.contender.settings.get("temperature", 0)
    return float(value) if isinstance(value, int | float) else 0.0


def _latency(spec: FakeSpec, request: Request, rng: random.Random) -> float:
    base = spec.latency_s * (1 + 1.5 * _effort(request)) if spec.takes_reasoning_effort else spec.latency_s
    return base * rng.uniform(0.6, 1.8) * latency_scale()


def _answer(spec: FakeSpec, request: Request, rng: random.Random) -> str:
    expected = request.case.expected if request.case else None
    if isinstance(expected, str) and request.case is not None:
        metadata = request.case.metadata
        return _answer_label(spec, expected, metadata.get("confusable"), metadata.get("distractors"), rng)
    if not isinstance(expected, dict) or not request.fields:
        return expected if isinstance(expected, str) else json.dumps(expected)
    heat = _temperature(request)
    care = 1 - 0.5 * _effort(request) if spec.takes_reasoning_effort else 1.0
    answer = {}
    for field in request.fields:
        answer[field.name] = _answer_field(spec, field, expected.get(field.name), rng, heat, care)
    text = json.dumps(answer, ensure_ascii=False)
    if rng.random() < spec.garble:
        return "Sure! Here is the JSON:\n" + text[: max(1, len(text) * 2 // 3)]
    return text


def _seen_answer(spec: FakeSpec, request: Request) -> str:
    """``fake/vision``'s reply: the expected answer when the request carries every image of the case (by hash)."""
    case = request.case
    wanted = {str(r.get("sha256")) for r in image_refs(case.input)} if case is not None else set()
    seen = {sha256_of(data) for data in sent_images(request.messages)}
    if not wanted or not wanted <= seen:
        return "I was shown no image." if not seen else "These are not the images of this case."
    return _answer(spec, request, _rng(request, 0))


def _skilled_answer(request: Request) -> str:
    """``fake/skill``'s reply: the expected answer when the case's draw is below its skill, else a wrong one;
    ``fake/steady``'s: the expected answer unless the case's metadata says ``difficulty: hard``.

    The draw depends on the case, the sample and the ``seed`` setting only, not on the skill: two contenders
    with the same seed err in nested ways (the more skilled one is right wherever the other is), two with
    different seeds independently.
    """
    case, settings = request.case, request.contender.settings
    where = [case.dataset, case.id] if case else ["", ""]
    key = json.dumps(["skill", *where, request.sample, settings.get("seed")], default=str)
    expected = case.expected if case else None
    if getattr(_spec(request.contender.model), "steady", False):
        right = case is None or case.metadata.get("difficulty") != "hard"
    else:
        right = random.Random(key).random() < float(settings.get(SKILL_SETTING, 0))
    if right:
        return expected if isinstance(expected, str) else json.dumps(expected)
    if isinstance(expected, str):
        return "I cannot tell."
    if not isinstance(expected, dict):
        return json.dumps(None)
    rng = random.Random(key + "wrong")
    fields: list[FieldSpec] = list(request.fields or [])
    wrong = {f.name: _invent(f, rng) if expected.get(f.name) is None else None for f in fields}
    return json.dumps(wrong, ensure_ascii=False)


def _answer_label(spec: FakeSpec, expected: str, confusable: Any, distractors: Any, rng: random.Random) -> str:
    """A text answer: the expected one, or, as often as this fake errs, a label the case lists as ``confusable``
    in its metadata (a classification demo's mistakes)."""
    options = [confusable] if isinstance(confusable, str) else confusable
    if not isinstance(options, list) or not options:
        return _answer_text(spec, expected, distractors, rng)
    mistake = spec.slip + 0.5 * spec.invent + spec.omit
    return str(rng.choice(options)) if rng.random() < mistake else expected


def _answer_text(spec: FakeSpec, expected: str, distractors: Any, rng: random.Random) -> str:
    """A free-text answer: the expected one, made worse in this fake's ways with the case's ``distractors``."""
    options = [distractors] if isinstance(distractors, str) else distractors
    if not isinstance(options, list) or not options:
        return expected
    wrong = str(rng.choice(options))
    if rng.random() < spec.slip * 2:
        return wrong
    text = expected
    if rng.random() < spec.omit * 2:
        first, dot, _ = expected.partition(". ")
        text = first + (dot.strip() or "")
    if rng.random() < spec.invent:
        text = f"{text} {wrong}"
    if rng.random() < spec.garble:  # cut off mid-answer, as a garbled JSON reply is
        text = text[: max(1, len(text) * 2 // 3)]
    return text


def _answer_field(spec: FakeSpec, field: FieldSpec, want: Any, rng: random.Random, heat: float, care: float) -> Any:
    slip = spec.slip + (0.06 if heat > 0.5 else 0.0)
    if want is None:
        invent = min(1.0, spec.invent * care * (1.3 if heat > 0.5 else 1.0))
        return _invent(field, rng) if rng.random() < invent else None
    if rng.random() < spec.omit * care:
        return None
    return _invent(field, rng) if rng.random() < slip * care else want


def _invent(field: FieldSpec, rng: random.Random) -> Any:
    if field.type == "boolean":
        return rng.random() < 0.5
    if field.type == "integer":
        return rng.randint(0, 5)
    if field.type == "number":
        return round(rng.uniform(1, 5000), 2)
    if field.type == "enum":
        return rng.choice(field.values)
    if field.type == "multi_enum":
        return rng.sample(list(field.values), k=min(len(field.values), rng.randint(1, 2)))
    return rng.choice(["Alex Morgan", "not specified", "555-0100", "123 Main St"])


def _tool_answer(spec: FakeSpec, request: Request, rng: random.Random) -> tuple[str, list[dict[str, Any]] | None]:
    """A reply to a request that offers tools: the expected call(s), as this fake gets them right or wrong.

    The guesser calls a tool where none is right, the cautious fake sometimes calls none where one is, a slip
    gives an argument another value, and a garbled reply's arguments are not valid JSON.
    """
    tools = request.params.get("tools")
    parameters = tool_parameters(tools)
    try:
        right = as_call_list(canonical_calls(request.case.expected if request.case else None, tools))
    except ConfigError:  # an expected answer that names no call evalcore can read: answer in words
        right = []
    heat = _temperature(request)
    care = 1 - 0.5 * _effort(request) if spec.takes_reasoning_effort else 1.0
    slip = spec.slip + (0.06 if heat > 0.5 else 0.0)
    if not right:
        if parameters and rng.random() < min(1.0, spec.invent * care * (1.3 if heat > 0.5 else 1.0)):
            name = next(iter(parameters))
            required = parameters[name].get("required") or list(properties_of(parameters[name]))[:1]
            properties = properties_of(parameters[name])
            invented = {p: _invent_argument(p, properties.get(p, {}), rng) for p in required if isinstance(p, str)}
            return "", [{"id": "call_0", "name": name, "arguments": json.dumps(invented)}]
        return "None of the tools fits this request, so I will answer it directly.", None
    if rng.random() < spec.omit * care:
        return "I can answer that without calling a tool.", None
    calls = []
    for i, call in enumerate(right):
        properties = properties_of(parameters.get(call["name"], {}))
        arguments = {
            k: _invent_argument(k, properties.get(k, {}), rng) if rng.random() < slip * care else v
            for k, v in call["arguments"].items()
        }
        text = json.dumps(arguments, ensure_ascii=False)
        if rng.random() < spec.garble:
            text = text[: max(1, len(text) * 2 // 3)]
        calls.append({"id": f"call_{i}", "name": call["name"], "arguments": text})
    return "", calls


def _invent_argument(name: str, schema: dict[str, Any], rng: random.Random) -> Any:
    spec = field_spec_of(name, schema)
    return _invent(spec, rng) if spec is not None else example_value(schema)


def _usage(spec: FakeSpec, request: Request, text: str) -> Usage:
    words = sum(len(message_text(m.get("content")).split()) for m in request.messages)
    words += IMAGE_WORDS * len(sent_images(request.messages))
    if "tools" in request.params:  # the tool schemas are read as part of the prompt
        words += len(json.dumps(request.params["tools"]).split())
    input_tokens = int(words * 1.35) + 12
    reasoning = reasoning_tokens(request.contender.model, request.contender.settings)
    output_tokens = max(1, len(text) // 4) + reasoning
    cost = input_tokens * spec.input_cost_per_token + output_tokens * spec.output_cost_per_token
    prices = request.contender.prices
    if prices:
        cost = input_tokens * prices["input_cost_per_token"] + output_tokens * prices["output_cost_per_token"]
    return Usage(input_tokens=input_tokens, output_tokens=output_tokens, cost_usd=round(cost, 12))
