"""What the explorer app shows, computed without a browser: leaderboard tables, case lists, case details,
run summaries, shareable query strings, seeding, and runs launched in a background thread.

The app's pages read widgets, call one or two functions here and render the result; everything that
turns data into a table lives here, where it is tested. Nothing here imports streamlit, and nothing
here imports litellm: the explorer renders stored runs and run files without any model call.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import threading
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evalcore.errors import EvalcoreError, WeightsError
from evalcore.leaderboard import BASE_WEIGHT_NAMES, leaderboard, validate_weights, weight_shares
from evalcore.records import Contender, Metric, Result, Run
from evalcore.report import BEST_MARK, VALUE_MARK, glossary

log = logging.getLogger(__name__)

#: The metric behind the Cases page's "hallucinations only" filter, when a suite declares it.
HALLUCINATION_METRIC = "hallucinated_rate"
#: Environment variable that turns on viewer mode (launching, deleting and resuming are refused).
VIEWER_ENV = "EVALCORE_VIEWER"
#: Column kinds of a display table; a page maps each kind to one column configuration.
PERCENT, POINTS, MONEY, SECONDS, COUNT, TEXT = "percent", "points", "money", "seconds", "count", "text"
#: Metadata keys with more distinct values than this are not offered as filters.
MAX_METADATA_VALUES = 30
_TRUE = {"1", "true", "yes", "on"}


# --- selection and filters ------------------------------------------------------------------------


@dataclass
class Filters:
    """Which results a leaderboard counts; an empty list keeps everything."""

    datasets: list[str] = field(default_factory=list)
    variants: list[str] = field(default_factory=list)
    contenders: list[str] = field(default_factory=list)
    #: case metadata key → values to keep, e.g. ``{"difficulty": ["hard"]}``.
    metadata: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class ViewState:
    """Everything the address bar carries: the run, the filters and the weights."""

    run: str | None = None
    filters: Filters = field(default_factory=Filters)
    #: None: the run's own weights.
    weights: dict[str, float] | None = None


def filter_options(frame: pd.DataFrame) -> dict[str, Any]:
    """The values each filter can take in a results frame: datasets, variants, contenders, metadata."""
    def values(column: str) -> list[str]:
        return sorted(frame[column].dropna().astype(str).unique()) if column in frame.columns else []

    # Numbers (word counts) and keys with one value or dozens (ids) are no use as a pick list.
    labels = [c for c in frame.columns if c.startswith("meta_") and not pd.api.types.is_float_dtype(frame[c])]
    metadata = {c.removeprefix("meta_"): values(c) for c in labels}
    metadata = {k: v for k, v in metadata.items() if 2 <= len(v) <= MAX_METADATA_VALUES}
    return {"datasets": values("dataset"), "variants": values("variant"),
            "contenders": values("contender"), "metadata": metadata}


def weight_names(metrics: Sequence[Metric]) -> list[str]:
    """Every name a slider can weight: score, each metric, then errors, cost and time."""
    return ["score", *(m.name for m in metrics), *(n for n in BASE_WEIGHT_NAMES if n != "score")]


def weight_hint(name: str, metrics: Sequence[Metric]) -> str:
    """What a weight on ``name`` means, for a slider's help text."""
    described = {m.name: m.description for m in metrics}
    fixed = {"score": "The primary metric.", "errors": "Failed calls; a row with n errors loses 15 + 5n points.",
             "cost": "USD per case, on a log scale.", "time": "Seconds per call, on a log scale."}
    return f"{described.get(name) or fixed.get(name, name)} Positive: higher is better; negative: lower is better."


#: A weight slider runs over whole numbers: fractional steps drift in the browser (-0.1 came back -0.05).
SLIDER_MAX = 100


def slider_values(weights: Mapping[str, float] | None) -> dict[str, int]:
    """Weights as whole slider positions in [-100, 100]: scaled so the largest magnitude fits, then rounded.

    Scaling leaves shares and ranking alone (the weighted score depends only on the ratios).
    """
    weights = dict(weights or {})
    top = max((abs(w) for w in weights.values()), default=0.0)
    scale = SLIDER_MAX / top if top > 1 else SLIDER_MAX
    return {k: int(round(w * scale)) for k, w in weights.items()}


def slider_weights(positions: Mapping[str, int]) -> dict[str, float]:
    """Slider positions back to weights (non-zero ones), each position / 100."""
    return {k: v / SLIDER_MAX for k, v in positions.items() if v}


def live_shares(weights: Mapping[str, float]) -> dict[str, float]:
    """Each name's share of the weighted score (0 for a zero weight)."""
    shares = {s["name"]: float(s["share"]) for s in weight_shares(weights)}  # type: ignore[arg-type]
    return {name: shares.get(name, 0.0) for name in weights}


# --- the leaderboard ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """How a page shows one column of a display table."""

    name: str
    kind: str
    help: str = ""
    #: printf format for MONEY columns (enough decimals for the smallest value).
    format: str = ""


@dataclass
class LeaderboardView:
    """Display-ready leaderboard tables with what the page writes around them."""

    overall: pd.DataFrame
    per_dataset: dict[str, pd.DataFrame]
    columns: list[Column]
    #: The ranked tables as :func:`evalcore.leaderboard.leaderboard` returns them (for charts).
    ranked: pd.DataFrame
    ranked_by_dataset: pd.DataFrame
    weights: dict[str, float]
    winner: str | None
    best_value: str | None
    #: Share of weight jitters (each weight × 0.5–2) under which the winner stays first.
    stability: float | None
    glossary: list[str]


def leaderboard_view(
    frame: pd.DataFrame,
    metrics: Sequence[Metric],
    weights: Mapping[str, float] | None,
    filters: Filters | None = None,
    contenders: Sequence[Contender] = (),
    *,
    ci: bool = True,
    B: int = 1000,  # noqa: N803 (the bootstrap's usual name)
) -> LeaderboardView:
    """Rank a run's results overall and per dataset, as tables a page shows directly.

    Args:
        frame: the run's results frame (:func:`evalcore.frames.results_frame`).
        metrics: the run's declared metrics.
        weights: name → weight (validated; zeros dropped).
        filters: which results count.
        contenders: the run's contenders, for the settings column.
        ci: add 95% bootstrap intervals and P(best) (skip for a run still in progress).
        B: bootstrap resamples.

    Raises:
        WeightsError: a weight names something that cannot be weighted.
        EvalcoreError: a metadata filter on a key no case has.
    """
    from evalcore.stats import weight_stability

    weights = validate_weights(weights, metrics)
    f = filters or Filters()
    common: dict[str, Any] = dict(datasets=f.datasets or None, variants=f.variants or None,
                                  contenders=f.contenders or None, metadata=f.metadata or None, ci=ci, B=B)
    ranked = leaderboard(frame, metrics, weights, **common)
    by_dataset = leaderboard(frame, metrics, weights, by=("contender", "dataset"), **common)
    money = money_format(np.concatenate([ranked["cost"].to_numpy(float), by_dataset["cost"].to_numpy(float)]))
    columns = display_columns(metrics, money, intervals=ci)
    settings = {c.id: format_settings(c.settings) for c in contenders}
    per_dataset = {str(name): display_table(part, metrics, settings)
                   for name, part in by_dataset.groupby("dataset", sort=True)}
    winner = _flagged(ranked, "best")
    stability = None
    if winner is not None and weights:
        stability = weight_stability(ranked[_aggregate_columns(ranked, metrics)], weights, metrics).get(winner)
    return LeaderboardView(
        overall=display_table(ranked, metrics, settings), per_dataset=per_dataset, columns=columns,
        ranked=ranked, ranked_by_dataset=by_dataset, weights=weights, winner=winner,
        best_value=_flagged(ranked, "best_value"), stability=stability,
        glossary=glossary(metrics, weights, intervals=ci),
    )


def headline(view: LeaderboardView) -> str:
    """The answer in two Markdown lines: the winner and how sure we are, then the best value.

    Names are escaped: they come from a run file.
    """
    if view.winner is None:
        return "**No winner:** every row has errors or no value for a weighted column."
    sure = []
    if view.stability is not None:
        sure.append(f"stays first in {100 * view.stability:.0f}% of weight jitters (each weight × 0.5 to 2)")
    p_best = _value_of(view.ranked, view.winner, "p_best")
    if p_best is not None:
        sure.append(f"ranks first in {100 * p_best:.0f}% of bootstrap resamples of the cases")
    lines = ["; ".join([f"**Winner: {escape_markdown(view.winner)}**", *sure])]
    if view.best_value is not None:
        lines.append(f"**Best value:** {escape_markdown(view.best_value)}, the cheapest row with no errors "
                     "within 2 points of the top score")
    return "  \n".join(lines)


def _aggregate_columns(table: pd.DataFrame, metrics: Sequence[Metric]) -> list[str]:
    names = ["contender", "cases", "scored", "errors", "score", *(m.name for m in metrics), "cost", "time"]
    return [n for n in names if n in table.columns]


def _flagged(table: pd.DataFrame, column: str) -> str | None:
    if column not in table.columns:
        return None
    rows = table.loc[table[column].astype(bool), "contender"]
    return str(rows.iloc[0]) if len(rows) else None


def _value_of(table: pd.DataFrame, contender: str, column: str) -> float | None:
    if column not in table.columns:
        return None
    values = table.loc[table["contender"] == contender, column]
    return None if values.empty or math.isnan(values.iloc[0]) else float(values.iloc[0])


def display_columns(metrics: Sequence[Metric], money: str = "$%.4f", intervals: bool = True) -> list[Column]:
    """The columns of a display table, in order, with their kind and a tooltip."""
    primary = next((m.name for m in metrics if m.primary), "the primary metric")
    cols = [Column("rank", COUNT, "Rank by weighted score (without weights: by score)"),
            Column("contender", TEXT, "Model and the settings its lineup entry varied"),
            Column("mark", TEXT, f"{BEST_MARK}: top row with no errors; {VALUE_MARK}: cheapest row with no "
                                 "errors within 2 points of the top score"),
            Column("settings", TEXT, "Every setting sent with each call"),
            Column("wscore", POINTS, "Weighted score, 0 to 100, higher is better")]
    if intervals:
        cols += [Column("wscore 95% CI", TEXT, "95% bootstrap interval of the weighted score"),
                 Column("P(best)", PERCENT, "Share of bootstrap resamples in which the row ranks first")]
    cols += [Column("score", PERCENT, f"{primary}, mean over scored results")]
    cols += [Column("score 95% CI", TEXT, "95% bootstrap interval of the score")] if intervals else []
    cols += [Column(m.name, PERCENT, f"{m.description} ({'higher' if m.higher_is_better else 'lower'} is better)")
             for m in metrics if not m.primary]
    return cols + [Column("errors", COUNT, "Calls that failed after retries; never scored"),
                   Column("cases", COUNT, "Results counted (cases × samples)"),
                   Column("cost", MONEY, "Mean USD per case", money),
                   Column("time", SECONDS, "Mean seconds per call"),
                   Column("input tokens", COUNT, "Mean input tokens per case"),
                   Column("output tokens", COUNT, "Mean output tokens per case")]


def display_table(ranked: pd.DataFrame, metrics: Sequence[Metric],
                  settings: Mapping[str, str] | None = None) -> pd.DataFrame:
    """A ranked table in display units: percentages 0–100, intervals as text, marks, settings."""
    settings = settings or {}
    out = pd.DataFrame({"rank": ranked["rank"].to_numpy(), "contender": ranked["contender"].astype(str).to_numpy(),
                        "mark": [_mark(r) for r in ranked[["best", "best_value"]].itertuples(index=False)]})
    out["settings"] = [settings.get(c, "") for c in out["contender"]]
    out["wscore"] = ranked["wscore"].to_numpy(float)
    if "p_best" in ranked.columns:
        out["wscore 95% CI"] = _interval_text(ranked, "wscore", 1.0)
        out["P(best)"] = 100 * ranked["p_best"].to_numpy(float)
    out["score"] = 100 * ranked["score"].to_numpy(float)
    if "score_lo" in ranked.columns:
        out["score 95% CI"] = _interval_text(ranked, "score", 100.0)
    for metric in metrics:
        if not metric.primary:
            out[metric.name] = 100 * ranked[metric.name].to_numpy(float)
    out["errors"] = ranked["errors"].to_numpy()
    out["cases"] = ranked["cases"].to_numpy()
    out["cost"] = ranked["cost"].to_numpy(float)
    out["time"] = ranked["time"].to_numpy(float)
    out["input tokens"] = ranked["input_tokens"].to_numpy(float)
    out["output tokens"] = ranked["output_tokens"].to_numpy(float)
    return out


def _mark(row: tuple) -> str:
    best, value = row
    return "  ".join(([BEST_MARK] if best else []) + ([VALUE_MARK] if value else []))


def _interval_text(ranked: pd.DataFrame, name: str, scale: float) -> list[str]:
    lows, highs = ranked[f"{name}_lo"].to_numpy(float), ranked[f"{name}_hi"].to_numpy(float)
    return ["–" if math.isnan(lo) or math.isnan(hi) else f"{scale * lo:.1f}–{scale * hi:.1f}"
            for lo, hi in zip(lows, highs, strict=True)]


def money_format(values: Iterable[float]) -> str:
    """A printf format with enough decimals that the smallest positive cost keeps two significant digits.

    ``[0.0004, 0.01]`` → ``"$%.5f"`` (shows $0.00040); ``[0.000012]`` → ``"$%.6f"``; never fewer than 2 decimals.
    """
    positive = [v for v in values if isinstance(v, int | float) and math.isfinite(v) and v > 0]
    if not positive:
        return "$%.2f"
    decimals = max(2, 1 - math.floor(math.log10(min(positive))))
    return f"$%.{min(decimals, 10)}f"


def format_settings(settings: Mapping[str, Any]) -> str:
    """``{"temperature": 0, "reasoning_effort": "high"}`` → ``"effort=high · t=0"``."""
    from evalcore.lineup import SHORT_NAMES

    parts = [f"{SHORT_NAMES.get(k, k)}={json.dumps(v) if not isinstance(v, str) else v}"
             for k, v in sorted(settings.items())]
    return " · ".join(parts)


# --- cases ----------------------------------------------------------------------------------------


@dataclass
class CaseFilters:
    """What the Cases page lists."""

    contender: str | None = None
    datasets: list[str] = field(default_factory=list)
    variants: list[str] = field(default_factory=list)
    failures_only: bool = False
    errors_only: bool = False
    hallucinations_only: bool = False
    #: case-insensitive text searched in the inputs.
    text: str = ""


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
    rows = []
    for r in run.results:
        case = cases.get((r.dataset, r.case))
        if case is None or not _keep(r, case, f, needle):
            continue
        row = {"contender": r.contender, "dataset": r.dataset, "case": r.case, "variant": case.variant,
               "sample": r.sample, "score": _percent(r.score)}
        row.update({m.name: _percent(r.metrics.get(m.name)) for m in metrics})
        row["error"] = f"{r.error.kind}: {r.error.message}" if r.error else ""
        row["input"] = _preview(as_text(case.input))
        rows.append(row)
    columns = ["contender", "dataset", "case", "variant", "sample", "score", *(m.name for m in metrics),
               "error", "input"]
    return pd.DataFrame(rows, columns=columns)


def _keep(r: Result, case: Any, f: CaseFilters, needle: str) -> bool:
    if (f.contender and r.contender != f.contender) or (f.datasets and r.dataset not in f.datasets):
        return False
    if f.variants and case.variant not in f.variants:
        return False
    if f.failures_only and not (r.status == "error" or (r.score is not None and r.score < 1)):
        return False
    if f.errors_only and not (r.status == "error" or r.error is not None):
        return False
    if f.hallucinations_only and not (r.metrics.get(HALLUCINATION_METRIC) or 0) > 0:
        return False
    return not needle or needle in as_text(case.input).casefold()


def _percent(value: float | None) -> float:
    return float("nan") if value is None else 100.0 * value


def _preview(text: str, width: int = 90) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


_MARKDOWN_SPECIAL = frozenset("\\`*_{}[]()#+-.!|<>~$:=")


def escape_markdown(text: str) -> str:
    """Text that a Markdown renderer shows literally: every Markdown (and Streamlit directive)
    character backslash-escaped, so a run file's names can never become links, images, LaTeX or HTML."""
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIAL else ch for ch in text)


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
    raise EvalcoreError(f"run {run.info.id} has no result for {contender} on {dataset}/{case} "
                        f"(sample {sample})")


def case_detail(run: Run, contender: str, dataset: str, case: str, sample: int = 0) -> dict[str, Any]:
    """Everything about one answer, as text and small tables for side-by-side display.

    Returns:
        ``input``, ``expected``, ``output``, ``raw`` (text; ``raw`` None when there was no reply),
        ``fields`` (a DataFrame ``field, want, got, right``: every field of the expected answer,
        wrong ones first), ``wrong`` (how many fields are wrong), ``status``, ``error`` (text or
        None), ``score`` and ``metrics`` (0–100), ``usage`` (tokens and cost), ``latency_s``,
        ``attempts``, ``variant``, ``metadata``.
    """
    the_case = next((c for c in run.cases if c.key == (dataset, case)), None)
    if the_case is None:
        raise EvalcoreError(f"run {run.info.id} has no case {dataset}/{case}")
    r = find_result(run, contender, dataset, case, sample)
    fields = want_vs_got(the_case.expected, r)
    return {
        "input": as_text(the_case.input), "expected": as_text(the_case.expected),
        "output": as_text(r.output) if r.status == "scored" else "(no reply: the call failed)",
        "raw": r.raw, "fields": fields, "wrong": int((~fields["right"]).sum()) if len(fields) else 0,
        "status": r.status, "error": f"{r.error.kind}: {r.error.message}" if r.error else None,
        "score": _percent(r.score), "metrics": {k: _percent(v) for k, v in r.metrics.items()},
        "usage": {"input tokens": r.usage.input_tokens, "output tokens": r.usage.output_tokens,
                  "cost (USD)": r.usage.cost_usd},
        "latency_s": r.latency_s, "attempts": r.attempts, "variant": the_case.variant,
        "metadata": dict(the_case.metadata),
    }


def want_vs_got(expected: Any, result: Result) -> pd.DataFrame:
    """One row per field of the expected answer: ``field, want, got, right``, wrong fields first.

    A field is wrong when the scorer's diagnostics name it; for an answer that is not an object, the
    single row ``answer`` is right when the score is 1.
    """
    diagnostics = result.diagnostics or {}
    if isinstance(expected, dict):
        output = result.output if isinstance(result.output, dict) else {}
        names = [*expected, *(k for k in diagnostics if k not in expected)]
        rows = [{"field": n, "want": _inline(expected.get(n)), "got": _inline(output.get(n)),
                 "right": result.status == "scored" and n not in diagnostics} for n in names]
    else:
        rows = [{"field": "answer", "want": _inline(expected), "got": _inline(result.output),
                 "right": result.score == 1}]
    table = pd.DataFrame(rows, columns=["field", "want", "got", "right"])
    return table.sort_values("right", kind="stable", ignore_index=True)


def compare_answers(run: Run, contenders: Sequence[str], dataset: str, case: str, sample: int = 0) -> pd.DataFrame:
    """Two (or more) contenders' answers to one case, field by field: ``field, want, <contender>...``.

    A contender with no result for the case shows ``(no result)``.
    """
    the_case = next((c for c in run.cases if c.key == (dataset, case)), None)
    if the_case is None:
        raise EvalcoreError(f"run {run.info.id} has no case {dataset}/{case}")
    expected = the_case.expected
    names = list(expected) if isinstance(expected, dict) else ["answer"]
    table = pd.DataFrame({"field": names,
                          "want": [_inline(expected.get(n) if isinstance(expected, dict) else expected)
                                   for n in names]})
    for contender in contenders:
        try:
            r = find_result(run, contender, dataset, case, sample)
        except EvalcoreError:
            table[contender] = "(no result)"
            continue
        output = r.output
        table[contender] = [
            "(error)" if r.status == "error" else
            _inline(output.get(n) if isinstance(output, dict) else (output if n == "answer" else None))
            for n in names]
    return table


# --- runs -----------------------------------------------------------------------------------------


def winner_of(run: Run, frame: pd.DataFrame | None = None) -> str | None:
    """The best contender of a run under its own weights (no intervals), or None."""
    from evalcore.frames import results_frame

    frame = results_frame(run) if frame is None else frame
    if frame.empty:
        return None
    try:
        table = leaderboard(frame, run.metrics, run.info.weights, ci=False)
    except WeightsError:
        table = leaderboard(frame, run.metrics, None, ci=False)
    return _flagged(table, "best")


def run_summaries(store: Any) -> pd.DataFrame:
    """The run history, newest first: ``id, suite, created`` (UTC, to the second), ``status, contenders,
    cases, results, errors, cost, winner`` (``–`` when no row qualifies).
    """
    columns = ["id", "suite", "created", "status", "contenders", "cases", "results", "errors", "cost", "winner"]
    rows = []
    for info in store.list_runs():
        try:
            winner = winner_of(store.load_run(info["id"])) if info.get("results") else None
        except EvalcoreError as exc:
            log.warning("run %s: no winner: %s", info["id"], exc)
            winner = None
        created = str(info.get("created_at") or "")[:19].replace("T", " ")
        rows.append({"id": info["id"], "suite": info.get("suite"), "created": created,
                     "status": info.get("status"), "contenders": info.get("contenders"),
                     "cases": info.get("cases"), "results": info.get("results"), "errors": info.get("errors"),
                     "cost": info.get("cost_usd"), "winner": winner or "–"})
    table = pd.DataFrame(rows, columns=columns)
    return table.sort_values("created", ascending=False, ignore_index=True) if len(table) else table


def default_run(infos: Sequence[Mapping[str, Any]]) -> str | None:
    """The run to show when none is picked: the newest completed one, else the newest (``infos`` newest first)."""
    completed = [i for i in infos if i.get("status") == "completed"]
    chosen = completed[0] if completed else (infos[0] if infos else None)
    return None if chosen is None else str(chosen["id"])


def run_label(info: Mapping[str, Any]) -> str:
    """How a run picker names a run: ``intake · 2026-11-29 18:04 · completed · 3f2c9a1b``."""
    created = str(info.get("created_at") or "")[:16].replace("T", " ")
    return f"{info.get('suite')} · {created} · {info.get('status')} · {str(info.get('id'))[:8]}"


def bundled_run_files(folder: str | Path) -> list[Path]:
    """The run files (``*.json``, ``*.json.gz``) in ``folder``, by name."""
    root = Path(folder)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_file() and p.name.endswith((".json", ".json.gz")))


def seed_store_from_bundled(store: Any, folder: str | Path) -> list[str]:
    """Import every bundled run file when the store holds no run; returns the imported ids.

    A file that does not validate is skipped with a warning in the log: one bad file must not keep
    a fresh deployment from showing the others.
    """
    from evalcore.runfile import read_run_file

    if store.list_runs():
        return []
    imported = []
    for path in bundled_run_files(folder):
        try:
            run = read_run_file(path)
            store.import_run(run)
        except EvalcoreError as exc:
            log.warning("bundled run file %s skipped: %s", path, exc)
            continue
        imported.append(run.info.id)
    return imported


def viewer_mode(environ: Mapping[str, str] | None = None, secret: Any = None) -> bool:
    """Whether the app runs for viewers only: ``EVALCORE_VIEWER`` (environment, or a secret) is true."""
    env = os.environ if environ is None else environ
    value = secret if secret is not None else env.get(VIEWER_ENV, "")
    return str(value).strip().lower() in _TRUE


# --- the address bar ------------------------------------------------------------------------------

_LIST_KEYS = {"dataset": "datasets", "variant": "variants", "contender": "contenders"}


def encode_query(state: ViewState) -> dict[str, str | list[str]]:
    """The query string of a view: ``run``, repeated ``dataset``/``variant``/``contender``,
    ``meta`` as ``key:value`` items and ``w`` as ``name:weight,...``."""
    params: dict[str, str | list[str]] = {}
    if state.run:
        params["run"] = state.run
    for key, attr in _LIST_KEYS.items():
        values = getattr(state.filters, attr)
        if values:
            params[key] = list(values)
    meta = [f"{k}:{v}" for k, values in state.filters.metadata.items() for v in values]
    if meta:
        params["meta"] = meta
    if state.weights is not None:
        params["w"] = ",".join(f"{name}:{_number(w)}" for name, w in state.weights.items()) or "none"
    return params


def _number(value: float) -> str:
    return f"{value:g}"


def decode_query(params: Mapping[str, str | Sequence[str]]) -> ViewState:
    """Read a view back from a query string; a malformed item is skipped (and logged), never fatal."""
    def listed(key: str) -> list[str]:
        value = params.get(key)
        return [] if value is None else [value] if isinstance(value, str) else [str(v) for v in value]

    filters = Filters(datasets=listed("dataset"), variants=listed("variant"), contenders=listed("contender"))
    for item in listed("meta"):
        key, sep, value = item.partition(":")
        if sep and key:
            filters.metadata.setdefault(key, []).append(value)
    run = listed("run")
    weights_text = listed("w")
    return ViewState(run=run[-1] if run else None, filters=filters,
                     weights=_decode_weights(weights_text[-1]) if weights_text else None)


def _decode_weights(text: str) -> dict[str, float] | None:
    if text == "none":
        return {}
    weights: dict[str, float] = {}
    for item in text.split(","):
        name, sep, number = item.partition(":")
        try:
            value = float(number)
        except ValueError:
            value = float("nan")
        if not sep or not name or not math.isfinite(value):
            log.warning("query string: weight %r skipped; write name:number", item)
            continue
        weights[name.strip()] = value
    return weights or None


def usable_weights(weights: Mapping[str, float] | None, metrics: Sequence[Metric]) -> dict[str, float] | None:
    """Keep only weights these metrics allow (a shared URL may name another suite's metric)."""
    if weights is None:
        return None
    allowed = set(weight_names(metrics))
    return {k: v for k, v in weights.items() if k in allowed}


# --- launching runs -------------------------------------------------------------------------------


def bundled_suites(folder: str | Path) -> dict[str, Path]:
    """Suite folders under ``folder`` (each holding ``evalcore.yaml``), by folder name."""
    root = Path(folder)
    if not root.is_dir():
        return {}
    return {p.name: p for p in sorted(root.iterdir()) if (p / "evalcore.yaml").is_file()}


def build_plan(suite: Any, datasets: Sequence[str] = (), contenders: Sequence[str] = (), samples: int | None = None,
               parallelism: int | None = None, limit: int | None = None) -> Any:
    """A plan of ``suite`` restricted to the chosen datasets and contenders (all when none chosen)."""
    from evalcore.plan import RunOptions, make_plan

    plan = make_plan(suite, RunOptions(datasets=list(datasets), samples=samples, parallelism=parallelism,
                                       limit=limit))
    if contenders:
        wanted = set(contenders)
        plan.contenders = [c for c in plan.contenders if c.id in wanted]
    return plan


def plan_summary(plan: Any) -> dict[str, Any]:
    """What a plan will do: ``matrix`` (contender × dataset calls, with settings), ``calls``,
    ``cost`` (estimated USD or None), ``refused`` (model, settings, reason) and ``missing_keys``
    (model → environment variables it needs)."""
    from evalcore.estimate import estimate_cost

    matrix = pd.DataFrame.from_dict(plan.matrix(), orient="index").rename_axis("contender").reset_index()
    if len(matrix):
        matrix.insert(1, "settings", [format_settings(c.settings) for c in plan.contenders])
        matrix["calls"] = matrix.drop(columns=["contender", "settings"]).sum(axis=1)
    refused = pd.DataFrame([{"model": r.model, "settings": format_settings(r.settings), "reason": r.reason}
                            for r in plan.refused], columns=["model", "settings", "reason"])
    return {"matrix": matrix, "calls": plan.calls, "cost": estimate_cost(plan) if plan.contenders else 0.0,
            "refused": refused, "missing_keys": dict(plan.missing_keys)}


class RunJob:
    """A run working in a background thread, writing to the store; read its progress from any thread.

    The thread makes no UI call; it keeps going if the page that started it goes away. ``cancel``
    asks it to stop: finished results stay stored and the run can be resumed.
    """

    def __init__(self, run: Run, target: Any):
        self.run = run
        self.run_id = run.info.id
        self.stop = threading.Event()
        self.progress: Any = None
        self.status = "starting"
        self.error: str | None = None
        self.started = time.monotonic()
        self._thread = threading.Thread(target=self._work, args=(target,), name=f"evalcore-run-{self.run_id[:8]}",
                                        daemon=True)

    def _work(self, target: Any) -> None:
        try:
            self.status = target(self)
        except EvalcoreError as exc:
            self.status, self.error = "failed", str(exc)
        except Exception as exc:  # noqa: BLE001 - shown in plain words; the traceback goes to the log
            log.exception("run %s failed", self.run_id)
            self.status, self.error = "failed", f"the run stopped on an unexpected error: {exc}"

    def on_progress(self, progress: Any) -> None:
        self.progress = progress

    def start(self) -> RunJob:
        self.status = "running"
        self._thread.start()
        return self

    def cancel(self) -> None:
        self.stop.set()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def rows(self) -> pd.DataFrame:
        """Per contender: ``contender, done, total, errors, share`` (share in [0, 1])."""
        return progress_rows(self.progress)


def progress_rows(progress: Any) -> pd.DataFrame:
    """A runner ``Progress`` as rows: ``contender, done, total, errors, share``."""
    columns = ["contender", "done", "total", "errors", "share"]
    if progress is None:
        return pd.DataFrame(columns=columns)
    rows = [{"contender": name, "done": p.done, "total": p.total, "errors": p.errors,
             "share": p.done / p.total if p.total else 1.0} for name, p in list(progress.contenders.items())]
    return pd.DataFrame(rows, columns=columns)


def launch_run(plan: Any, db_path: str | Path) -> RunJob:
    """Start ``plan`` in a background thread writing to the store at ``db_path``.

    The run's header is stored before this returns, so the run is in the history at once.

    Raises:
        ConfigError: the plan cannot run (nothing to run, a missing API key); nothing was stored.
    """
    from evalcore.runner import execute_plan, start_run
    from evalcore.store import Store

    store = Store(db_path)
    run = start_run(plan, store, str(uuid.uuid4()))

    def work(job: RunJob) -> str:
        return asyncio.run(execute_plan(plan, store, run, on_progress=job.on_progress, stop=job.stop))

    return RunJob(run, work).start()


def resume_run(run_id: str, db_path: str | Path) -> RunJob:
    """Finish an interrupted run in a background thread: only missing results are called.

    Raises:
        ConfigError: the run is completed, or its suite changed or is gone.
    """
    from evalcore.runner import execute_plan, resume_plan
    from evalcore.store import Store

    store = Store(db_path)
    plan, run, done = resume_plan(store, run_id)
    store.set_status(run_id, "running")

    def work(job: RunJob) -> str:
        return asyncio.run(execute_plan(plan, store, run, done, on_progress=job.on_progress, stop=job.stop))

    return RunJob(run, work).start()
