"""A run written as Every Eval Ever records (``evalcore export RUN --to eee``; ``docs/importing.md``).

Every Eval Ever holds one model per record, so each contender becomes one aggregate record (``<uuid>.json``,
``eval.schema.json`` 0.3.0) and, when it has per-case results, a samples file beside it
(``<uuid>_samples.jsonl``, ``instance_level_eval.schema.json``), laid out as the EEE datastore lays them:
``data/<collection>/<developer>/<model>/``. Each dataset × metric is one evaluation result (its mean over the
contender's scored results); each case, sample and metric one instance line. A reported aggregate
(:data:`~evalcore.core.records.AGGREGATE_ONLY`) is written back as a result with no instance line.

The uuid of each record comes from the run's id and the contender, so exporting a run again writes the same
files. Importing them (:mod:`evalcore.runfile.importers.eee`) gives back each case's scores.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from evalcore.core import records
from evalcore.core.version import __version__
from evalcore.runfile.importers.eee import HEADLINE, WRITTEN_VERSION

#: What a path part of the datastore layout may hold; anything else becomes ``_``.
_PATH_PART = re.compile(r"[^A-Za-z0-9._-]+")
#: The first result of a benchmark when the run's primary metric is lower-is-better: evalcore's score as it ranks it.
SCORE_METRIC = "evalcore_score"


@dataclass
class Record:
    """One contender's EEE record: its aggregate JSON, its instance lines, and where they go."""

    folder: str
    """``data/<collection>/<developer>/<model>``."""
    uuid: str
    aggregate: dict[str, Any]
    instances: list[dict[str, Any]]

    def samples_bytes(self) -> bytes:
        """The samples file's bytes (one JSON object per line), as written and checksummed; ASCII, so that no
        reader splits a line on a character Unicode calls a line break (U+2028) inside a text."""
        return b"".join(json.dumps(line).encode() + b"\n" for line in self.instances)


def eee_records(run: records.Run) -> list[Record]:
    """The run as EEE records, one per contender (those with no result are left out)."""
    out = []
    for contender in run.contenders:
        results = [r for r in run.results if r.contender == contender.id]
        if results:
            out.append(_record(run, contender, results))
    return out


def write_eee(run: records.Run, folder: str | Path) -> list[Path]:
    """Write the run's EEE records under ``folder`` (created when missing), in the datastore's layout.

    Returns:
        The files written: each record's aggregate JSON, then its samples file (when it has instance lines).
    """
    written = []
    for record in eee_records(run):
        where = Path(folder) / record.folder
        where.mkdir(parents=True, exist_ok=True)
        aggregate = where / f"{record.uuid}.json"
        aggregate.write_text(json.dumps(record.aggregate, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        written.append(aggregate)
        if record.instances:
            samples = where / f"{record.uuid}_samples.jsonl"
            samples.write_bytes(record.samples_bytes())
            written.append(samples)
    return written


def _record(run: records.Run, contender: records.Contender, results: list[records.Result]) -> Record:
    found = run.info.settings.get("eee")
    imported: dict[str, Any] = found if isinstance(found, dict) else {}
    model_info = _model_info(contender, imported.get("model_info"))
    developer, _, name = model_info["id"].rpartition("/")
    collection = _part(run.info.suite)
    folder = f"data/{collection}/{_part(developer or 'unknown')}/{_part(name)}"
    record_id = str(uuid.UUID(bytes=hashlib.sha256(f"{run.info.id}\n{contender.id}".encode()).digest()[:16], version=4))
    stamp = _epoch(run.info.finished_at or run.info.created_at)
    evaluation_id = f"{collection}/{model_info['id']}/{stamp}"
    cases = {c.key: c for c in run.cases}
    metrics = _metrics(run, bool(imported))
    results_out, instances = [], []
    for dataset in dict.fromkeys(r.dataset for r in results):
        mine = [r for r in results if r.dataset == dataset]
        reported = all(cases[(dataset, r.case)].metadata.get(records.AGGREGATE_ONLY) for r in mine)
        ordered = _ordered(metrics, imported, dataset)
        for metric in ordered:
            # The first metric is what an importer ranks the benchmark by: evalcore's score of each result.
            lead = metric is ordered[0] and not imported
            values = {id(r): r.score if lead else r.metrics.get(metric.name) for r in mine if r.status == "scored"}
            known = [v for v in values.values() if v is not None]
            if not known and metric is not ordered[0]:
                continue
            result_id = f"{dataset}/{metric.name}"
            results_out.append(_result(run, dataset, metric, known, result_id, cases, mine[0], reported))
            for r in [] if reported else mine:
                if r.status == "error" and metric is not ordered[0]:
                    continue  # a failed call is written once, under the first metric
                line = _instance(evaluation_id, model_info["id"], (dataset, result_id), metric, values.get(id(r)), r)
                if line is not None:
                    instances.append(_with_case(line, cases[(dataset, r.case)]))
    aggregate: dict[str, Any] = {
        "schema_version": WRITTEN_VERSION,
        "evaluation_id": evaluation_id,
        "evaluation_timestamp": stamp,
        "retrieved_timestamp": stamp,
        "source_metadata": _source_metadata(run, imported.get("source_metadata")),
        "eval_library": {"name": "evalcore", "version": __version__},
        "model_info": model_info,
        "evaluation_results": results_out,
    }
    record = Record(folder, record_id, aggregate, instances)
    if instances:
        aggregate["detailed_evaluation_results"] = {
            "format": "jsonl",
            "file_path": f"{folder}/{record_id}_samples.jsonl",
            "hash_algorithm": "sha256",
            "checksum": hashlib.sha256(record.samples_bytes()).hexdigest(),
            "total_rows": len(instances),
        }
    return record


def _metrics(run: records.Run, imported: bool) -> list[records.Metric]:
    """The metrics written, evalcore's score first (an importer reads a benchmark's first metric as its headline,
    higher is better): the primary metric, or, when lower is better for it, ``evalcore_score`` before it; of an
    imported record, its own metrics only: the headline is derived from them again when it is read."""
    if imported:
        return [m for m in run.metrics if m.name != HEADLINE]
    primary = [m for m in run.metrics if m.primary]
    if primary and not primary[0].higher_is_better:
        described = f"evalcore's score of each result: its primary metric {primary[0].name}, ranked higher is better."
        primary.insert(0, records.Metric(SCORE_METRIC, described, True, True))
    return primary + [m for m in run.metrics if not m.primary]


def _ordered(metrics: list[records.Metric], imported: dict[str, Any], dataset: str) -> list[records.Metric]:
    """A dataset's metrics in the order written: an imported record's own order for it (its first metric is its
    headline), else the run's (the primary first)."""
    named = [
        e.get("metric") for e in imported.get("reported") or [] if isinstance(e, dict) and e.get("dataset") == dataset
    ]
    first = [m for name in named for m in metrics if m.name == name]
    return first + [m for m in metrics if m not in first]


def _model_info(contender: records.Contender, imported: Any) -> dict[str, Any]:
    """The record's model: the imported record's own ``model_info`` for its contender, else the contender's."""
    if isinstance(imported, dict) and imported.get("id") == contender.model:
        info = dict(imported)
        details = {k: str(v) for k, v in (info.get("additional_details") or {}).items()}
        details.setdefault("deployment_type", "unknown")
        details.setdefault("model_availability", "unknown")
        return {**info, "additional_details": details}
    details = {"deployment_type": "unknown", "model_availability": "unknown", "evalcore_contender": contender.id}
    if contender.settings:
        details["evalcore_settings"] = json.dumps(contender.settings, sort_keys=True, ensure_ascii=False)
    developer = contender.model.split("/", 1)[0] if "/" in contender.model else None
    info = {"name": contender.id, "id": contender.model, "additional_details": details}
    return {**info, "developer": developer} if developer else info


def _source_metadata(run: records.Run, imported: Any) -> dict[str, Any]:
    if isinstance(imported, dict) and imported.get("source_type") and imported.get("evaluator_relationship"):
        return imported
    return {
        "source_name": run.info.suite,
        "source_type": "evaluation_run",
        "source_organization_name": "unknown",
        "evaluator_relationship": "other",
        "additional_details": {"evalcore_run_id": run.info.id},
    }


def _result(
    run: records.Run,
    dataset: str,
    metric: records.Metric,
    values: list[float],
    result_id: str,
    cases: dict[tuple[str, str], records.Case],
    first: records.Result,
    reported: bool,
) -> dict[str, Any]:
    source = cases[(dataset, first.case)].metadata.get("source_data") if reported else None
    mean = sum(values) / len(values) if values else 0.0  # every call failed: EEE's score is a required number
    details: dict[str, Any] = {"score": mean}
    if not reported:
        details["uncertainty"] = {"num_samples": len(values)}
    return {
        "evaluation_result_id": result_id,
        "evaluation_name": dataset,
        "source_data": source
        if isinstance(source, dict) and source.get("source_type")
        else {"dataset_name": dataset, "source_type": "other", "additional_details": {"suite": run.info.suite}},
        "metric_config": {
            "evaluation_description": metric.description,
            "metric_id": metric.name,
            "metric_name": metric.name,
            "lower_is_better": not metric.higher_is_better,
            "score_type": "continuous",
            "min_score": 0.0,
            "max_score": 1.0,
        },
        "score_details": details,
    }


def _instance(
    evaluation_id: str,
    model_id: str,
    where: tuple[str, str],
    metric: records.Metric,
    value: float | None,
    result: records.Result,
) -> dict[str, Any] | None:
    """One instance line, its case left to :func:`_with_case`: a result's value of one metric (None when it has
    none and did not fail)."""
    if result.status == "scored" and value is None:
        return None
    dataset, result_id = where
    reply = result.raw if result.raw is not None else _text(result.output)
    line: dict[str, Any] = {
        "schema_version": WRITTEN_VERSION,
        "evaluation_id": evaluation_id,
        "model_id": model_id,
        "evaluation_name": dataset,
        "evaluation_result_id": result_id,
        "sample_id": result.case,
        "interaction_type": "single_turn",
        "output": {"raw": [reply]},
        "answer_attribution": [
            {
                "turn_idx": 0,
                "source": "output.raw",
                "extracted_value": reply,
                "extraction_method": f"evalcore:{metric.name}",
                "is_terminal": True,
            }
        ],
        "evaluation": {"score": value if value is not None else 0.0, "is_correct": value == 1.0},
        "metadata": {"sample": str(result.sample)},
    }
    usage = result.usage
    if usage.input_tokens is not None and usage.output_tokens is not None:
        total = usage.input_tokens + usage.output_tokens
        line["token_usage"] = {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "total_tokens": total,
        }
    if result.latency_s is not None:
        line["performance"] = {"latency_ms": 1000 * result.latency_s}
    if result.status == "error":  # never empty: an importer reads an empty error as none
        line["error"] = (result.error.message or result.error.kind) if result.error is not None else "error"
    return line


def _with_case(line: dict[str, Any], case: records.Case) -> dict[str, Any]:
    """The line with its case's input, reference answers, ``sample_hash`` and variant."""
    raw, reference, choices = _input(case)
    digest = json.dumps({"raw": raw, "reference": reference}, sort_keys=True, separators=(",", ":"))
    line["sample_hash"] = hashlib.sha256(digest.encode()).hexdigest()
    line["input"] = {"raw": raw, "reference": reference, **({"choices": choices} if choices else {})}
    line["metadata"]["variant"] = case.variant
    return line


def _input(case: records.Case) -> tuple[str, list[str], list[str] | None]:
    """The case's input as text, its expected answers as texts, and its choices (a multiple choice)."""
    given = case.input
    choices = None
    if isinstance(given, dict) and isinstance(given.get("choices"), list) and "prompt" in given:
        choices = [_text(c) for c in given["choices"]]
        given = given["prompt"]
    expected = case.expected
    reference = (
        [_text(e) for e in expected] if isinstance(expected, list) else [] if expected is None else [_text(expected)]
    )
    return _text(given), reference, choices


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _part(text: str) -> str:
    return _PATH_PART.sub("_", text).strip("_") or "unknown"


def _epoch(timestamp: str | None) -> str:
    if not timestamp:
        return "0"
    return f"{datetime.fromisoformat(timestamp.replace('Z', '+00:00')).timestamp():.0f}"


def files_of(written: Iterable[Path]) -> str:
    """The files written, for a line of output."""
    return ", ".join(str(p) for p in written)
