"""The explorer's cases drill-down, computed without a browser: which results the Cases page lists, and
everything about one answer (input, expected, output, right and wrong fields, contenders side by side).

Nothing here imports streamlit or litellm: a drill-down reads a run, stored or from a file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from evalcore.analysis.scores.results import Filters, metadata_matches
from evalcore.core.errors import EvalcoreError
from evalcore.core.images import image_refs, text_input
from evalcore.core.records import Metric, Result, Run
from evalcore.explorer.samples import disagreeing_cases

#: The metric behind the Cases page's "hallucinations only" filter, when a suite declares it.
HALLUCINATION_METRIC = "hallucinated_rate"
#: The metrics that say an answer invented something: fields the text leaves open filled in (``fields``), or
#: a function called where no call was right (``tool_call``).
HALLUCINATION_METRICS = (HALLUCINATION_METRIC, "hallucinated_call")
#: What the Cases page says instead of a score for a failed call.
NOT_SCORED = "not scored: the call failed"


@dataclass
class CaseFilters:
    """What the Cases page lists."""

    contender: str | None = None
    datasets: list[str] = field(default_factory=list)
    variants: list[str] = field(default_factory=list)
    failures_only: bool = False
    errors_only: bool = False
    hallucinations_only: bool = False
    #: Only the results of cases whose samples disagree (:mod:`evalcore.explorer.samples`).
    disagree_only: bool = False
    #: case-insensitive text searched in the inputs.
    text: str = ""
    #: The leaderboard's contender and metadata filters (its datasets and variants are the two above): the
    #: Cases page lists what the leaderboard counts.
    among: Filters = field(default_factory=Filters)


def cases_view(run: Run, filters: CaseFilters | None = None) -> pd.DataFrame:
    """Every result that passes the filters, one row each: where it comes from, its numbers, its error.

    Columns: ``contender, dataset, case, variant, sample, score`` (0–100), one per other metric (0–100),
    ``error`` (``kind: message`` or empty), ``input`` (its first line, shortened). Rows keep the
    run's order: contender, then dataset and case.
    """
    f = filters or CaseFilters()
    metrics = [m for m in run.metrics if not m.primary]  # the primary metric is the score
    cases = {c.key: c for c in run.cases}
    needle = f.text.strip().casefold()
    disagree = disagreeing_cases(run.results) if f.disagree_only else None
    rows = []
    for r in run.results:
        case = cases.get((r.dataset, r.case))
        if case is None or not _keep(r, case, f, needle):
            continue
        if disagree is not None and (r.contender, r.dataset, r.case) not in disagree:
            continue
        row = {
            "contender": r.contender,
            "dataset": r.dataset,
            "case": r.case,
            "variant": case.variant,
            "sample": r.sample,
            "score": _percent(r.score),
        }
        row.update({m.name: _percent(r.metrics.get(m.name)) for m in metrics})
        row["error"] = f"{r.error.kind}: {r.error.message}" if r.error else ""
        row["input"] = input_preview(as_text(text_input(case.input)))
        rows.append(row)
    return pd.DataFrame(rows, columns=list_columns(metrics))


def list_columns(metrics: Iterable[Metric]) -> list[str]:
    """The cases table's columns: where a result comes from, its score, one per other metric, its error and input."""
    return [
        "contender",
        "dataset",
        "case",
        "variant",
        "sample",
        "score",
        *(m.name for m in metrics if not m.primary),
        "error",
        "input",
    ]


def _keep(r: Result, case: Any, f: CaseFilters, needle: str) -> bool:
    if (f.contender and r.contender != f.contender) or (f.datasets and r.dataset not in f.datasets):
        return False
    if f.variants and case.variant not in f.variants:
        return False
    if f.among.contenders and r.contender not in f.among.contenders:
        return False
    if any(not metadata_matches(case.metadata.get(key), values) for key, values in f.among.metadata.items()):
        return False
    if f.failures_only and not (r.status == "error" or (r.score is not None and r.score < 1)):
        return False
    if f.errors_only and not (r.status == "error" or r.error is not None):
        return False
    if f.hallucinations_only and not any((r.metrics.get(name) or 0) > 0 for name in HALLUCINATION_METRICS):
        return False
    return not needle or needle in as_text(case.input).casefold()


def _percent(value: float | None) -> float:
    return float("nan") if value is None else 100.0 * value


def input_preview(text: str, width: int = 90) -> str:
    """An input as the cases list shows it: one line, cut to ``width`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def as_text(value: Any) -> str:
    """A value as text to show verbatim: strings as they are, anything else as indented JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _inline(value: Any) -> str:
    return "null" if value is None else json.dumps(value, ensure_ascii=False, default=str)


def find_result(run: Run, contender: str, dataset: str, case: str, sample: int = 0) -> Result:
    """The one result for this key.

    Raises:
        EvalcoreError: no such result; the message names the key.
    """
    for r in run.results:
        if r.key == (contender, dataset, case, sample):
            return r
    raise EvalcoreError(f"run {run.info.id} has no result for {contender} on {dataset}/{case} (sample {sample})")


def case_detail(run: Run, contender: str, dataset: str, case: str, sample: int = 0) -> dict[str, Any]:
    """Everything about one answer, as text and small tables for side-by-side display.

    Returns:
        ``input`` (without its images), ``images`` (their references: ``path``, ``media_type``, ``sha256``,
        ``bytes``; see :mod:`evalcore.explorer.case_images`), ``expected``, ``output``, ``raw`` (text; ``raw``
        None when there was no reply),
        ``scored`` (False for a failed call, which is never scored), ``not_scored`` (why not, or None),
        ``fields`` (a DataFrame ``field, want, got, right``: every field of the expected answer,
        wrong ones first; empty for a failed call), ``wrong`` (how many fields are wrong; None for a
        failed call), ``status``, ``error`` (``kind: message`` or None), ``error_kind`` and
        ``error_message`` (or None), ``score`` and ``metrics`` (0–100), ``usage`` (tokens and cost), ``latency_s``,
        ``attempts``, ``variant``, ``metadata``.
    """
    the_case = next((c for c in run.cases if c.key == (dataset, case)), None)
    if the_case is None:
        raise EvalcoreError(f"run {run.info.id} has no case {dataset}/{case}")
    r = find_result(run, contender, dataset, case, sample)
    scored = r.status == "scored"
    # A failed call is never scored: it has no answer to hold against the expected one.
    fields = want_vs_got(the_case.expected, r) if scored else pd.DataFrame(columns=["field", "want", "got", "right"])
    return {
        "input": as_text(text_input(the_case.input)),
        "images": image_refs(the_case.input),
        "expected": as_text(the_case.expected),
        "output": as_text(r.output) if scored else "(no reply: the call failed)",
        "raw": r.raw,
        "scored": scored,
        "not_scored": None if scored else NOT_SCORED,
        "fields": fields,
        "wrong": (int((~fields["right"].astype(bool)).sum()) if len(fields) else 0) if scored else None,
        "status": r.status,
        "error": f"{r.error.kind}: {r.error.message}" if r.error else None,
        "error_kind": r.error.kind if r.error else None,
        "error_message": r.error.message if r.error else None,
        "score": _percent(r.score),
        "metrics": {k: _percent(v) for k, v in r.metrics.items()},
        "usage": {
            "input tokens": r.usage.input_tokens,
            "output tokens": r.usage.output_tokens,
            "cost (USD)": r.usage.cost_usd,
        },
        "latency_s": r.latency_s,
        "attempts": r.attempts,
        "variant": the_case.variant,
        "metadata": dict(the_case.metadata),
    }


def want_vs_got(expected: Any, result: Result) -> pd.DataFrame:
    """One row per field of the expected answer: ``field, want, got, right``, wrong fields first.

    A field is wrong when the scorer's diagnostics name it; for an answer that is not an object, the
    single row ``answer`` is right when the score is 1. For an agent's result (a trace, and an expected
    answer with ``actions``) the rows are what its scorers compared: ``actions (order: …)``, the calls wanted
    and the calls its trace holds, and ``answer``, its final answer, when the case expects one.
    """
    return pd.DataFrame(want_vs_got_rows(expected, result), columns=["field", "want", "got", "right"])


def want_vs_got_rows(expected: Any, result: Result) -> list[dict[str, Any]]:
    """The rows of :func:`want_vs_got` as plain dicts, wrong fields first: for a page of many answers
    (a report), where a DataFrame per answer costs more than the answer."""
    diagnostics = result.diagnostics or {}
    if isinstance(expected, dict) and isinstance(expected.get("actions"), list) and result.trace is not None:
        rows = _path_rows(expected, result)
    elif isinstance(expected, dict):
        output = result.output if isinstance(result.output, dict) else {}
        names = [*expected, *(k for k in diagnostics if k not in expected)]
        rows = [
            {
                "field": n,
                "want": _inline(expected.get(n)),
                "got": _inline(output.get(n)),
                "right": result.status == "scored" and n not in diagnostics,
            }
            for n in names
        ]
    else:
        rows = [
            {"field": "answer", "want": _inline(expected), "got": _inline(result.output), "right": result.score == 1}
        ]
    return sorted(rows, key=lambda row: bool(row["right"]))  # stable: wrong fields first, in order


def _path_rows(expected: dict[str, Any], result: Result) -> list[dict[str, Any]]:
    """An agent's result: the actions it took (its trace's tool calls) against the expected ones, right when the
    trajectory scorer found them in the expected order, and its final answer against the expected one, right
    when a ``contains`` scorer found it (else when the two texts are the same)."""
    order = expected.get("order") or "strict"
    want = [_call_text(a) for a in expected["actions"] if isinstance(a, dict)]
    got = [_call_text(s) for s in result.trace or [] if isinstance(s, dict) and s.get("kind") == "tool"]
    in_order = result.metrics.get("order_correct")
    rows = [
        {
            "field": f"actions (order: {order})",
            "want": _calls_text(want),
            "got": _calls_text(got),
            "right": result.status == "scored" and (in_order == 1 if in_order is not None else want == got),
        }
    ]
    if "answer" in expected:
        answer, contains = expected["answer"], result.metrics.get("contains")
        same = str(result.output or "").strip().casefold() == str(answer).strip().casefold()
        right = contains == 1 if contains is not None else same
        rows.append({"field": "answer", "want": _inline(answer), "got": _inline(result.output), "right": right})
    return rows


def _calls_text(calls: list[str]) -> str:
    """Tool calls in the order made, as a person writes them: ``a(x=1); b()``, or ``no tool call``."""
    return "; ".join(calls) if calls else "no tool call"


def _call_text(call: dict[str, Any]) -> str:
    """``lookup_order(order_id="A17")``: a tool call as one line."""
    arguments = call.get("arguments")
    if isinstance(arguments, dict):
        listed = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in arguments.items())
    else:
        listed = "" if arguments is None else str(arguments)
    return f"{call.get('name')}({listed})"


def compare_answers(run: Run, contenders: Sequence[str], dataset: str, case: str, sample: int = 0) -> pd.DataFrame:
    """Two (or more) contenders' answers to one case, field by field: ``field, want, <contender>...``.

    A contender with no result for the case shows ``(no result)``.
    """
    the_case = next((c for c in run.cases if c.key == (dataset, case)), None)
    if the_case is None:
        raise EvalcoreError(f"run {run.info.id} has no case {dataset}/{case}")
    expected = the_case.expected
    names = list(expected) if isinstance(expected, dict) else ["answer"]
    table = pd.DataFrame(
        {"field": names, "want": [_inline(expected.get(n) if isinstance(expected, dict) else expected) for n in names]}
    )
    for contender in contenders:
        try:
            r = find_result(run, contender, dataset, case, sample)
        except EvalcoreError:
            table[contender] = "(no result)"
            continue
        output = r.output
        table[contender] = [
            "(error)"
            if r.status == "error"
            else _inline(output.get(n) if isinstance(output, dict) else (output if n == "answer" else None))
            for n in names
        ]
    return table


def prompts_asked(run: Run) -> list[dict[str, Any]]:
    """The prompts a run's contenders were asked with, as its provenance records them: ``name``, ``file``,
    ``sha256``, ``text`` and the ``contenders`` that used each, in the lineup's order. Empty when every
    contender was asked the adapter's own messages."""
    recorded = run.info.provenance.get("prompts") or {}
    users: dict[str, list[str]] = {}
    for contender in run.contenders:
        name = contender.settings.get("prompt")
        if isinstance(name, str):
            users.setdefault(name, []).append(contender.id)
    return [
        {
            "name": name,
            "file": (recorded.get(name) or {}).get("file"),
            "sha256": (recorded.get(name) or {}).get("sha256"),
            "text": (recorded.get(name) or {}).get("text"),
            "contenders": ids,
        }
        for name, ids in users.items()
    ]
