"""The ``http`` adapter: each case is a request to an application endpoint (a RAG service, an agent, any API).

Declared in ``evalcore.yaml``; every option is checked when the suite loads (``evalcore verify``)::

    adapter:
      name: http
      options:
        url: ${RAG_URL}/ask                 # ${VAR} from the environment; ${VAR:-default}
        method: POST
        headers: {Authorization: "Bearer ${RAG_TOKEN}"}
        body: {question: "{{ input }}", top_k: "{{ settings.top_k }}"}
        output: answer.text                 # the answer's path in the JSON reply (evalcore.scoring.paths)
        usage: {input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens, cost_usd: cost}
        trace: steps                        # an agent's actions in the reply (or {path, name, arguments, ...})
        numbers: {tool_error_rate: stats.tool_errors, app_latency_s: timing.total_s}   # for the numbers scorer

The URL, header values, ``query`` values and every text of ``body`` are Jinja2 templates rendered in a
sandbox with strict undefined names (:mod:`evalcore.suite.prompts`' settings). A text that is exactly one
``{{ expression }}`` becomes the expression's value as it is (an object, a number, a list), any other text
becomes text. The reply's body is the result's ``raw``; ``parse()`` picks the answer with ``output``, and
with ``trace`` the list of actions the application's agent took, each made a ``tool`` step of the trace
contract (docs/run-file.md "trace") so the ``trajectory`` scorer scores it as it scores evalcore's own agent.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass
from typing import Any, Literal

from jinja2 import StrictUndefined, TemplateError, UndefinedError
from jinja2.sandbox import ImmutableSandboxedEnvironment
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case, Contender, Usage
from evalcore.models.http import HTTP_PREFIX
from evalcore.models.types import Reply
from evalcore.scoring.adapters import ChatAdapter, Context, ExtractAdapter, Parsed, prompt_variables
from evalcore.scoring.client import Client
from evalcore.scoring.paths import JsonPath, Missing, PathError, parse_path
from evalcore.scoring.reported_trace import TraceReader
from evalcore.suite.fieldrules import type_problems

WHERE = "evalcore.yaml: adapter.options"
#: ``${NAME}`` or ``${NAME:-default}``; ``$${`` is a literal ``${``.
_ENV = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
#: A text that is exactly one expression: its value is kept as it is.
_SINGLE = re.compile(r"^\s*\{\{(?P<expr>(?:(?!\}\}|\{\{).)*)\}\}\s*$", re.DOTALL)
_ENV_VAR = "__env__"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UsagePaths(_Strict):
    """Where the reply says what the call used; each path is optional."""

    input_tokens: str | None = None
    output_tokens: str | None = None
    cost_usd: str | None = None


class TracePaths(_Strict):
    """Where the reply lists the actions an application's agent took, and where each action keeps its parts
    (paths inside one action)."""

    #: The list of actions in the reply.
    path: str = Field(min_length=1)
    name: str = "name"
    #: An object, or a JSON text of one (parsed; kept as text when it does not parse).
    arguments: str = "arguments"
    #: What the tool returned (a text, or any JSON value, kept as JSON text); optional in each action.
    result: str = "result"
    #: The tool's error message; optional in each action.
    error: str = "error"
    #: Seconds the tool took; optional in each action.
    latency_s: str = "latency_s"


class HttpOptions(_Strict):
    """``adapter.options`` of the http adapter."""

    #: The endpoint; a template, with ``${VAR}`` from the environment.
    url: str = Field(min_length=1)
    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"] = "POST"
    headers: dict[str, str] = Field(default_factory=dict)
    #: Query parameters: each value a template.
    query: dict[str, Any] = Field(default_factory=dict)
    #: The JSON body: any JSON whose texts are templates; None: no body.
    body: Any = None
    #: The answer's path in the JSON reply; None: the whole reply (JSON, or else its text).
    output: str | None = None
    usage: UsagePaths = Field(default_factory=UsagePaths)
    #: The agent's actions in the reply (a path alone stands for ``{path: ...}``); None: the reply has no trace.
    trace: TracePaths | None = None
    #: Numbers to read beside the answer, name → path in the JSON reply: what the ``numbers`` scorer scores.
    numbers: dict[str, str] = Field(default_factory=dict)
    #: Per attempt; by default the run's ``timeout_s``.
    timeout_s: float | None = Field(None, gt=0)

    @field_validator("method", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @field_validator("trace", mode="before")
    @classmethod
    def _trace_path(cls, value: Any) -> Any:
        return {"path": value} if isinstance(value, str) else value


def _finalize(value: Any) -> Any:
    """Objects and lists print as JSON inside a text, as in prompts."""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else value


_environment = ImmutableSandboxedEnvironment(undefined=StrictUndefined, autoescape=False, finalize=_finalize)


@dataclass(frozen=True)
class _Leaf:
    """A compiled template text: its key for errors, and how to render it."""

    key: str
    render: Any
    #: Whether the value is the expression's own (not text).
    native: bool


class HttpAdapter:
    """Asks an HTTP endpoint for each case and reads the answer from its JSON reply (see the module)."""

    name = "http"
    response_format = None

    def __init__(self, **options: Any):
        try:
            self.options = HttpOptions(**options)
        except ValidationError as exc:
            raise ConfigError(_describe(exc)) from None
        self._env: list[str] = []
        self._secrets: list[str] = []
        opts = self.options
        self._url = self._compile("url", opts.url)
        self._headers = {k: self._compile(f"headers.{k}", v) for k, v in opts.headers.items()}
        self._query = {k: self._compile_json(f"query.{k}", v) for k, v in opts.query.items()}
        self._body = None if opts.body is None else self._compile_json("body", opts.body)
        self._output = _path("output", opts.output)
        self._usage = {k: parse_usage_path(k, p) for k, p in opts.usage.model_dump().items() if p is not None}
        self._trace = _trace_paths(opts.trace)
        self._numbers = {name: p for name, text in opts.numbers.items() if (p := _path(f"numbers.{name}", text))}

    def build_messages(self, case: Case, context: Context) -> list[dict[str, Any]]:
        """The case as chat messages (what a template sees as ``messages``), after checking that every template
        renders for the case: a name a template does not have is an error here, at ``evalcore verify``."""
        messages = ChatAdapter().build_messages(case, context)
        stand_in = Contender(id=f"{HTTP_PREFIX}example", model=f"{HTTP_PREFIX}example", settings=_AnySettings())
        variables = self._variables(case, context, stand_in, messages, 0)
        for leaf in self._leaves():
            try:
                leaf.render(variables)
            except (UndefinedError, TemplateError) as exc:
                raise ConfigError(f"{WHERE}.{leaf.key}: {_problem(exc)} (case {case.source or case.id})") from None
            except Exception:  # noqa: BLE001 - a stand-in setting in arithmetic; the real call renders it again
                continue
        return messages

    async def call(self, case: Case, contender: Contender, client: Client) -> Reply:
        """Send the case's request; the reply's body is the raw text :meth:`parse` reads."""
        variables = self._variables(case, client.context, contender, client.messages, client.sample)
        where = f"contender {contender.id}, case {case.dataset}/{case.id}"
        body = None if self._body is None else self._render(self._body, variables, where)
        reply = await client.http(
            self.options.method,
            str(self._render(self._url, variables, where)),
            headers={k: str(self._render(v, variables, where)) for k, v in self._headers.items()},
            params={k: self._render(v, variables, where) for k, v in self._query.items()} or None,
            json=body,
            timeout_s=self.options.timeout_s,
            secrets=tuple(self._secrets),
        )
        return Reply(text=reply.text, usage=self._reply_usage(reply.text, contender), latency_s=reply.latency_s)

    def parse(self, raw: str, context: Context) -> Parsed:
        """The answer at the ``output`` path of the JSON reply (the whole reply without one); a reply that is not
        JSON, or has nothing at the path, is unusable (a ``model`` error). With ``trace``, the actions listed in
        the reply as the trace's ``tool`` steps; none when the reply lists none (not even an empty list). With
        ``numbers``, the numbers at their paths."""
        try:
            data = json.loads(raw)
        except ValueError as exc:
            if self._output is None:
                return _answer(raw, context)
            return Parsed(output=None, problem=f"the reply is not JSON ({exc}); expected {self._output.text} in it")
        parsed = self._answer_in(data, context)
        if self._trace is not None:
            parsed.trace = self._trace.steps(data)
        if self._numbers:
            parsed.numbers = self._numbers_in(data)
        return parsed

    def _answer_in(self, data: Any, context: Context) -> Parsed:
        if self._output is None:
            return _answer(data, context)
        try:
            value = self._output.pick(data)
        except Missing as exc:
            return Parsed(output=None, problem=f"the reply has no {self._output.text}: {exc}")
        return _answer(value, context)

    def _numbers_in(self, data: Any) -> dict[str, float]:
        """The numbers at the ``numbers`` paths of the reply; a path with nothing there, or with no number (a
        text, a boolean), is left out, and the ``numbers`` scorer says the number is missing."""
        found = {}
        for name, path in self._numbers.items():
            try:
                value = path.pick(data)
            except Missing:
                continue
            if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
                found[name] = float(value)
        return found

    def _variables(
        self, case: Case, context: Context, contender: Contender, messages: list[dict[str, Any]], sample: int
    ) -> dict[str, Any]:
        return prompt_variables(case, context) | {
            "messages": messages,
            "model": contender.model,
            "target": contender.model.removeprefix(HTTP_PREFIX),
            "settings": contender.settings,
            "api_base": contender.api_base or "",
            "sample": sample,
            _ENV_VAR: self._env,
        }

    def _compile(self, key: str, text: str) -> _Leaf:
        source = self._with_env(key, text)
        try:
            single = _SINGLE.match(source)
            if single is not None:
                expression = _environment.compile_expression(single.group("expr"), undefined_to_none=False)
                return _Leaf(key, lambda variables: _defined(expression(**variables)), True)
            template = _environment.from_string(source)
        except TemplateError as exc:
            raise ConfigError(f"{WHERE}.{key}: template syntax error: {exc}") from None
        return _Leaf(key, lambda variables: template.render(variables), False)

    def _compile_json(self, key: str, value: Any) -> Any:
        if isinstance(value, str):
            return self._compile(key, value)
        if isinstance(value, dict):
            return {k: self._compile_json(f"{key}.{k}", v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._compile_json(f"{key}[{i}]", v) for i, v in enumerate(value)]
        return value

    def _with_env(self, key: str, text: str) -> str:
        """``text`` with each ``${VAR}`` made a reference to its value, read now; never parsed as a template."""

        def substitute(match: re.Match[str]) -> str:
            if match.group() == "$${":
                return "${"
            name, default = match.group(1), match.group(2)
            value = os.environ.get(name) or default
            if value is None:
                raise ConfigError(
                    f"{WHERE}.{key}: ${{{name}}} is not set in the environment. Set it (export {name}=...) "
                    f"or give a default: ${{{name}:-...}}"
                )
            if os.environ.get(name):
                self._secrets.append(value)
            self._env.append(value)
            return "{{ " + f"{_ENV_VAR}[{len(self._env) - 1}]" + " }}"

        return _ENV.sub(substitute, text)

    def _render(self, compiled: Any, variables: dict[str, Any], where: str) -> Any:
        if isinstance(compiled, _Leaf):
            try:
                return compiled.render(variables)
            except Exception as exc:
                raise ConfigError(f"{WHERE}.{compiled.key}: {_problem(exc)} ({where})") from None
        if isinstance(compiled, dict):
            return {k: self._render(v, variables, where) for k, v in compiled.items()}
        if isinstance(compiled, list):
            return [self._render(v, variables, where) for v in compiled]
        return compiled

    def _leaves(self) -> list[_Leaf]:
        found: list[_Leaf] = []

        def walk(value: Any) -> None:
            if isinstance(value, _Leaf):
                found.append(value)
            elif isinstance(value, dict):
                for item in value.values():
                    walk(item)
            elif isinstance(value, list):
                for item in value:
                    walk(item)

        walk([self._url, self._headers, self._query, self._body])
        return found

    def _reply_usage(self, text: str, contender: Contender) -> Usage:
        """The usage the reply reports at the ``usage`` paths; the cost from the contender's prices when the
        reply gives tokens but no cost."""
        if not self._usage:
            return Usage()
        try:
            data = json.loads(text)
        except ValueError:
            return Usage()
        found: dict[str, Any] = {}
        for name, path in self._usage.items():
            try:
                value = path.pick(data)
            except Missing:
                continue
            if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
                found[name] = float(value) if name == "cost_usd" else int(value)
        usage = Usage(found.get("input_tokens"), found.get("output_tokens"), found.get("cost_usd"))
        prices, tokens_in, tokens_out = contender.prices, usage.input_tokens, usage.output_tokens
        if usage.cost_usd is None and prices and tokens_in is not None and tokens_out is not None:
            usage.cost_usd = prices["input_cost_per_token"] * tokens_in + prices["output_cost_per_token"] * tokens_out
        return usage


def _trace_paths(option: TracePaths | None) -> TraceReader | None:
    if option is None:
        return None
    paths = {name: _path(f"trace.{name}", text) for name, text in option.model_dump().items()}
    path = paths.pop("path")
    assert path is not None  # every part has a path
    return TraceReader(path, {k: v for k, v in paths.items() if v is not None})


class _AnySettings(dict):
    """A contender's settings while templates are checked without one: every name has a (blank) value."""

    def __missing__(self, key: Any) -> str:
        return ""


def _answer(value: Any, context: Context) -> Parsed:
    """The output a scorer sees: with a field schema, an object (a JSON text is parsed, as the extract adapter
    does); otherwise the value, text trimmed."""
    if context.fields:
        if isinstance(value, str):
            return ExtractAdapter().parse(value, context)
        if not isinstance(value, dict):
            return Parsed(output=None, problem=f"the answer is {type(value).__name__}, not an object of fields")
        return Parsed(output=value, type_errors=type_problems(context.fields, value) or None)
    return Parsed(output=value.strip() if isinstance(value, str) else value)


def _defined(value: Any) -> Any:
    str(value)  # an undefined name raises here (StrictUndefined), as it would in a text template
    return value


def parse_usage_path(name: str, text: str) -> JsonPath:
    try:
        return parse_path(text)
    except PathError as exc:
        raise ConfigError(f"{WHERE}.usage.{name}: {exc}") from None


def _path(key: str, text: str | None) -> JsonPath | None:
    if text is None:
        return None
    try:
        return parse_path(text)
    except PathError as exc:
        raise ConfigError(f"{WHERE}.{key}: {exc}") from None


def _problem(exc: BaseException) -> str:
    if isinstance(exc, UndefinedError):
        return (
            f"undefined: {exc}. A template sees input, metadata, instructions, schema, fields, dataset, variant, "
            "id, messages, model, target, settings, api_base and sample"
        )
    return f"{type(exc).__name__}: {exc}"


def _describe(exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"]) or "(options)"
        if err["type"] == "extra_forbidden":
            models: dict[str, type[_Strict]] = {"usage": UsagePaths, "trace": TracePaths}
            model = models.get(str(err["loc"][0]), HttpOptions)
            lines.append(f"{WHERE}.{key}: unknown option. Options: {sorted(model.model_fields)}")
        elif err["type"] == "missing":
            lines.append(f"{WHERE}.{key}: required option is missing")
        else:
            lines.append(f"{WHERE}.{key}: {err['msg']} (got {err.get('input')!r})")
    return "; ".join(lines)
