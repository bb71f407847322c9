"""Leaderboards as text for the CLI: an aligned table, JSON, CSV or Markdown.

Input is a ranked table (:func:`evalcore.analysis.ranking.leaderboard.rank` or
:func:`~evalcore.analysis.ranking.leaderboard.leaderboard`), already in rank order; nothing here computes, it only
formats.
"""

from __future__ import annotations

import json
import math
import os
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalcore.analysis.ranking.leaderboard import FEW_CASES, RANKED_BY, STOPPED
from evalcore.analysis.scores.formats import DASH, format_cost, format_percent, format_seconds, is_missing
from evalcore.analysis.scores.repeats import SPREAD_COLUMNS, repeat_notes, shown_metric_set
from evalcore.analysis.scores.results import USAGE_COLUMNS
from evalcore.analysis.scores.rules import BEST_VALUE_POINTS
from evalcore.analysis.scores.weights import weight_shares
from evalcore.analysis.tables.banner import banner_of, banner_text
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Metric
from evalcore.core.repeat_metrics import RepeatMetric

FORMATS = ("table", "json", "csv", "markdown")
#: Shown for a null value.
BEST_MARK = "★ best"
VALUE_MARK = "$ value"
FEW_MARK = "few cases"
NO_SCORED_MARK = "no scored results"
#: A row holding a reported aggregate score (an imported record without per-item results).
AGGREGATE_MARK = "aggregate only"
#: What the aggregate-only mark means, in the table's notes (the CLI, the app, the report).
AGGREGATE_NOTE = (
    f"{AGGREGATE_MARK}: a reported aggregate score (an imported record with no per-item results): ranked by it, "
    "with no interval, P(best) or paired statistics, which need each case's result"
)
#: An adaptive run's contender that its race stopped (the table's notes say after how many cases, behind whom).
STOPPED_MARK = "stopped"


def row_keys(table: pd.DataFrame, metric_set: MetricSet) -> list[str]:
    """The exported keys, in order, that the table has.

    ``contender`` (``dataset`` or ``variant``), ``cases`` (results, as the spec counts them), ``scored, errors,
    distinct_cases, samples, score, <metrics>, cost, time, input_tokens, output_tokens``, ``pass_rate``
    (only when a case declares minimum scores), ``wscore, rank, best, best_value, few_cases``, ``aggregate_only``
    (only when a row holds reported aggregate scores), ``stopped`` (an
    adaptive run's: the race's stop text, null for a contender still in; JSON has it for every run), then the
    interval fields
    (``score_lo, score_hi, <metric>_lo, <metric>_hi, wscore_lo, wscore_hi``), ``p_best`` and ``stability``
    (the share of weight jitters in which the row ranks first; null without weights). The metrics
    include the aggregate metrics (``macro_f1``) after the declared ones, then a run with several samples per case
    has its repeat metrics (``pass@k``, ``pass^k``, ``consistency``) and ``sd_within, sd_between``.
    """
    names = [m.name for m in metric_set.metrics]
    keys = [
        "contender",
        "dataset",
        "variant",
        RANKED_BY,
        "cases",
        "scored",
        "errors",
        "distinct_cases",
        "samples",
        "score",
        *names,
        *SPREAD_COLUMNS,
        *USAGE_COLUMNS,
        "pass_rate",
        "wscore",
        "rank",
        "best",
        "best_value",
        "few_cases",
        "aggregate_only",
        STOPPED,
    ]
    keys += [f"{name}_{end}" for name in ["score", *names, "wscore"] for end in ("lo", "hi")]
    return [key for key in [*keys, "p_best", "stability"] if key in table.columns]


def format_leaderboard(
    table: pd.DataFrame,
    metric_set: MetricSet,
    fmt: str = "table",
    *,
    weights: Mapping[str, float] | None = None,
    best_value_points: float = BEST_VALUE_POINTS,
    width: int | None = None,
) -> str:
    """Render a ranked table.

    Args:
        table: a ranked leaderboard, in rank order.
        metric_set: the run's metric set (columns, and the glossary's descriptions).
        fmt: ``table`` (aligned text with marks, the banner (:mod:`evalcore.analysis.tables.banner`), glossary and
            weight shares),
            ``json`` (a list of rows, NaN as null), ``csv`` or ``markdown`` (a pipe table, then the glossary).
        weights: the weights behind ``wscore``, for the glossary's shares.
        best_value_points: the best-value margin, for the glossary.
        width: for ``table``, the most characters a line may have: columns are left out (see
            :data:`FIT_STEPS`) and notes wrapped to fit; None shows every column.

    Raises:
        ValueError: an unknown ``fmt``.
    """
    metric_set = shown_metric_set(metric_set, table, brief=fmt in ("table", "markdown"))
    metrics = metric_set.metrics
    if fmt == "json":
        return to_json(table, metric_set)
    if fmt == "csv":
        return table[row_keys(table, metric_set)].to_csv(index=False)
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    notes = glossary(metric_set, weights, best_value_points, intervals="score_lo" in table.columns, table=table)
    notes += repeat_notes(table)
    banner = banner_text(banner_of(table, weights, best_value_points))
    if fmt == "markdown":
        lines = _pipe_table(_columns(table, metrics, set(), short=False, weighted=bool(weights)))
        said = [*(f"{line}  " for line in banner[:-1]), *banner[-1:], ""] if banner else []
        return "\n".join([*lines, "", *said, *(f"- {line}" for line in notes)]) + "\n"
    lines, left_out = _fitted(table, metrics, width, weighted=bool(weights))
    if left_out:
        notes.append(f"not shown, to fit {width} characters: {', '.join(left_out)} (--wide shows every column)")
    notes = [*banner, "", *notes] if banner else notes
    if width is not None:
        notes = [wrapped for note in notes for wrapped in (textwrap.wrap(note, width, subsequent_indent="  ") or [""])]
    return "\n".join([*lines, "", *notes]) + "\n"


def to_json(table: pd.DataFrame, metric_set: MetricSet) -> str:
    """The table as a JSON list of rows, in table order, with null for NaN; ``stopped`` is always there (null
    for every row of a run that is not a race), so a reader meets one set of keys."""
    if STOPPED not in table.columns:
        table = table.assign(**{STOPPED: pd.Series([None] * len(table), index=table.index, dtype=object)})
    keys = row_keys(table, metric_set)
    rows = [
        {key: json_value(value) for key, value in zip(keys, values, strict=True)}
        for values in table[keys].itertuples(index=False, name=None)
    ]
    return json.dumps(rows, indent=2, ensure_ascii=False, allow_nan=False)


def json_value(value: object) -> object:
    """A table cell as JSON: NaN and <NA> as null, numpy scalars as Python ones, anything else as text."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return None if math.isnan(value) else float(value)
    return str(value)


@dataclass(frozen=True)
class _Column:
    """One column of the text table: its header, its cells, and when it is left out to fit a width."""

    header: str
    cells: list[str]
    #: The first :data:`FIT_STEPS` step that leaves it out; None: never left out.
    drop: str | None = None
    left: bool = False


#: What goes, in order, until a table fits its width: tokens, per-metric intervals, per-metric
#: columns, cases, the wscore interval, the score interval, P(best); then the marks are shortened
#: (:data:`SHORT_MARKS`, before a run of repeats loses its point, pass^k and consistency), the
#: repeat columns go, and contender ids are cut in the middle. Rank, contender, score, wscore,
#: errors, cost and time always stay.
SHORT_MARKS = "short marks"
FIT_STEPS = (
    "tokens",
    "metric intervals",
    "metrics",
    "cases",
    "wscore interval",
    "score interval",
    "P(best)",
    SHORT_MARKS,
    "repeats",
)
#: A contender id is never cut below this many characters.
MIN_CONTENDER = 16


def _columns(
    table: pd.DataFrame, metrics: Sequence[Metric], dropped: set[str], short: bool, weighted: bool = False
) -> list[_Column]:
    rows = table.to_dict("records")
    metric_names = [m.name for m in metrics if not _repeats_score(table, m)]
    columns = [
        _Column("#", [_rank_text(r) for r in rows]),
        _Column("contender", [str(r["contender"]) for r in rows], left=True),
        *[_Column(key, [str(r[key]) for r in rows], left=True) for key in ("dataset", "variant") if key in table],
    ]
    if (
        RANKED_BY in table
    ):  # a per-dataset table of a run ranked by the corrected score (evalcore.analysis.people.corrected)
        columns.append(_Column("ranked by", [str(r[RANKED_BY]) for r in rows], left=True))
    columns.append(
        _Column("score", [_with_interval(r, "score", format_percent, "score interval" in dropped) for r in rows])
    )
    # The score's pass^k and consistency are a run of repeats' point; another metric's go with the metrics.
    repeated = {m.name for m in metrics if isinstance(m, RepeatMetric) and m.source == "score"}
    columns += [
        _Column(
            name,
            [_with_interval(r, name, format_percent, "metric intervals" in dropped) for r in rows],
            "repeats" if name in repeated else "metrics",
        )
        for name in metric_names
    ]
    if "pass_rate" in table.columns:  # cases that declare minimum_scores (evalcore.analysis.ranking.outcomes)
        columns.append(_Column("pass rate", [format_percent(r["pass_rate"]) for r in rows], "metrics"))
    if weighted or has_wscore(table):
        cells = [_with_interval(r, "wscore", _format_points, "wscore interval" in dropped) for r in rows]
        columns.append(_Column("wscore", cells))
    columns += [
        _Column("errors", [str(r["errors"]) for r in rows]),
        _Column("cases", [cases_text(r) for r in rows], "cases"),
        _Column("cost", [format_cost(r["cost"]) for r in rows]),
        _Column("time", [format_seconds(r["time"]) for r in rows]),
    ]
    columns += [
        _Column(header, [_format_count(r.get(key, np.nan)) for r in rows], "tokens")
        for header, key in (("in tokens", "input_tokens"), ("out tokens", "output_tokens"))
        if key in table.columns
    ]
    if "p_best" in table.columns:
        columns.append(_Column("P(best)", [format_percent(r["p_best"]) for r in rows], "P(best)"))
    columns.append(_Column("", [_marks(r, short) for r in rows], left=True))
    return [c for c in columns if c.drop not in dropped]


def cases_text(row: Mapping[str, object]) -> str:
    """How many cases a row answered: ``48``; ``32 × 3`` when each case has 3 samples; ``32 (95 results)``
    when some case has fewer samples than others. The spec's ``cases`` counts results, not cases."""
    results = int(row["cases"])  # type: ignore[call-overload]
    distinct, samples = row.get("distinct_cases"), row.get("samples")
    if distinct is None or samples is None or is_missing(distinct):
        return str(results)
    distinct, samples = int(distinct), int(samples)  # type: ignore[call-overload]
    if samples <= 1:
        return str(distinct)
    return f"{distinct} × {samples}" if distinct * samples == results else f"{distinct} ({results} results)"


def _repeats_score(table: pd.DataFrame, metric: Metric) -> bool:
    """Whether the metric's column is the score column over again (the primary metric's usually is)."""
    if metric.name not in table.columns:
        return False
    values, score = table[metric.name].to_numpy(float), table["score"].to_numpy(float)
    return bool(np.allclose(values, score, rtol=0, atol=1e-12, equal_nan=True))


def has_wscore(table: pd.DataFrame) -> bool:
    """Whether any row has a wscore: a table ranked without weights has none, and shows no such column."""
    return "wscore" in table.columns and bool(table["wscore"].notna().any())


def _rank_text(row: dict) -> str:
    value = row.get("rank")
    return "" if value is None or value is pd.NA or is_missing(value) else str(int(value))


def _format_count(value: float) -> str:
    return DASH if is_missing(value) else f"{value:,.0f}"


def _format_points(value: float) -> str:
    return DASH if is_missing(value) else f"{value:.1f}"


def _with_interval(row: dict, name: str, fmt: Callable[[float], str], bare: bool = False) -> str:
    text = fmt(row.get(name, np.nan))
    low, high = row.get(f"{name}_lo", np.nan), row.get(f"{name}_hi", np.nan)
    if bare or is_missing(low) or is_missing(high):
        return text
    # One shared unit suffix reads better than "80.0%–84.0%".
    return f"{text} [{fmt(low).rstrip('%')}–{fmt(high)}]"


def _marks(row: dict, short: bool = False) -> str:
    if row.get("scored") == 0:
        return NO_SCORED_MARK
    marks = [(BEST_MARK, "★")] if row.get("best") else []
    marks += [(VALUE_MARK, "$")] if row.get("best_value") else []
    marks += [(FEW_MARK, "few")] if row.get("few_cases") else []
    marks += [(AGGREGATE_MARK, "agg")] if row.get("aggregate_only") is True else []
    marks += [(STOPPED_MARK, STOPPED_MARK)] if stopped_text(row) else []
    return ("  " if not short else " ").join(pair[short] for pair in marks)


def stopped_text(row: Mapping[str, object]) -> str | None:
    """A row's stop text (an adaptive run's contender its race stopped), or None for one still in."""
    value = row.get(STOPPED)
    return value if isinstance(value, str) and value else None


def _aligned(columns: list[_Column]) -> list[str]:
    widths = [max(len(cell) for cell in [c.header, *c.cells]) for c in columns]

    def line(cells: list[str]) -> str:
        padded = [t.ljust(w) if c.left else t.rjust(w) for t, w, c in zip(cells, widths, columns, strict=True)]
        return "  ".join(padded).rstrip()

    rows = zip(*(c.cells for c in columns), strict=True)
    return [line([c.header for c in columns]), line(["-" * w for w in widths]), *(line(list(r)) for r in rows)]


def _fitted(
    table: pd.DataFrame, metrics: Sequence[Metric], width: int | None, weighted: bool = False
) -> tuple[list[str], list[str]]:
    """The aligned table within ``width`` characters (none: everything), and the names of what was left out."""
    dropped: set[str] = set()
    lines = _aligned(_columns(table, metrics, dropped, short=False, weighted=weighted))
    if width is None:
        return lines, []
    wide = {c.header for c in _columns(table, metrics, set(), short=False, weighted=weighted)}
    for step in FIT_STEPS:
        if max(map(len, lines)) <= width:
            break
        dropped.add(step)
        short = SHORT_MARKS in dropped
        lines = _aligned(_columns(table, metrics, dropped, short=short, weighted=weighted))
    excess = max(map(len, lines)) - width
    if excess > 0:
        lines = _aligned(_cut_contenders(_columns(table, metrics, dropped, short=True, weighted=weighted), excess))
    shown = {c.header for c in _columns(table, metrics, dropped, short=True, weighted=weighted)}
    had = {
        "score interval": "score_lo" in table.columns,
        "wscore interval": "wscore_lo" in table.columns and "wscore" in shown,
        "metric intervals": any(f"{m.name}_lo" in table.columns and m.name in shown for m in metrics),
    }
    left_out = sorted(wide - shown) + [
        step.removesuffix("s") + "s" for step, was in had.items() if was and step in dropped
    ]
    return lines, left_out


def _cut_contenders(columns: list[_Column], excess: int) -> list[_Column]:
    """Contender ids shortened by :func:`cut_names`, never below :data:`MIN_CONTENDER`."""
    column = columns[1]
    longest = max(len(cell) for cell in [column.header, *column.cells])
    short = cut_names(column.cells, max(MIN_CONTENDER, longest - excess))
    columns[1] = _Column(column.header, [short[cell] for cell in column.cells], column.drop, column.left)
    return columns


def cut_names(names: Sequence[str], width: int) -> dict[str, str]:
    """Each name at most ``width`` characters, cut where the names do not differ, so that names that differ
    still look different: ``openai/gpt-4o…evalcore 0.1.0 16e4623f``. Show the whole name on hover.

    A name is kept from its start (the model) up to a cut, then from where it starts to differ from the name
    closest to it; a name alone is cut in the middle (``openai/gpt…rompt=terse``).
    """
    unique = list(dict.fromkeys(names))
    return {name: _cut_name(name, [o for o in unique if o != name], width) for name in unique}


def _cut_name(name: str, others: list[str], width: int) -> str:
    n = len(name)
    if n <= width:
        return name
    if not others:
        head = (width - 1) // 2
        return name[:head] + "…" + name[n - (width - 1 - head) :]
    # Where the name starts to differ from the one closest to it, and how much of its end it shares.
    start = min(max(_shared_prefix(name, o) for o in others), n - 1)
    end = max(n - max(_shared_suffix(name, o) for o in others), start + 1)
    if end <= width - 1:
        return name[: width - 1] + "…"
    head = min(start, max(1, (width - 2) // 3))
    if n - start <= width - 1 - head or end == n:  # the rest fits after a head, or the names differ at the end
        head = max(head, width - 1 - (n - start))
        return name[:head] + "…" + name[n - (width - 1 - head) :]
    return name[:head] + "…" + name[start : start + width - 2 - head] + "…"


def _shared_prefix(a: str, b: str) -> int:
    return len(os.path.commonprefix([a, b]))


def _shared_suffix(a: str, b: str) -> int:
    return len(os.path.commonprefix([a[::-1], b[::-1]]))


def _pipe_table(columns: list[_Column]) -> list[str]:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    rule = ["---" if c.left else "---:" for c in columns]
    rows = zip(*(c.cells for c in columns), strict=True)
    return [line([c.header for c in columns]), line(rule), *(line(list(r)) for r in rows)]


def glossary(
    metric_set: MetricSet,
    weights: Mapping[str, float] | None = None,
    best_value_points: float = BEST_VALUE_POINTS,
    intervals: bool = False,
    table: pd.DataFrame | None = None,
) -> list[str]:
    """Lines explaining the columns: each metric from its description, the marks, the weight shares.

    Args:
        table: the table explained: its marks ("few cases", "no scored results") are explained when some
            row has them, and ``wscore`` only when some row has one.
    """
    metrics, primary = metric_set.metrics, metric_set.primary
    lines = [
        f"score: {primary or 'the primary metric'}, mean over scored results"
        + (
            "; [low–high]: 95% Agresti–Coull interval (Clopper–Pearson under 32 cases) when every case scores 0 or 1,"
            " else 95% bootstrap interval"
            if intervals
            else ""
        )
    ]
    lines += [f"{m.name}: {m.description} ({'higher' if m.higher_is_better else 'lower'} is better)" for m in metrics]
    if intervals and metric_set.aggregates:
        lines.append(
            "an aggregate metric's [low–high]: 95% bootstrap interval, the metric recomputed on each resample of "
            "the cases; it has no per-case value, so `evalcore significance` and the cases view leave it out"
        )
    order = metric_set.order
    shares = weight_shares({n: (weights or {})[n] for n in sorted(weights or {}, key=_place_in(order))})
    weighted = bool(shares) if table is None else has_wscore(table) or bool(shares)
    lines += [
        ("wscore: weighted score from 0 to 100 (– when a weighted value is missing); " if weighted else "")
        + "errors: calls that failed after retries; cost: USD per case; time: seconds per case",
        f"{BEST_MARK}: top-ranked row with no errors; {VALUE_MARK}: cheapest row with no errors "
        f"within {100 * best_value_points:g} points of the top score",
    ]
    if intervals:
        lines.append("P(best): share of bootstrap resamples in which the row ranks first (ties share a resample)")
    if intervals and table is not None and _errors_swing_p_best(table, weights):
        lines.append(ERRORS_P_BEST)
    if table is not None and "few_cases" in table.columns and bool(table["few_cases"].any()):
        lines.append(f"{FEW_MARK}: scored on fewer than {FEW_CASES} cases: its intervals are wide, its P(best) shaky")
    if table is not None and "aggregate_only" in table.columns and bool(table["aggregate_only"].any()):
        lines.append(AGGREGATE_NOTE)
    if table is not None and bool((table["scored"] == 0).any()):
        lines.append(f"{NO_SCORED_MARK}: every call failed: no rank, score, wscore or P(best)")
    lines += stop_notes(table)
    if shares:
        lines.append("weights: " + ", ".join(f"{s['name']} {100 * s['share']:.0f}% ({s['direction']})" for s in shares))
    else:
        lines.append("weights: no weights set: ranked by score")
    return lines


def stop_notes(table: pd.DataFrame | None) -> list[str]:
    """What the stopped mark means, then each stopped contender's stop: none when the race stopped nobody."""
    if table is None or STOPPED not in table.columns:
        return []
    stops = {str(r["contender"]): text for r in table.to_dict("records") if (text := stopped_text(r))}
    if not stops:
        return []
    said = [
        f"{STOPPED_MARK}: this adaptive run's race stopped calling it when, with the race's confidence, it could "
        "not be the best; ranked below the contenders still in, its numbers are those of the cases it answered"
    ]
    return said + [f"{contender}: {text}" for contender, text in stops.items()]


#: Why a row ranked low for an error or two can have a high P(best) (see docs/leaderboard.md).
ERRORS_P_BEST = (
    "P(best) of a row with errors: each resample charges only the errors it draws, and a row with 1 error "
    "draws none in about 37% of resamples (2 errors: 14%), where it loses no points and may rank first; "
    "its rank is what the errors cost in this run, its P(best) what it would be worth without them"
)


def _errors_swing_p_best(table: pd.DataFrame, weights: Mapping[str, float] | None) -> bool:
    """Whether a row with errors has a P(best) of 5% or more while the errors penalty is weighted."""
    if "errors" not in (weights or {}) or "p_best" not in table.columns:
        return False
    return bool(((table["errors"] > 0) & (table["p_best"].fillna(0.0) >= 0.05)).any())


def _place_in(order: Sequence[str]) -> Callable[[str], int]:
    place = {name: i for i, name in enumerate(order)}
    return lambda name: place.get(name, len(place))
