"""Every Eval Ever records as evalcore runs (``docs/importing.md`` has the mapping, field by field).

An Every Eval Ever (EEE) record is an aggregate JSON file (``eval.schema.json``): one model
(``model_info``), its reported scores (``evaluation_results``: each a benchmark's metric), and, when the
evaluation kept per-item data, a ``<uuid>_samples.jsonl`` beside it (``instance_level_eval.schema.json``): one
line per item and metric. A record becomes one run: its model the contender, each ``evaluation_name`` a
dataset, each metric a metric, each item of the samples file a case with its result.

A benchmark with no per-item line is *aggregate-only*: it becomes one case, :data:`AGGREGATE_CASE`, marked in
its metadata (:data:`~evalcore.core.records.AGGREGATE_ONLY`), holding the reported score. The leaderboard ranks
it but draws no interval or P(best) from it, and says so: one reported number per model has no case to
resample or pair.

Scores are turned into metric values in [0, 1]: a value already there stays; a ``continuous`` metric with a
finite ``min_score`` and ``max_score`` is rescaled to them; anything else is null, with a note.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from evalcore.core import records
from evalcore.core.errors import RunFileError
from evalcore.runfile.importers import _common as common
from evalcore.runfile.importers import _eee_items as items

TOOL = "every_eval_ever"
#: The schema versions read: 0.2.0 to 0.3.x share every field imported here (0.3.0 only renumbered 0.2.3).
SUPPORTED_VERSIONS = re.compile(r"^0\.[23](\.\d+)?$")
#: The version :mod:`evalcore.runfile.eee_export` writes (the schema files of every-eval-ever 0.3.0).
WRITTEN_VERSION = "0.3.0"
#: The primary metric: each benchmark's first reported metric (its complement when lower is better).
HEADLINE = "headline"
#: The id of the one case of an aggregate-only benchmark.
AGGREGATE_CASE = records.AGGREGATE_CASE
#: How a samples file is named beside its aggregate file: ``<uuid>_samples.jsonl``.
SAMPLES_SUFFIX = "_samples.jsonl"
Progress = Callable[[int, int], None]


def is_record(tree: Any) -> bool:
    """Whether a parsed JSON file is an EEE aggregate record, of any schema version."""
    return (
        isinstance(tree, dict)
        and "evaluation_results" in tree
        and ("schema_version" in tree or "evaluation_id" in tree)
        and ("model_info" in tree or "source_metadata" in tree)
    )


def is_instance_line(data: bytes) -> bool:
    """Whether a file's bytes are an EEE samples file (JSON Lines of instance records)."""
    end = data.find(b"\n")
    try:
        first = json.loads(data[: end if end >= 0 else len(data)])
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False
    return isinstance(first, dict) and "sample_id" in first and "evaluation_id" in first and "evaluation" in first


def samples_name(tree: dict[str, Any], file_name: str) -> str:
    """The name of a record's samples file: the last part of ``detailed_evaluation_results.file_path``, else
    ``<record's stem>_samples.jsonl``."""
    path = common.obj(tree.get("detailed_evaluation_results")).get("file_path")
    if isinstance(path, str) and path.strip():
        return path.replace("\\", "/").rstrip("/").rpartition("/")[2]
    stem = file_name[: -len(".json")] if file_name.endswith(".json") else file_name
    return f"{stem}{SAMPLES_SUFFIX}"


def check_record(tree: dict[str, Any], name: str) -> None:
    """Refuse a record this importer cannot read: another schema version, no model, no results.

    Raises:
        RunFileError: naming the file, the field and how to fix it.
    """
    version = tree.get("schema_version")
    if not isinstance(version, str) or not SUPPORTED_VERSIONS.match(version.strip()):
        raise RunFileError(
            f"{name}: an Every Eval Ever record of schema version {common.short(version)}",
            problems=[
                f"schema_version: {common.short(version)} is not read here; evalcore reads schema versions 0.2 and "
                "0.3 (0.1 kept source_data outside the results): convert the evaluation again with "
                "every_eval_ever 0.3, whose converters and adapters write 0.3.0"
            ],
        )
    model = common.obj(tree.get("model_info"))
    if not isinstance(model.get("id"), str) or not model["id"].strip():
        raise RunFileError(
            f"{name}: an Every Eval Ever record with no model",
            problems=[
                f"model_info.id: {'missing' if 'id' not in model else common.short(model.get('id'))}; a record "
                "names the model it evaluated (model_info.id, e.g. meta-llama/Llama-3.1-8B-Instruct): add it"
            ],
        )
    results = tree.get("evaluation_results")
    if not isinstance(results, list) or not results:
        raise RunFileError(
            f"{name}: an Every Eval Ever record with no results",
            problems=["evaluation_results: no result; a record lists at least one benchmark's score"],
        )


def import_eee(
    tree: dict[str, Any],
    samples: tuple[str, bytes] | None,
    stamp: common.Stamp,
    notes: common.Notes,
    on_progress: Progress | None = None,
) -> records.Run:
    """The run an EEE record (and its samples file, when there is one) holds.

    Args:
        tree: the aggregate record, checked by :func:`check_record`.
        samples: (the samples file's name, its bytes), or None when the record has none here.
        stamp: where the files came from (their hash gives the run's id).
        notes: what the import changed or left out.
        on_progress: called with (lines done, lines in all) as the samples file is read.

    Raises:
        RunFileError: the samples file holds a line that is not JSON (truncated); no result has a score.
    """
    reader = _Reader(tree, notes)
    reader.read_results()
    if samples is not None:
        reader.read_samples(*samples, on_progress)
        reader.drop_unscored()
        reader.note_samples(samples[0])
    reader.add_aggregates()
    if not reader.results:
        raise RunFileError(
            f"{stamp.file_name}: no results to import",
            problems=["evaluation_results: no result has a score evalcore can read", *notes.as_list()],
        )
    created = _time(tree.get("evaluation_timestamp")) or _time(tree.get("retrieved_timestamp")) or stamp.imported_at
    only = sorted(reader.aggregate_only)
    if only:
        notes.add(
            f"{len(only)} of {len(reader.datasets)} benchmarks have no per-item results (aggregate only: "
            f"{', '.join(only[:5])}{' …' if len(only) > 5 else ''}): ranked by the reported score, with no "
            "interval, P(best) or paired statistics"
        )
    run = records.Run(
        info=records.RunInfo(
            id=common.run_id("eee", stamp.digest),
            suite=str(common.obj(tree.get("source_metadata")).get("source_name") or "Every Eval Ever"),
            created_at=created,
            finished_at=None,
            status="completed",
            settings={
                "eee": {
                    "evaluation_id": tree.get("evaluation_id"),
                    "model_info": tree.get("model_info"),
                    "source_metadata": tree.get("source_metadata"),
                    "eval_library": tree.get("eval_library"),
                    "reported": reader.reported,
                },
                common.IMPORT_KEY: {
                    "source_counts": {
                        "evaluation_results": len(common.obj(tree).get("evaluation_results") or []),
                        "instance_lines": reader.lines,
                        "aggregate_only": only,
                    },
                    "notes": notes.as_list(),
                },
            },
        ),
        metrics=reader.metrics(),
        contenders=[reader.contender],
        cases=list(reader.cases.values()),
        results=list(reader.results.values()),
    )
    common.sort_results(run)
    run.info.provenance = common.provenance(stamp, run, None, {})
    return run


def layout_of(tree: dict[str, Any], samples: bool) -> str:
    """The layout, for a person."""
    with_samples = " + samples (instance level)" if samples else ", aggregate only"
    return f"Every Eval Ever record (schema {tree.get('schema_version')}){with_samples}"


def eval_library(tree: dict[str, Any]) -> tuple[str, str]:
    """The library that ran the evaluation, as the record names it: (name, version)."""
    library = common.obj(tree.get("eval_library"))
    return str(library.get("name") or "unknown"), str(library.get("version") or "unknown")


@dataclass
class _Metric:
    """One reported result's metric: where it goes (dataset, metric name) and how its values are read."""

    dataset: str
    name: str
    config: dict[str, Any]
    higher: bool
    index: int


@dataclass
class _Reader:
    tree: dict[str, Any]
    notes: common.Notes
    cases: dict[tuple[str, str], records.Case] = field(default_factory=dict)
    results: dict[tuple[str, str, int], records.Result] = field(default_factory=dict)
    reported: list[dict[str, Any]] = field(default_factory=list)
    datasets: dict[str, list[_Metric]] = field(default_factory=dict)
    aggregate_only: set[str] = field(default_factory=set)
    lines: int = 0
    _by_id: dict[str, _Metric] = field(default_factory=dict)
    _by_name: dict[str, _Metric] = field(default_factory=dict)
    _values: dict[int, float | None] = field(default_factory=dict)
    _has_lines: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        model = common.obj(self.tree.get("model_info"))
        self.contender = records.Contender(id=str(model["id"]), model=str(model["id"]), settings={})

    def read_results(self) -> None:
        taken: list[str] = [HEADLINE]
        for i, item in enumerate(self.tree.get("evaluation_results") or []):
            where = f"evaluation_results.{i}"
            if not isinstance(item, dict) or not isinstance(item.get("evaluation_name"), str):
                self.notes.add(f"{where}: no evaluation_name; left out")
                continue
            config = common.obj(item.get("metric_config"))
            dataset = item["evaluation_name"]
            label = str(config.get("metric_id") or config.get("metric_name") or config.get("metric_kind") or "value")
            existing = next((m for m in self.datasets.get(dataset, []) if m.config.get("_label") == label), None)
            if existing is not None:
                self.notes.add(f"{where}: {dataset} reports {label} twice; the first is kept")
                continue
            name = next((m.name for ms in self.datasets.values() for m in ms if m.config.get("_label") == label), None)
            if name is None:
                name = common.metric_name(label, taken)
                taken.append(name)
            metric = _Metric(dataset, name, {**config, "_label": label}, not bool(config.get("lower_is_better")), i)
            self.datasets.setdefault(dataset, []).append(metric)
            if isinstance(item.get("evaluation_result_id"), str):
                self._by_id[item["evaluation_result_id"]] = metric
            self._by_name.setdefault(dataset, metric)
            score = common.obj(item.get("score_details")).get("score")
            self._values[i] = self._value(metric, score, f"{where}.score_details.score")
            self.reported.append(
                {"dataset": dataset, "metric": name, "source_data": item.get("source_data"), **_reported(item)}
            )

    def _value(self, metric: _Metric, score: Any, where: str) -> float | None:
        value, why = unit_score(score, metric.config)
        if why is not None:
            self.notes.add(f"{where}: {why}; imported as null")
        return value

    def read_samples(self, name: str, data: bytes, on_progress: Progress | None) -> None:
        lines = data.splitlines()
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                raise RunFileError(
                    f"{name}: not valid JSON Lines",
                    problems=[f"line {number}: {e} (a truncated or damaged samples file; nothing was imported)"],
                ) from None
            self._line(name, number, item)
            if on_progress is not None and number % 1000 == 0:
                on_progress(number, len(lines))
        if on_progress is not None:
            on_progress(len(lines), len(lines))

    def _line(self, name: str, number: int, item: Any) -> None:
        where = f"{name}: line {number}"
        if not isinstance(item, dict) or "sample_id" not in item:
            self.notes.add(f"{where}: no sample_id; left out")
            return
        metric = self._by_id.get(str(item.get("evaluation_result_id"))) or self._by_name.get(
            str(item.get("evaluation_name"))
        )
        if metric is None:
            self.notes.add(
                f"{where}: evaluation_name {common.short(item.get('evaluation_name'))} is no result of the record; "
                "left out"
            )
            return
        self.lines += 1
        self._has_lines.add(metric.dataset)
        case_id = str(item["sample_id"])
        case = self.cases.get((metric.dataset, case_id))
        if case is None:
            case = self.cases[(metric.dataset, case_id)] = items.case_of(metric.dataset, case_id, item)
        value = self._value(metric, common.obj(item.get("evaluation")).get("score"), f"{where}: evaluation.score")
        sample = items.sample_of(item, self.results, (metric.dataset, case_id), metric.name)
        key = (metric.dataset, case_id, sample)
        result = self.results.get(key)
        if result is None:
            result = self.results[key] = items.result_of(self.contender.id, metric.dataset, case_id, sample, item)
        result.metrics[metric.name] = value
        if metric is self.datasets[metric.dataset][0]:
            headline = value if value is None or metric.higher else 1.0 - value
            result.metrics[HEADLINE] = headline
            result.score = headline if result.status == "scored" else None
        result.diagnostics.setdefault("is_correct", {})[metric.name] = common.obj(item.get("evaluation")).get(
            "is_correct"
        )

    def drop_unscored(self) -> None:
        """An item failed is an error result (no metrics); an item with no headline value is left out, with a note:
        a scored result has a score."""
        for key, result in list(self.results.items()):
            if result.status == "error":
                result.metrics, result.score = {}, None
            elif result.score is None:
                del self.results[key]
                first = self.datasets[result.dataset][0].name
                self.notes.add(f"{result.dataset}: item {result.case}: no value of {first} in [0, 1]; left out")
        kept = {(r.dataset, r.case) for r in self.results.values()}
        self.cases = {k: c for k, c in self.cases.items() if k in kept}

    def note_samples(self, name: str) -> None:
        """What the samples file gave: its items per benchmark, and each reported score its items do not give."""
        items = {d: len({r.case for r in self.results.values() if r.dataset == d}) for d in self._has_lines}
        shown = ", ".join(f"{d}: {n}" for d, n in sorted(items.items()))
        self.notes.add(f"{name}: instance lines read: {self.lines}; items per benchmark: {shown}")
        for dataset in sorted(self._has_lines):
            first = self.datasets[dataset][0]
            values = [
                v
                for r in self.results.values()
                if r.dataset == dataset and (v := r.metrics.get(first.name)) is not None
            ]
            reported = self._values.get(first.index)
            if values and reported is not None and abs(sum(values) / len(values) - reported) > 1e-6:
                self.notes.add(
                    f"{dataset}: reported {first.name} {reported:.4g}; the items here (n = {len(values)}) average "
                    f"{sum(values) / len(values):.4g}, which the leaderboard shows"
                )

    def add_aggregates(self) -> None:
        """One case per benchmark with no per-item line, holding its reported scores."""
        for dataset, metrics in self.datasets.items():
            if dataset in self._has_lines:
                continue
            first = self._values.get(metrics[0].index)
            if first is None:
                self.notes.add(f"{dataset}: no reported score in [0, 1] for {metrics[0].name}; benchmark left out")
                continue
            self.aggregate_only.add(dataset)
            item = self.tree["evaluation_results"][metrics[0].index]
            self.cases[(dataset, AGGREGATE_CASE)] = records.Case(
                dataset=dataset,
                id=AGGREGATE_CASE,
                variant="default",
                input=str(common.obj(item.get("metric_config")).get("evaluation_description") or dataset),
                expected=None,
                metadata={records.AGGREGATE_ONLY: True, "source_data": item.get("source_data")},
            )
            values = {m.name: self._values.get(m.index) for m in metrics}
            headline = first if metrics[0].higher else 1.0 - first
            self.results[(dataset, AGGREGATE_CASE, 0)] = records.Result(
                contender=self.contender.id,
                dataset=dataset,
                case=AGGREGATE_CASE,
                sample=0,
                status="scored",
                score=headline,
                metrics={HEADLINE: headline, **values},
                diagnostics={"reported": [_reported(self.tree["evaluation_results"][m.index]) for m in metrics]},
            )

    def metrics(self) -> list[records.Metric]:
        out = [
            records.Metric(
                HEADLINE,
                "Each benchmark's first reported metric, on a 0..1 scale (its complement when lower is better).",
                True,
                True,
            )
        ]
        seen = {HEADLINE}
        for metrics in self.datasets.values():
            for m in metrics:
                if m.name not in seen:
                    seen.add(m.name)
                    label = str(m.config.get("metric_name") or m.config["_label"])
                    text = f"Every Eval Ever metric {label}, on a 0..1 scale."
                    out.append(records.Metric(m.name, text, m.higher, False))
        return out


def unit_score(score: Any, config: dict[str, Any]) -> tuple[float | None, str | None]:
    """A reported score as a value in [0, 1]: as it is when it lies there, else rescaled by the metric's finite
    ``min_score`` and ``max_score``; None with why otherwise."""
    value, why = common.unit_value(score)
    if value is not None or isinstance(score, bool) or not isinstance(score, int | float):
        return value, why
    low, high = _float(config.get("min_score")), _float(config.get("max_score"))
    if low is not None and high is not None and high > low and low <= score <= high:
        return (float(score) - low) / (high - low), None
    return None, f"{score} is outside [0, 1] and the metric gives no finite min_score and max_score around it"


def _float(value: Any) -> float | None:
    """A finite number as a float, else None (a bound written ``"Infinity"``, text, null)."""
    finite = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if finite else None


def _reported(item: dict[str, Any]) -> dict[str, Any]:
    details = common.obj(item.get("score_details"))
    return {"score": details.get("score"), "uncertainty": details.get("uncertainty")}


def _time(value: Any) -> str | None:
    """An EEE timestamp (Unix epoch seconds as text, or ISO 8601) as RFC 3339 UTC."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return common.utc_timestamp(value)
    try:
        return common.utc_timestamp(datetime.fromtimestamp(seconds, tz=UTC).isoformat())
    except (ValueError, OverflowError, OSError):
        return None
