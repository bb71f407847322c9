"""promptfoo result files as evalcore runs (``docs/importing.md`` has the mapping, field by field).

The file is what ``promptfoo eval -o out.json`` and ``promptfoo export`` write (``{evalId, results, config,
shareableUrl, metadata}``, with or without ``metadata``), or the summary the Node API's ``evaluate()``
returns (``{version, timestamp, results, stats, prompts}``); results version 3 (``prompts``,
``promptIdx``/``testIdx``, ``failureReason``) and the older version 2 (``table``, no indexes, no failure
reason). A column of promptfoo's table (a provider with one prompt) is a contender, a test is a case, and a
row is a result: a row that failed with an error is an error, never a failed score.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from evalcore.core import records
from evalcore.runfile.importers import _common as common
from evalcore.runfile.importers.detect import promptfoo_summary

TOOL = "promptfoo"
#: promptfoo's failure reason (``ResultFailureReason``) for a call that failed (1 is a failed assertion).
ERRORED = 2
#: Provider settings that change what a model answers; the rest (keys, URLs, headers) stay out of the run.
GENERATION_SETTINGS = (
    "temperature",
    "top_p",
    "top_k",
    "max_tokens",
    "max_completion_tokens",
    "reasoning_effort",
    "seed",
    "frequency_penalty",
    "presence_penalty",
)
PROMPT_LABEL_CHARS = 40
UNKNOWN_PROVIDER = "unknown provider"
PASS_METRIC = records.Metric(
    "pass", "1 when the row passed all its assertions (promptfoo's success), else 0.", True, True
)
SCORE_METRIC = records.Metric(
    "assert_score", "promptfoo's score of the row: the weighted mean of its assertions' scores.", True, False
)

Progress = Callable[[int, int], None]

# The keys this importer reads, by where they sit: a reader that builds only what is imported (``_lean``)
# builds these and skips the rest (per-assertion results, raw provider responses, the table's body).
#: Of the file (a result file, or an ``evaluate()`` summary).
FILE_KEYS = ("evalId", "results", "config", "metadata", "version", "timestamp", "prompts", "stats", "table")
#: Of the summary under a result file's ``results`` (besides its rows, ``results``, and its ``table``).
SUMMARY_KEYS = ("version", "timestamp", "prompts", "stats")
#: Of a row.
ROW_KEYS = (
    "provider",
    "promptIdx",
    "testIdx",
    "vars",
    "description",
    "prompt",
    "error",
    "success",
    "score",
    "namedScores",
    "cost",
    "latencyMs",
    "failureReason",
    "testCase",
    "response",
    "gradingResult",
    "tokenUsage",
)
#: Of a row's ``response``, ``gradingResult`` and ``testCase``.
RESPONSE_KEYS = ("output", "error", "tokenUsage", "cost", "cached")
GRADING_KEYS = ("reason", "namedScores")
TEST_KEYS = ("vars", "description", "metadata", "assert")


def import_promptfoo(
    tree: dict[str, Any], stamp: common.Stamp, notes: common.Notes, on_progress: Progress | None = None
) -> records.Run:
    """The run a promptfoo result file holds.

    Args:
        tree: the file's JSON object (a result file or an ``evaluate()`` summary); its rows are consumed.
        stamp: where the file came from (its hash gives the run's id).
        notes: what the import changed (values read as null are noted there).
        on_progress: called with (rows done, rows in all) as the rows are read.
    """
    summary = promptfoo_summary(tree) or {}
    config = common.obj(tree.get("config"))
    rows = summary.get("results") or []
    suite = str(config.get("description") or "promptfoo eval")
    reader = _Rows(summary, config, dataset=str(config.get("description") or "tests"), notes=notes)
    results = []
    for i, row in enumerate(rows):
        rows[i] = None  # let each row go once read: the file's tree need not stay in memory next to the run
        if isinstance(row, dict):
            results.append(reader.result(row, i))
        if on_progress is not None and (i % 1000 == 999 or i == len(rows) - 1):
            on_progress(i + 1, len(rows))
    created = common.utc_timestamp(_metadata(tree).get("evaluationCreatedAt")) or common.utc_timestamp(
        summary.get("timestamp")
    )
    created = created or stamp.imported_at
    stats = common.obj(summary.get("stats"))
    duration_ms = stats.get("durationMs")
    finished = common.plus_seconds(created, duration_ms / 1000) if isinstance(duration_ms, int | float) else None
    info = records.RunInfo(
        id=common.run_id(TOOL, stamp.digest),
        suite=suite,
        created_at=created,
        finished_at=finished,
        status="completed",
        weights={},
        settings={
            common.IMPORT_KEY: {
                "source_counts": {
                    "passes": stats.get("successes"),
                    "failures": stats.get("failures"),
                    "errors": stats.get("errors"),
                },
                "results_version": summary.get("version"),
                "notes": notes.as_list(),
            }
        },
    )
    run = records.Run(
        info=info, metrics=reader.metrics(), contenders=reader.contenders(), cases=reader.cases(), results=results
    )
    common.sort_results(run)
    info.provenance = common.provenance(stamp, run, None, {})
    return run


def promptfoo_version(tree: dict[str, Any]) -> str:
    """The promptfoo version a file states (``metadata.promptfooVersion``), or ``unknown``."""
    return str(_metadata(tree).get("promptfooVersion") or "unknown")


def layout_of(tree: dict[str, Any]) -> str:
    """The layout, for a person: ``promptfoo eval -o / export (results version 3)``."""
    summary = promptfoo_summary(tree) or {}
    version = summary.get("version", "?")
    if summary is tree:
        return f"promptfoo evaluate() summary (results version {version})"
    return f"promptfoo eval -o / export (results version {version})"


def original_id(tree: dict[str, Any]) -> str | None:
    """promptfoo's own id of the evaluation (``evalId``), when the file has one."""
    value = tree.get("evalId")
    return str(value) if value else None


def _metadata(tree: dict[str, Any]) -> dict[str, Any]:
    return common.obj(tree.get("metadata"))


class _Rows:
    """Reads rows one at a time, keeping the contenders, cases and metrics they name."""

    def __init__(self, summary: dict[str, Any], config: dict[str, Any], dataset: str, notes: common.Notes):
        self.dataset = dataset
        self.notes = notes
        self.columns = _columns(summary)
        self.providers = _provider_configs(config)
        self.multi_prompt = len({_prompt_label(c) for c in self.columns if _prompt_label(c)}) > 1
        self._contenders: dict[Any, records.Contender] = {}
        self._contender_ids: set[str] = set()
        self._cases: dict[Any, records.Case] = {}
        self._case_ids: set[str] = set()
        self._prompts: dict[Any, set[str]] = {}
        self._named: dict[str, str] = {}
        self._samples: dict[tuple[str, str], int] = {}

    def result(self, row: dict[str, Any], index: int) -> records.Result:
        contender = self._contender(row)
        case = self._case(row, index)
        key = (contender.id, case.id)
        sample = self._samples.get(key, 0)
        self._samples[key] = sample + 1
        where = f"results.{index}"
        response = common.obj(row.get("response"))
        prompt = _rendered(row)
        diagnostics: dict[str, Any] = {"prompt": prompt} if prompt is not None and self.multi_prompt else {}
        usage, latency = _usage(row, response), _latency(row, response)
        result = records.Result(
            contender=contender.id,
            dataset=case.dataset,
            case=case.id,
            sample=sample,
            status="scored",
            score=None,
            output=response.get("output"),
            raw=_text(response.get("output")),
            diagnostics=diagnostics,
            usage=usage,
            latency_s=latency,
        )
        if _is_error(row, response):
            message = str(row.get("error") or response.get("error") or "the call failed")
            result.status = "error"
            result.error = records.ErrorInfo(common.error_kind(message), message)
            # The zeros promptfoo writes on an error row are placeholders, not measurements.
            usage.input_tokens = usage.input_tokens or None
            usage.output_tokens = usage.output_tokens or None
            usage.cost_usd = usage.cost_usd or None
            result.latency_s = result.latency_s or None
            return result
        result.metrics = self._metrics(row, where)
        result.score = result.metrics[PASS_METRIC.name]
        grading = common.obj(row.get("gradingResult"))
        if not row.get("success") and grading.get("reason"):
            diagnostics["reason"] = grading["reason"]
        return result

    def _metrics(self, row: dict[str, Any], where: str) -> dict[str, float | None]:
        values: dict[str, float | None] = {PASS_METRIC.name: 1.0 if row.get("success") else 0.0}
        score, why = common.unit_value(row.get("score"))
        if why and row.get("score") is not None:
            self.notes.add(f"{where}.score: {why}; imported as null")
        values[SCORE_METRIC.name] = score
        grading = common.obj(row.get("gradingResult"))
        named = row.get("namedScores") or grading.get("namedScores") or {}
        for label, raw in named.items() if isinstance(named, dict) else ():
            name = self._named.get(label)
            if name is None:
                taken = [PASS_METRIC.name, SCORE_METRIC.name, *self._named.values()]
                name = self._named[label] = common.metric_name(str(label), taken)
            value, why = common.unit_value(raw)
            if why:
                self.notes.add(f"{where}.namedScores.{label}: {why}; imported as null")
            values[name] = value
        return values

    def _contender(self, row: dict[str, Any]) -> records.Contender:
        column = self._column_of(row)
        provider_id, provider_label = _provider(row, column)
        named = {c.get("provider") for c in self.columns if isinstance(c.get("provider"), str)}
        if provider_id == UNKNOWN_PROVIDER and len(named) == 1:  # a row without a provider, in a one-provider table
            provider_id = str(named.pop())
        if column is not None:
            key: Any = ("column", row["promptIdx"])
        else:
            key = ("named", provider_id, provider_label, _prompt_label(row.get("prompt"), rendered=False))
        found = self._contenders.get(key)
        if found is not None:
            return found
        settings = dict(self._settings(provider_id, provider_label))
        prompt = _prompt_label(column) or _prompt_label(row.get("prompt"), rendered=False)
        base = provider_label or provider_id
        if self.multi_prompt and prompt:
            short = prompt if len(prompt) <= PROMPT_LABEL_CHARS else prompt[: PROMPT_LABEL_CHARS - 1] + "…"
            base = f"{base} · prompt={short}"
            settings = {"prompt": prompt, **settings}
        if base in self._contender_ids and settings:
            base = common.contender_label(base, {k: v for k, v in settings.items() if k != "prompt"})
        contender = records.Contender(common.unique(base, self._contender_ids), provider_id, settings)
        self._contenders[key] = contender
        return contender

    def _column_of(self, row: dict[str, Any]) -> dict[str, Any] | None:
        index = row.get("promptIdx")
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(self.columns):
            return self.columns[index]
        return None

    def _settings(self, provider_id: str, label: str | None) -> dict[str, Any]:
        by_label = [p for p in self.providers if label and p[1] == label]
        by_id = [p for p in self.providers if p[0] == provider_id and not p[1]]
        match = by_label or (by_id if len(by_id) == 1 else [])
        config = match[0][2] if match else {}
        return {k: config[k] for k in GENERATION_SETTINGS if _scalar(config.get(k))}

    def _case(self, row: dict[str, Any], index: int) -> records.Case:
        test = common.obj(row.get("testCase"))
        variables = row.get("vars") if isinstance(row.get("vars"), dict) else test.get("vars") or {}
        description = test.get("description") or row.get("description")
        test_index = row.get("testIdx")
        key: Any = test_index if isinstance(test_index, int) else _canonical([description, variables])
        case = self._cases.get(key)
        prompt = _rendered(row)
        if case is None:
            number = test_index + 1 if isinstance(test_index, int) else len(self._cases) + 1
            metadata: dict[str, Any] = {"vars": variables}
            if description:
                metadata["description"] = description
            extra = test.get("metadata")
            if isinstance(extra, dict) and (kept := {k: v for k, v in extra.items() if not str(k).startswith("_")}):
                metadata["test_metadata"] = kept
            case_id = _case_id(extra, number, self._case_ids)
            case = records.Case(self.dataset, case_id, "default", prompt or {"vars": variables}, None, metadata)
            case.expected = test.get("assert") or None
            self._cases[key] = case
            self._prompts[key] = set()
        if prompt is not None:
            self._prompts[key].add(prompt)
        return case

    def cases(self) -> list[records.Case]:
        """The tests, in order; a test sent as different prompts (several prompt templates) takes its vars as
        input, and each result names the prompt it was sent in its diagnostics."""
        for key, case in self._cases.items():
            if len(self._prompts[key]) > 1:
                case.input = {"vars": case.metadata.get("vars", {})}
        return list(self._cases.values())

    def contenders(self) -> list[records.Contender]:
        return list(self._contenders.values())

    def metrics(self) -> list[records.Metric]:
        named = [
            records.Metric(name, f"promptfoo's named score {label!r} (its assertions with metric: {label}).")
            for label, name in self._named.items()
        ]
        return [PASS_METRIC, SCORE_METRIC, *named]


def _columns(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The table's columns (a provider with a prompt): ``prompts`` (version 3) or ``table.head.prompts``."""
    prompts = summary.get("prompts")
    if not isinstance(prompts, list):
        table = common.obj(summary.get("table"))
        head = common.obj(table.get("head"))
        prompts = head.get("prompts")
    return [p if isinstance(p, dict) else {} for p in prompts] if isinstance(prompts, list) else []


def _provider(row: dict[str, Any], column: dict[str, Any] | None) -> tuple[str, str | None]:
    """The row's provider id and label; a row without one takes its column's (its label or id)."""
    provider = row.get("provider")
    if isinstance(provider, str) and provider:
        return provider, None
    if isinstance(provider, dict) and provider.get("id"):
        return str(provider["id"]), str(provider.get("label") or "") or None
    named = column.get("provider") if column else None
    if isinstance(named, str) and named:
        return named, None
    return UNKNOWN_PROVIDER, None


def _prompt_label(prompt: Any, rendered: bool = True) -> str | None:
    """A prompt's label (promptfoo's ``label``, formerly ``display``); a column's raw text is its template,
    a row's is the prompt rendered for one test, so only a column's may stand for a label."""
    if isinstance(prompt, dict):
        label = prompt.get("label") or prompt.get("display") or (prompt.get("raw") if rendered else None)
        return str(label) if label else None
    return prompt if rendered and isinstance(prompt, str) and prompt else None


def _rendered(row: dict[str, Any]) -> str | None:
    prompt = row.get("prompt")
    if isinstance(prompt, dict) and isinstance(prompt.get("raw"), str):
        return prompt["raw"]
    return prompt if isinstance(prompt, str) else None


def _is_error(row: dict[str, Any], response: dict[str, Any]) -> bool:
    reason = row.get("failureReason")
    if isinstance(reason, int) and not isinstance(reason, bool):
        return reason == ERRORED
    # Before failure reasons, an assertion's failure was written in `error` too: only a row with no
    # grading, or whose response itself failed, is an error.
    if response.get("error"):
        return True
    return bool(row.get("error")) and not row.get("gradingResult") and response.get("output") is None


def _usage(row: dict[str, Any], response: dict[str, Any]) -> records.Usage:
    tokens = common.obj(response.get("tokenUsage")) or common.obj(row.get("tokenUsage"))
    cost = response.get("cost") if "cost" in response else None
    if cost is None and common.money(row.get("cost")):
        cost = row.get("cost")
    return records.Usage(common.count(tokens.get("prompt")), common.count(tokens.get("completion")), common.money(cost))


def _latency(row: dict[str, Any], response: dict[str, Any]) -> float | None:
    if response.get("cached"):
        return None  # a cached reply took no call: its time says nothing of the model
    latency = common.seconds(row.get("latencyMs"))
    return None if latency is None else latency / 1000


def _text(output: Any) -> str | None:
    if output is None or isinstance(output, str):
        return output
    return json.dumps(output, ensure_ascii=False)


def _provider_configs(config: dict[str, Any]) -> list[tuple[str, str | None, dict[str, Any]]]:
    """``(id, label, config)`` of each provider the file's config lists."""
    providers = config.get("providers")
    items = providers if isinstance(providers, list) else [providers] if providers else []
    found: list[tuple[str, str | None, dict[str, Any]]] = []
    for item in items:
        if isinstance(item, str):
            found.append((item, None, {}))
        elif isinstance(item, dict) and isinstance(item.get("id"), str):
            options = common.obj(item.get("config"))
            found.append((item["id"], item.get("label") or None, options))
        elif isinstance(item, dict) and len(item) == 1:  # {"openai:gpt-4o": {config, label}}
            ((provider_id, options),) = item.items()
            options = options if isinstance(options, dict) else {}
            inner = common.obj(options.get("config"))
            found.append((str(provider_id), options.get("label") or None, inner))
    return found


def _case_id(metadata: Any, number: int, taken: set[str]) -> str:
    """A test's id: its metadata's ``id`` when it has a unique one, else its number (1, 2, …), as Inspect
    numbers samples that have no id; the id is added to ``taken``."""
    if isinstance(metadata, dict) and isinstance(metadata.get("id"), str | int) and str(metadata["id"]):
        wanted = str(metadata["id"])
        if wanted not in taken:
            taken.add(wanted)
            return wanted
    return common.unique(str(number), taken)


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float | bool)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)
