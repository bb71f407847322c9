"""lm-evaluation-harness output as evalcore runs (``docs/importing.md`` has the mapping, field by field).

``lm_eval --output_path OUT --log_samples`` writes, per model, a results file ``results_<time>.json`` (each
task's aggregate metrics, its config, the model and its ``model_args``) and, per task, a samples file
``samples_<task>_<time>.jsonl``: one JSON line per document and filter, holding the document (``doc_id``,
``doc``, ``target``), the requests sent (``arguments``), the replies (``resps``, ``filtered_resps``) and the
document's value of each of the task's metrics. A results file and the samples files of the same time make one
run: each task a dataset, each document a case, each document's lines one result.

A metric whose per-document value is no score in [0, 1] (a corpus metric such as BLEU or span F1 keeps
``[gold, prediction]`` items there, perplexity keeps log-likelihoods) is imported as null, with a note; a task
none of whose metrics has a value for every document is left out, with a note, as a run's result needs a score.
A task run with ``repeats: N`` is scored once per document, on the filtered answer (a majority vote, the first
reply): its N replies are kept in the result's diagnostics, never as samples, which would count one score N
times.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evalcore.core import records
from evalcore.core.errors import RunFileError
from evalcore.runfile.importers import _common as common
from evalcore.runfile.importers._lm_eval_files import claimed, is_results, is_samples_name, tasks_of

__all__ = ["claimed", "import_lm_eval", "is_results", "is_samples_name", "layout_of", "lm_eval_version"]

TOOL = "lm_eval"
#: The primary metric: each task's headline metric, so one score ranks contenders over tasks of any kind.
HEADLINE = "headline"
#: ``model_args`` that say where or how a model ran, not what it answers: left out of the contender.
NOT_SETTINGS = frozenset(
    {
        "base_url",
        "device",
        "device_map",
        "gpu_memory_utilization",
        "batch_size",
        "max_batch_size",
        "num_concurrent",
        "max_retries",
        "timeout",
        "tokenized_requests",
        "tokenizer_backend",
        "parallelize",
        "trust_remote_code",
        "tensor_parallel_size",
        "data_parallel_size",
        "cache_dir",
    }
)
_SECRET = re.compile(r"key|token|secret|password", re.I)
Progress = Callable[[int, int], None]


def layout_of(tree: dict[str, Any]) -> str:
    """The layout, for a person."""
    return f"lm-evaluation-harness results + samples (--log_samples), {len(tasks_of(tree))} tasks"


def lm_eval_version(tree: dict[str, Any]) -> str:
    """The lm-eval version a results file states (``lm_eval_version``), or ``unknown``."""
    return str(tree.get("lm_eval_version") or "unknown")


def import_lm_eval(
    tree: dict[str, Any],
    samples: dict[str, tuple[str, bytes]],
    stamp: common.Stamp,
    notes: common.Notes,
    on_progress: Progress | None = None,
) -> records.Run:
    """The run a results file and its samples files hold.

    Args:
        tree: the results file's JSON object.
        samples: task → (the samples file's name, its bytes).
        stamp: where the files came from (their hash gives the run's id).
        notes: what the import changed or left out.
        on_progress: called with (files done, files in all) as the samples files are read.

    Raises:
        RunFileError: a samples file holds a line that is not JSON (truncated), or no task has samples.
    """
    contender = _contender(tree)
    reader = _Reader(tree, contender, notes)
    tasks = tasks_of(tree)
    for task in tasks:
        if task not in samples:
            notes.add(
                f"{task}: no samples_{task}_*.jsonl beside the results file (run lm_eval with --log_samples); left out"
            )
    for i, (task, (name, data)) in enumerate(sorted(samples.items())):
        reader.read_task(task, name, data)
        if on_progress is not None:
            on_progress(i + 1, len(samples))
    if not reader.results:
        raise RunFileError(
            f"{stamp.file_name}: no results to import",
            problems=[
                "(file): no task of this lm-evaluation-harness results file has samples with a score per "
                "document; run lm_eval with --log_samples and import the folder holding results_*.json and "
                "samples_*.jsonl",
                *notes.as_list(),
            ],
        )
    created = common.utc_timestamp(_epoch_ms(tree.get("date"))) or stamp.imported_at
    run = records.Run(
        info=records.RunInfo(
            id=common.run_id(TOOL, stamp.digest),
            suite=_suite(list(samples)),
            created_at=created,
            finished_at=common.plus_seconds(created, _number(tree.get("total_evaluation_time_seconds"))),
            status="completed",
            settings={
                "lm_eval": {
                    "n_shot": tree.get("n-shot"),
                    "versions": tree.get("versions"),
                    "limit": common.obj(tree.get("config")).get("limit"),
                    "task_hashes": tree.get("task_hashes"),
                },
                common.IMPORT_KEY: {
                    "source_counts": {"n_samples": tree.get("n-samples"), "tasks": len(tasks)},
                    "notes": notes.as_list(),
                },
            },
        ),
        metrics=reader.metrics(),
        contenders=[contender],
        cases=list(reader.cases.values()),
        results=reader.results,
    )
    common.sort_results(run)
    revision = tree.get("git_hash")
    run.info.provenance = common.provenance(stamp, run, str(revision) if revision else None, {})
    return run


@dataclass
class _Task:
    """What one task's samples hold, read before its results are made."""

    name: str
    file: str
    lines: dict[str, list[tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    filters: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)


class _Reader:
    """Reads samples files one task at a time, keeping the cases, results and metrics they give."""

    def __init__(self, tree: dict[str, Any], contender: records.Contender, notes: common.Notes):
        self.tree = tree
        self.contender = contender
        self.notes = notes
        self.cases: dict[tuple[str, str], records.Case] = {}
        self.results: list[records.Result] = []
        self._metric_of: dict[tuple[str, str], str] = {}
        self._direction: dict[str, bool] = {}
        self._noted: set[tuple[str, str]] = set()

    def read_task(self, task: str, name: str, data: bytes) -> None:
        read = _Task(task, name)
        for number, line in enumerate(data.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                raise RunFileError(
                    f"{name}: not valid JSON Lines",
                    problems=[f"line {number}: {e} (a truncated or damaged samples file; nothing was imported)"],
                ) from None
            if not isinstance(record, dict) or "doc_id" not in record:
                self.notes.add(f"{name}: line {number}: {_what(record)} has no doc_id; left out")
                continue
            read.lines.setdefault(str(record["doc_id"]), []).append((number, record))
            self._order(read, record)
        if not read.lines:
            self.notes.add(f"{name}: no sample with a doc_id; task {task} left out")
            return
        filters = ", ".join(read.filters)
        self.notes.add(f"{name}: {len(read.lines)} documents of task {task} (filters: {filters}) read")
        repeats = _config(self.tree, task).get("repeats")
        if isinstance(repeats, int) and repeats > 1:
            self.notes.add(
                f"{name}: task {task} ran with repeats: {repeats}; lm-eval scored each document once, on the "
                f"filtered answer: one result per document, its {repeats} replies in diagnostics.replies"
            )
        values = {doc: self._values(read, lines) for doc, lines in read.lines.items()}
        headline = self._headline(read, values)
        if headline is None:
            return
        for doc, lines in read.lines.items():
            self._add(read, doc, lines, values[doc], headline)

    def _order(self, read: _Task, record: dict[str, Any]) -> None:
        kind = str(record.get("filter") or "none")
        if kind not in read.filters:
            read.filters.append(kind)
        for metric in record.get("metrics") or _config(self.tree, read.name).get("metric_names", []):
            if isinstance(metric, str) and metric not in read.metrics:
                read.metrics.append(metric)

    def _values(self, read: _Task, lines: list[tuple[int, dict[str, Any]]]) -> dict[str, float | None]:
        """The document's value of each (metric, filter) as an evalcore metric; what is no score, noted once."""
        values: dict[str, float | None] = {}
        for number, record in lines:
            kind = str(record.get("filter") or "none")
            for metric in read.metrics:
                if metric not in record:
                    continue
                name = self._metric(read.name, metric, kind)
                value, why = common.unit_value(record[metric])
                values[name] = value
                if why is not None:
                    self._note_once(read, metric, kind, f"{read.file}: line {number}: {metric}: {why}")
        return values

    def _note_once(self, read: _Task, metric: str, kind: str, first: str) -> None:
        key = (read.name, f"{metric},{kind}")
        if key in self._noted:
            return
        self._noted.add(key)
        self.notes.add(
            f"{first}; {metric} ({kind}) has no per-document score in [0, 1] (a corpus metric or a likelihood): "
            "imported as null"
        )

    def _metric(self, task: str, metric: str, kind: str) -> str:
        label = metric if kind == "none" else f"{metric}_{kind}"
        key = (metric, kind)
        if key not in self._metric_of:
            self._metric_of[key] = common.metric_name(label, [*self._metric_of.values(), HEADLINE])
            higher = common.obj(common.obj(self.tree.get("higher_is_better")).get(task)).get(metric, True)
            self._direction[self._metric_of[key]] = bool(higher)
        return self._metric_of[key]

    def _headline(self, read: _Task, values: dict[str, dict[str, float | None]]) -> str | None:
        """The task's first metric (under its first filter) with a value for every document, or None after a
        note saying the task is left out."""
        for metric in read.metrics:
            for kind in read.filters:
                name = self._metric_of.get((metric, kind))
                if name is not None and all(v.get(name) is not None for v in values.values()):
                    return name
        self.notes.add(
            f"{read.file}: task {read.name}: no metric ({', '.join(read.metrics) or 'none'}) has a score in [0, 1] "
            f"for every document; its {len(read.lines)} documents are left out"
        )
        return None

    def _add(
        self,
        read: _Task,
        doc: str,
        lines: list[tuple[int, dict[str, Any]]],
        values: dict[str, float | None],
        headline: str,
    ) -> None:
        first = lines[0][1]
        case = self.cases.get((read.name, doc))
        if case is None:
            case = self.cases[(read.name, doc)] = _case(read.name, doc, first)
        if len(lines) > len(read.filters):
            self.notes.add(f"{read.file}: doc_id {doc} appears {len(lines)} times; its first lines are kept")
        output, raw, replies = _reply(first, case.input)
        diagnostics: dict[str, Any] = {"filter": str(first.get("filter") or "none")}
        if replies is not None:
            diagnostics["replies"] = replies
        self.results.append(
            records.Result(
                contender=self.contender.id,
                dataset=read.name,
                case=doc,
                sample=0,
                status="scored",
                score=values[headline],
                metrics={HEADLINE: values[headline], **values},
                output=output,
                raw=raw,
                diagnostics=diagnostics,
            )
        )

    def metrics(self) -> list[records.Metric]:
        headline = records.Metric(
            HEADLINE,
            "Each task's headline metric: the first of its metrics (under its first filter) with a score for "
            "every document, e.g. acc for a multiple-choice task, exact_match (strict-match) for gsm8k.",
            True,
            True,
        )
        described = [
            records.Metric(
                name,
                f"lm-evaluation-harness metric {metric}" + (f" under filter {kind}" if kind != "none" else "") + ".",
                self._direction[name],
                False,
            )
            for (metric, kind), name in self._metric_of.items()
        ]
        return [headline, *described]


def _case(task: str, doc: str, record: dict[str, Any]) -> records.Case:
    metadata: dict[str, Any] = {k: record[k] for k in ("doc", "doc_hash", "prompt_hash", "target_hash") if k in record}
    prompt, extra = _input(record.get("arguments"))
    metadata.update(extra)
    return records.Case(
        dataset=task, id=doc, variant="default", input=prompt, expected=record.get("target"), metadata=metadata
    )


def _input(arguments: Any) -> tuple[str | dict[str, Any], dict[str, Any]]:
    """The case's input from a record's requests: the prompt, or ``{prompt, choices}`` for a multiple choice
    (one request per choice, all with the same context); generation settings go to the metadata."""
    requests = _requests(arguments)
    if not requests:
        return {"arguments": arguments}, {}
    contexts = [r[0] for r in requests]
    if len(requests) > 1 and all(c == contexts[0] for c in contexts) and all(len(r) > 1 for r in requests):
        return {"prompt": contexts[0], "choices": [r[1] for r in requests]}, {}
    first = requests[0]
    extra = {"generation_kwargs": first[1]} if len(first) > 1 and isinstance(first[1], dict) else {}
    if len(requests) == 1:
        messages = _chat(first[0])
        if messages is not None:
            return {"messages": messages}, extra
        if isinstance(first[0], str):
            return first[0], extra
    return {"requests": [list(r) for r in requests]}, extra


def _chat(prompt: Any) -> list[dict[str, Any]] | None:
    """The messages of a prompt lm-eval rendered with ``--apply_chat_template`` for a chat API (a list holding
    the messages' JSON text), or None."""
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], str):
        prompt = prompt[0]
    if not isinstance(prompt, str) or not prompt.startswith("[{"):
        return None
    try:
        messages = json.loads(prompt)
    except json.JSONDecodeError:
        return None
    ok = isinstance(messages, list) and all(isinstance(m, dict) and "role" in m for m in messages)
    return messages if ok else None


def _requests(arguments: Any) -> list[list[Any]]:
    """Each request's arguments: ``{"gen_args_0": {"arg_0": …, "arg_1": …}}`` (lm-eval 0.4.3 on) or
    ``[[context, continuation], …]`` (older)."""
    if isinstance(arguments, dict):
        out = []
        for key in sorted(arguments, key=_index):
            args = arguments[key]
            out.append([args[k] for k in sorted(args, key=_index)] if isinstance(args, dict) else [args])
        return out
    if isinstance(arguments, list):
        return [list(a) if isinstance(a, list | tuple) else [a] for a in arguments]
    return []


def _index(key: str) -> int:
    digits = re.search(r"(\d+)$", key)
    return int(digits[1]) if digits else 0


def _reply(record: dict[str, Any], prompt: Any) -> tuple[Any, str | None, list[Any] | None]:
    """The result's output (the filtered reply), its raw text, and a task's repeated replies (or None)."""
    resps = record.get("resps")
    filtered = record.get("filtered_resps")
    if isinstance(prompt, dict) and "choices" in prompt and isinstance(filtered, list):
        scores = [_likelihood(f) for f in filtered]
        if scores and all(s is not None for s in scores):
            best = max(range(len(scores)), key=lambda i: scores[i])  # type: ignore[arg-type,return-value]
            choice = prompt["choices"][best] if best < len(prompt["choices"]) else None
            return {"choice": choice, "loglikelihoods": scores}, choice if isinstance(choice, str) else None, None
    output = filtered[0] if isinstance(filtered, list) and len(filtered) == 1 else filtered
    while isinstance(output, list) and len(output) == 1:
        output = output[0]
    replies = resps[0] if isinstance(resps, list) and len(resps) == 1 and isinstance(resps[0], list) else None
    raw = replies[0] if replies and isinstance(replies[0], str) else output if isinstance(output, str) else None
    return output, raw, replies if replies is not None and len(replies) > 1 else None


def _likelihood(value: Any) -> float | None:
    while isinstance(value, list) and value:
        value = value[0]
    try:
        return float(value)  # lm-eval writes log-likelihoods as text ("-12.3") or numbers
    except (TypeError, ValueError):
        return None


def _contender(tree: dict[str, Any]) -> records.Contender:
    """The model and its ``model_args``: the model's name, plus the arguments that change what it answers."""
    config = common.obj(tree.get("config"))
    args = _model_args(config.get("model_args"))
    backend = str(config.get("model") or "unknown")
    model = str(tree.get("model_name") or args.get("pretrained") or args.get("model") or backend)
    kept = {k: v for k, v in args.items() if k not in NOT_SETTINGS and not _SECRET.search(k) and str(v) != model}
    shots = {v for v in common.obj(tree.get("n-shot")).values() if isinstance(v, int)}
    if len(shots) == 1 and next(iter(shots)) > 0:
        kept["num_fewshot"] = next(iter(shots))
    return records.Contender(
        id=common.contender_label(model, kept), model=model, settings={**kept, "lm_eval_model": backend}
    )


def _model_args(value: Any) -> dict[str, Any]:
    """``pretrained=x,revision=step1000`` (or lm-eval's dict of them) as a dict."""
    if isinstance(value, dict):
        return dict(value)
    if not isinstance(value, str):
        return {}
    pairs = (part.split("=", 1) for part in value.split(",") if "=" in part)
    return {k.strip(): v.strip() for k, v in pairs}


def _config(tree: dict[str, Any], task: str) -> dict[str, Any]:
    config = common.obj(common.obj(tree.get("configs")).get(task))
    names = [m.get("metric") for m in config.get("metric_list") or [] if isinstance(m, dict)]
    return {**config, "metric_names": [n for n in names if isinstance(n, str)]}


def _suite(tasks: list[str]) -> str:
    shown = sorted(tasks)
    listed = ", ".join(shown[:3]) + (f" and {len(shown) - 3} more" if len(shown) > 3 else "")
    return f"lm-eval: {listed}"


def _epoch_ms(value: Any) -> float | None:
    number = _number(value)
    return number * 1000 if number is not None else None


def _number(value: Any) -> float | None:
    try:
        return float(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def _what(record: Any) -> str:
    return "a record" if isinstance(record, dict) else f"{type(record).__name__} value"
