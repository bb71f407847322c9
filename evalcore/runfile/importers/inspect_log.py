"""Inspect AI logs as evalcore runs (``docs/importing.md`` has the mapping, field by field).

An Inspect log is one eval: one task run by one model with one generation config, so one contender.
Each sample is a case (its id, input and target) and each of its epochs a sample of that case. Each scorer
gives one metric, and a scorer whose value is a dict gives one metric per key. A sample that stopped on an
error is an error, never a failed score; a sample Inspect cancelled because the whole eval stopped is not
imported (it never finished), and a note says so.

Both log formats are read: ``.json`` (the whole log in one document) and ``.eval`` (a zip: ``header.json``,
or only ``_journal/start.json`` while the eval was still running, and one ``samples/<id>_epoch_<n>.json``
per sample). Log format version 1 (one ``results.scorer`` and a ``score`` per sample) and version 2 (a
``scores`` list and a ``scores`` dict per sample) are both read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from evalcore.core import records
from evalcore.runfile.importers import _common as common
from evalcore.runfile.importers._inspect_chat import script, transcript, user_turns
from evalcore.runfile.importers._inspect_events import content_text, trace_of
from evalcore.runfile.importers._source import scrub

TOOL = "inspect_ai"
#: Inspect's eval status → the run's status.
STATUSES: dict[str, records.RunStatus] = {
    "success": "completed",
    "error": "failed",
    "cancelled": "interrupted",
    "started": "interrupted",
}
#: Generation settings that change what a model answers (Inspect's ``GenerateConfig``); limits on
#: connections, retries and time stay in the run's settings.
GENERATION_SETTINGS = (
    "temperature",
    "top_p",
    "top_k",
    "max_tokens",
    "reasoning_effort",
    "reasoning_tokens",
    "effort",
    "verbosity",
    "seed",
    "frequency_penalty",
    "presence_penalty",
    "num_choices",
    "system_message",
)
#: Settings longer than this stay out of the contender's id (they stay in its settings).
ID_SETTING_CHARS = 30
COMPLETED = records.Metric(
    "completed",
    "1 when Inspect finished the sample without an error: no scorer has a value for every sample.",
    True,
    True,
)
#: A sample's parts that are not imported as they are (the transcript; its ``events`` become the result's
#: trace, from fields whose ``NaN`` reads as unknown anyway): ``NaN`` in them is left alone.
NOT_IMPORTED = frozenset({"events", "messages", "attachments", "events_data", "store", "timelines", "error_retries"})
#: A sample's parts the importer never reads (``error_retries`` is counted, ``events`` made a trace, ``messages``
#: a conversation's transcript): a lean parse leaves them out.
NOT_READ = NOT_IMPORTED - {"error_retries", "events", "messages"}
#: The keys of a ``.json`` log that are not its header: the samples, and their reductions (never imported).
NOT_HEADER = frozenset({"samples", "reductions"})
_SAMPLE_ENTRY = re.compile(r"^samples/(?P<id>.+)_epoch_(?P<epoch>\d+)\.json$")

Progress = Callable[[int, int], None]
Samples = Iterable[tuple[str, dict[str, Any]]]


def import_inspect(
    header: dict[str, Any],
    samples: Samples,
    total: int,
    stamp: common.Stamp,
    notes: common.Notes,
    on_progress: Progress | None = None,
) -> records.Run:
    """The run an Inspect log holds.

    Args:
        header: the log without its samples: ``version``, ``status``, ``eval``, ``plan``, ``results``,
            ``stats``, ``error``.
        samples: ``(where, sample)`` pairs; ``where`` names the sample in notes.
        total: how many samples there are, for progress.
        stamp: where the file came from (its hash gives the run's id).
        notes: what the import changed (NaN values already read as null are noted there).
        on_progress: called with (samples done, samples in all).
    """
    spec = common.obj(header.get("eval"))
    reader = _Samples(header, spec, notes)
    results: list[records.Result] = []
    done = 0
    for where, sample in samples:
        result = reader.result(sample, where)
        if result is not None:
            results.append(result)
        done += 1
        if on_progress is not None and (done % 500 == 0 or done == total):
            on_progress(done, total)
    metrics = reader.finish(results)
    if reader.conversations:
        notes.add(
            f"{reader.conversations} of {done} samples were conversations (more than one user turn): each one's "
            "user turns are its case's script and its dialogue is its result's transcript"
        )
    status = str(header.get("status") or "started")
    info = records.RunInfo(
        id=common.run_id("inspect", stamp.digest),
        suite=str(spec.get("task_display_name") or spec.get("task") or "inspect eval"),
        created_at=_created(header, spec, stamp),
        finished_at=_finished(header, status),
        status=STATUSES.get(status, "interrupted"),
        weights={},
        settings=_settings(header, spec, status, results, reader.skipped, notes),
    )
    if reader.conversations:
        info.settings[common.IMPORT_KEY]["source_counts"]["conversations"] = reader.conversations
    run = records.Run(info, metrics, [reader.contender], reader.cases(), results)
    common.sort_results(run)
    revision = common.obj(spec.get("revision"))
    extra = {"eval_id": spec.get("eval_id"), "task_id": spec.get("task_id"), "status": status}
    info.provenance = common.provenance(stamp, run, revision.get("commit"), extra)
    return run


def inspect_version(header: dict[str, Any]) -> str:
    """The Inspect version that wrote the log (``eval.packages.inspect_ai``), or ``unknown``."""
    spec = common.obj(header.get("eval"))
    packages = common.obj(spec.get("packages"))
    return str(packages.get("inspect_ai") or "unknown")


def original_id(header: dict[str, Any]) -> str | None:
    """Inspect's run id of the eval, when the log has one."""
    spec = common.obj(header.get("eval"))
    value = spec.get("run_id") or spec.get("eval_id")
    return str(value) if value else None


def sample_entries(names: list[str]) -> list[str]:
    """The sample entries of an ``.eval`` log, by epoch then sample id (numbers in numeric order)."""

    def order(name: str) -> tuple[int, str]:
        m = _SAMPLE_ENTRY.match(name)
        assert m is not None
        sample_id = m["id"]
        return int(m["epoch"]), sample_id.zfill(20) if sample_id.isdigit() else sample_id

    return sorted((n for n in names if _SAMPLE_ENTRY.match(n)), key=order)


class _Samples:
    """Reads samples one at a time, keeping the cases and metrics they name."""

    def __init__(self, header: dict[str, Any], spec: dict[str, Any], notes: common.Notes):
        self.notes = notes
        self.status = str(header.get("status") or "started")
        self.version = header.get("version")
        self.model = str(spec.get("model") or "unknown model")
        self.dataset = _dataset_name(spec)
        self.contender = _contender(spec, header.get("plan"))
        results = common.obj(header.get("results"))
        self.scorers = _scorer_names(results)
        self.headline = _headline(results)
        self._metric_of: dict[tuple[str, str | None], str] = {}
        self._cases: dict[str, records.Case] = {}
        self.skipped = 0
        self.conversations = 0

    def result(self, sample: dict[str, Any], where: str) -> records.Result | None:
        error = sample.get("error")
        message = _error_message(error)
        if message is not None and message.startswith("CancelledError") and self.status != "success":
            self.skipped += 1
            self.notes.add(f"{where}: cancelled when the eval stopped; not imported")
            return None
        turns = user_turns(sample.get("messages"))
        case = self._case(sample, turns)
        epoch = sample.get("epoch")
        retries = sample.get("error_retries")
        result = records.Result(
            contender=self.contender.id,
            dataset=case.dataset,
            case=case.id,
            sample=epoch - 1 if isinstance(epoch, int) and epoch >= 1 else 0,
            status="scored",
            score=None,
            usage=self._usage(sample),
            latency_s=_latency(sample),
            attempts=1 + (len(retries) if isinstance(retries, list) else 0),
            started_at=common.utc_timestamp(sample.get("started_at")),
        )
        text = _completion(sample.get("output"))
        result.output, result.raw = text, text
        if turns is None:
            result.trace = trace_of(sample.get("events"))
        else:
            result.trace = transcript(sample["messages"], sample.get("events"))
            self.conversations += 1
        if message is not None:
            result.status = "error"
            result.error = records.ErrorInfo(common.error_kind(message), message)
            # Zeros on a sample that failed are placeholders, not measurements.
            u = result.usage
            u.input_tokens, u.output_tokens, u.cost_usd = (
                u.input_tokens or None,
                u.output_tokens or None,
                u.cost_usd or None,
            )
            result.latency_s = result.latency_s or None
            return result
        result.metrics, result.diagnostics = self._scores(_sample_scores(sample, self.scorers), where)
        return result

    def _scores(self, scores: dict[str, Any], where: str) -> tuple[dict[str, float | None], dict[str, Any]]:
        values: dict[str, float | None] = {}
        diagnostics: dict[str, Any] = {}
        for scorer, score in scores.items():
            if not isinstance(score, dict):
                continue
            value = score.get("value")
            parts = value.items() if isinstance(value, dict) else [(None, value)]
            for key, raw in parts:
                name = self._metric(scorer, key)
                values[name], why = common.unit_value(raw)
                if why and raw is not None:
                    self.notes.add(f"{where}: scores.{scorer}.value{'.' + key if key else ''}: {why}; imported as null")
            kept = {k: score[k] for k in ("value", "answer", "explanation") if score.get(k) is not None}
            if kept:
                diagnostics[scorer] = kept
        return values, diagnostics

    def _metric(self, scorer: str, key: str | None) -> str:
        name = self._metric_of.get((scorer, key))
        if name is None:
            if scorer not in self.scorers:
                self.scorers.append(scorer)
            label = scorer if key is None else f"{scorer}_{key}"
            name = self._metric_of[(scorer, key)] = common.metric_name(label, self._metric_of.values())
        return name

    def _usage(self, sample: dict[str, Any]) -> records.Usage:
        by_model = sample.get("model_usage")
        if isinstance(by_model, dict) and by_model:
            usage = by_model.get(self.model)
            if usage is None and len(by_model) == 1:
                usage = next(iter(by_model.values()))
        elif by_model is None:  # logs older than per-sample usage: the last generation's
            output = common.obj(sample.get("output"))
            usage = output.get("usage")
        else:
            usage = None
        if not isinstance(usage, dict):
            return records.Usage()
        parts = [common.count(usage.get(k)) for k in ("input_tokens_cache_read", "input_tokens_cache_write")]
        prompt = common.count(usage.get("input_tokens"))
        if prompt is not None:
            prompt += sum(p for p in parts if p is not None)
        return records.Usage(prompt, common.count(usage.get("output_tokens")), common.money(usage.get("total_cost")))

    def _case(self, sample: dict[str, Any], turns: list[str] | None) -> records.Case:
        """The sample's case; a conversation's (``turns`` given) holds its user turns as a script."""
        case_id = str(sample.get("id"))
        case = self._cases.get(case_id)
        if case is None:
            metadata = dict(common.obj(sample.get("metadata")))
            if sample.get("choices"):
                metadata["choices"] = sample["choices"]
            given: str | dict[str, Any] = _input(sample.get("input"))
            if turns is not None:
                given, marker = script(turns)
                metadata.update(marker)
            case = records.Case(self.dataset, case_id, "default", given, sample.get("target"), metadata)
            self._cases[case_id] = case
        return case

    def cases(self) -> list[records.Case]:
        return list(self._cases.values())

    def finish(self, results: list[records.Result]) -> list[records.Metric]:
        """The metrics, with the primary one chosen, and every scored result's score set to it.

        The primary metric is the log's headline (or first) scorer when every finished sample has a value
        of it; else the first metric that does; else ``completed``.
        """
        names = [self._metric_of[key] for key in sorted(self._metric_of, key=self._order)]
        scored = [r for r in results if r.status == "scored"]
        preferred = [self._metric_of[k] for k in self._metric_of if self.headline in (k[0], k[1])]
        primary = next((n for n in [*preferred, *names] if all(r.metrics.get(n) is not None for r in scored)), None)
        metrics = [records.Metric(n, self._describe(n), True, n == primary) for n in names]
        if primary is None:
            if names:
                self.notes.add(
                    f"no scorer has a value for every finished sample; the primary metric is {COMPLETED.name}"
                )
            metrics.insert(0, COMPLETED)
            primary = COMPLETED.name
            for r in scored:
                r.metrics[primary] = 1.0
        for r in scored:
            r.score = r.metrics[primary]
        return metrics

    def _order(self, key: tuple[str, str | None]) -> tuple[int, int]:
        keys = [k for k in self._metric_of if k[0] == key[0]]
        return (self.scorers.index(key[0]) if key[0] in self.scorers else len(self.scorers), keys.index(key))

    def _describe(self, name: str) -> str:
        scorer, key = next(k for k, v in self._metric_of.items() if v == name)
        part = f"Inspect scorer {scorer!r}" + (f", key {key!r} of its value" if key else "")
        return f"{part}: C = 1, P = 0.5, I and N = 0, true = 1, false = 0, numbers in [0, 1] as they are."


def _dataset_name(spec: dict[str, Any]) -> str:
    dataset = common.obj(spec.get("dataset"))
    return str(dataset.get("name") or spec.get("task") or "inspect")


def _contender(spec: dict[str, Any], plan: Any) -> records.Contender:
    """The eval's model with the generation settings it was given (the plan's, then the model's own)."""
    config: dict[str, Any] = {}
    for source in (plan.get("config") if isinstance(plan, dict) else None, spec.get("model_generate_config")):
        if isinstance(source, dict):
            config.update({k: v for k, v in source.items() if v is not None})
    settings = {k: config[k] for k in GENERATION_SETTINGS if k in config}
    shown = {k: v for k, v in settings.items() if not isinstance(v, str | list | dict) or _short(v)}
    model = str(spec.get("model") or "unknown model")
    return records.Contender(common.contender_label(model, shown), model, settings)


def _short(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= ID_SETTING_CHARS and "\n" not in value


def _scorer_names(results: dict[str, Any]) -> list[str]:
    """The scorers a log's results list, in order (format version 2's ``scores``, version 1's ``scorer``)."""
    names: list[str] = []
    for score in results.get("scores") or []:
        if isinstance(score, dict) and (name := score.get("scorer") or score.get("name")) and name not in names:
            names.append(str(name))
    scorer = results.get("scorer")
    if isinstance(scorer, dict) and scorer.get("name") and scorer["name"] not in names:
        names.append(str(scorer["name"]))
    return names


def _headline(results: dict[str, Any]) -> str | None:
    headline = results.get("headline")
    if isinstance(headline, dict):
        return str(headline.get("score") or headline.get("scorer") or "") or None
    return None


def _sample_scores(sample: dict[str, Any], scorers: list[str]) -> dict[str, Any]:
    """A sample's scores by scorer: version 2's ``scores``, or version 1's single ``score``."""
    scores = sample.get("scores")
    if isinstance(scores, dict):
        return scores
    score = sample.get("score")
    if isinstance(score, dict):
        return {scorers[0] if scorers else "score": score}
    return {}


def _error_message(error: Any) -> str | None:
    if isinstance(error, dict):
        return str(error.get("message") or "the sample failed")
    return str(error) if error else None


def _latency(sample: dict[str, Any]) -> float | None:
    """The sample's working time (model calls, tools), else its total time, else its output's time."""
    for value in (sample.get("working_time"), sample.get("total_time")):
        if (seconds := common.seconds(value)) is not None:
            return seconds
    output = common.obj(sample.get("output"))
    return common.seconds(output.get("time"))


def _completion(output: Any) -> str | None:
    """The text of a sample's output (its first choice), or None when it has none."""
    choices = output.get("choices") if isinstance(output, dict) else None
    if not choices or not isinstance(choices[0], dict):
        return None
    message = common.obj(choices[0].get("message"))
    return _message_text(message.get("content"))


def _message_text(content: Any) -> str | None:
    return content_text(content) if content is None or isinstance(content, str | list) else None


def _input(value: Any) -> str | dict[str, Any]:
    """A sample's input: its text, or its chat messages as ``{"messages": [{role, content}, …]}``."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        messages = [
            {"role": m.get("role"), "content": _message_text(m.get("content"))} for m in value if isinstance(m, dict)
        ]
        return {"messages": messages}
    return {"input": value}


def _created(header: dict[str, Any], spec: dict[str, Any], stamp: common.Stamp) -> str:
    stats = common.obj(header.get("stats"))
    return (
        common.utc_timestamp(spec.get("created")) or common.utc_timestamp(stats.get("started_at")) or stamp.imported_at
    )


def _finished(header: dict[str, Any], status: str) -> str | None:
    if STATUSES.get(status, "interrupted") == "interrupted":
        return None
    stats = common.obj(header.get("stats"))
    return common.utc_timestamp(stats.get("completed_at"))


def _settings(
    header: dict[str, Any],
    spec: dict[str, Any],
    status: str,
    results: list[records.Result],
    cancelled: int,
    notes: common.Notes,
) -> dict[str, Any]:
    summary = common.obj(header.get("results"))
    config = common.obj(spec.get("config"))
    settings: dict[str, Any] = {
        common.IMPORT_KEY: {
            "source_counts": {
                "total_samples": summary.get("total_samples"),
                "completed_samples": summary.get("completed_samples"),
                "errors": sum(r.status == "error" for r in results),
                "cancelled_not_imported": cancelled,
            },
            "status": status,
            "log_format_version": header.get("version"),
            "notes": notes.as_list(),
        },
        "epochs": config.get("epochs"),
        "task_args": spec.get("task_args_passed", spec.get("task_args")) or {},
    }
    error = _error_message(header.get("error"))
    if error:
        settings["error"] = error
    return settings


def json_samples(tree: dict[str, Any], notes: common.Notes | None) -> Iterator[tuple[str, dict[str, Any]]]:
    """The samples of a ``.json`` log, each with where it is; with ``notes``, each one's ``NaN`` values (in the
    parts that are imported) become null first. Each sample is let go of once read: the log's transcript
    need not stay in memory next to the run."""
    samples = tree.get("samples") or []
    for i, sample in enumerate(samples):
        samples[i] = None
        if isinstance(sample, dict):
            where = f"samples.{i}"
            yield where, scrub(sample, where, notes, NOT_IMPORTED) if notes is not None else sample
