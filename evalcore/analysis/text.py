"""Leaderboards as text for the CLI: an aligned table, JSON, CSV or Markdown.

Input is a ranked table (:func:`evalcore.analysis.leaderboard.rank` or
:func:`~evalcore.analysis.leaderboard.leaderboard`), already in rank order; nothing here computes, it only
formats.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from evalcore.analysis.results import USAGE_COLUMNS
from evalcore.analysis.weights import weight_shares
from evalcore.core.records import Metric

FORMATS = ("table", "json", "csv", "markdown")
#: Shown for a null value.
DASH = "–"
BEST_MARK = "★ best"
VALUE_MARK = "$ value"


def row_keys(table: pd.DataFrame, metrics: Sequence[Metric]) -> list[str]:
    """The exported keys, in order, that the table has.

    ``contender`` (``dataset``), ``cases, scored, errors, score, <metrics>, cost, time,
    input_tokens, output_tokens, wscore, rank, best, best_value``, then the interval fields
    (``score_lo, score_hi, <metric>_lo, <metric>_hi, wscore_lo, wscore_hi``) and ``p_best``.
    """
    names = [m.name for m in metrics]
    keys = [
        "contender",
        "dataset",
        "cases",
        "scored",
        "errors",
        "score",
        *names,
        *USAGE_COLUMNS,
        "wscore",
        "rank",
        "best",
        "best_value",
    ]
    keys += [f"{name}_{end}" for name in ["score", *names, "wscore"] for end in ("lo", "hi")]
    return [key for key in [*keys, "p_best"] if key in table.columns]


def format_leaderboard(
    table: pd.DataFrame,
    metrics: Sequence[Metric],
    fmt: str = "table",
    *,
    weights: Mapping[str, float] | None = None,
    best_value_points: float = 0.02,
) -> str:
    """Render a ranked table.

    Args:
        table: a ranked leaderboard, in rank order.
        metrics: the declared metrics (columns, and the glossary's descriptions).
        fmt: ``table`` (aligned text with marks, glossary and weight shares), ``json`` (a list of
            rows, NaN as null), ``csv`` or ``markdown`` (a pipe table, then the glossary).
        weights: the weights behind ``wscore``, for the glossary's shares.
        best_value_points: the best-value margin, for the glossary.

    Raises:
        ValueError: an unknown ``fmt``.
    """
    if fmt == "json":
        return to_json(table, metrics)
    if fmt == "csv":
        return table[row_keys(table, metrics)].to_csv(index=False)
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    header, rows = _cells(table, metrics)
    notes = glossary(metrics, weights, best_value_points, intervals="score_lo" in table.columns)
    if fmt == "markdown":
        return "\n".join([*_pipe_table(header, rows), "", *(f"- {line}" for line in notes)]) + "\n"
    return "\n".join([*_aligned(header, rows), "", *notes]) + "\n"


def to_json(table: pd.DataFrame, metrics: Sequence[Metric]) -> str:
    """The table as a JSON list of rows, in table order, with null for NaN."""
    keys = row_keys(table, metrics)
    rows = [
        {key: _plain(value) for key, value in zip(keys, values, strict=True)}
        for values in table[keys].itertuples(index=False, name=None)
    ]
    return json.dumps(rows, indent=2, ensure_ascii=False, allow_nan=False)


def _plain(value: object) -> object:
    if value is None or value is pd.NA:
        return None
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return None if math.isnan(value) else float(value)
    return str(value)


def format_percent(value: float) -> str:
    """``0.8125`` → ``81.2%``; null → ``–``."""
    return DASH if _missing(value) else f"{100 * value:.1f}%"


def format_cost(value: float) -> str:
    """USD with at least two significant digits, so a small cost never shows as ``$0.00``.

    ``0.0004`` → ``$0.0004``, ``0.000412`` → ``$0.00041``, ``1.5`` → ``$1.50``, null → ``–``.
    """
    return DASH if _missing(value) else f"${_significant(value)}"


def format_seconds(value: float) -> str:
    """``1.234`` → ``1.23 s``, ``0.0042`` → ``0.0042 s``; null → ``–``."""
    return DASH if _missing(value) else f"{_significant(value)} s"


def _significant(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 1:
        return f"{value:,.2f}"
    decimals = max(2, 1 - math.floor(math.log10(abs(value))))
    text = f"{value:.{decimals}f}".rstrip("0")
    whole, _, fraction = text.partition(".")
    return f"{whole}.{fraction.ljust(2, '0')}"


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float | np.floating) and math.isnan(value))


def _cells(table: pd.DataFrame, metrics: Sequence[Metric]) -> tuple[list[str], list[list[str]]]:
    keys = ["dataset"] if "dataset" in table.columns else []
    optional = ["P(best)"] if "p_best" in table.columns else []
    header = [
        "#",
        "contender",
        *keys,
        "score",
        *(m.name for m in metrics),
        "wscore",
        "errors",
        "cases",
        "cost",
        "time",
        *optional,
        "",
    ]
    return header, [_row_cells(row, metrics, keys, bool(optional)) for row in table.to_dict("records")]


def _row_cells(row: dict, metrics: Sequence[Metric], keys: list[str], with_p_best: bool) -> list[str]:
    cells = [
        str(row.get("rank", "")),
        str(row["contender"]),
        *(str(row[k]) for k in keys),
        _with_interval(row, "score", format_percent),
        *(_with_interval(row, m.name, format_percent) for m in metrics),
        _with_interval(row, "wscore", _format_points),
        str(row["errors"]),
        str(row["cases"]),
        format_cost(row["cost"]),
        format_seconds(row["time"]),
    ]
    cells += [format_percent(row["p_best"])] if with_p_best else []
    return [*cells, _marks(row)]


def _format_points(value: float) -> str:
    return DASH if _missing(value) else f"{value:.1f}"


def _with_interval(row: dict, name: str, fmt: Callable[[float], str]) -> str:
    text = fmt(row.get(name, np.nan))
    low, high = row.get(f"{name}_lo", np.nan), row.get(f"{name}_hi", np.nan)
    if _missing(low) or _missing(high):
        return text
    # One shared unit suffix reads better than "80.0%–84.0%".
    return f"{text} [{fmt(low).rstrip('%')}–{fmt(high)}]"


def _marks(row: dict) -> str:
    marks = [BEST_MARK] if row.get("best") else []
    return "  ".join(marks + ([VALUE_MARK] if row.get("best_value") else []))


def _aligned(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    left = {"contender", "dataset", ""}

    def line(cells: list[str]) -> str:
        columns = zip(cells, widths, header, strict=True)
        padded = [c.ljust(w) if h in left else c.rjust(w) for c, w, h in columns]
        return "  ".join(padded).rstrip()

    return [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def _pipe_table(header: list[str], rows: list[list[str]]) -> list[str]:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    rule = ["---" if h in ("contender", "dataset", "") else "---:" for h in header]
    return [line(header), line(rule), *(line(r) for r in rows)]


def glossary(
    metrics: Sequence[Metric],
    weights: Mapping[str, float] | None = None,
    best_value_points: float = 0.02,
    intervals: bool = False,
) -> list[str]:
    """Lines explaining the columns: each metric from its description, the marks, the weight shares."""
    primary = next((m.name for m in metrics if m.primary), None)
    lines = [
        f"score: {primary or 'the primary metric'}, mean over scored results"
        + ("; [low–high] is a 95% bootstrap interval" if intervals else "")
    ]
    lines += [f"{m.name}: {m.description} ({'higher' if m.higher_is_better else 'lower'} is better)" for m in metrics]
    lines += [
        "wscore: weighted score from 0 to 100 (– when a weighted value is missing); "
        "errors: calls that failed after retries; cost: USD per case; time: seconds per case",
        f"{BEST_MARK}: top-ranked row with no errors; {VALUE_MARK}: cheapest row with no errors "
        f"within {100 * best_value_points:g} points of the top score",
    ]
    lines += ["P(best): share of bootstrap resamples in which the row ranks first"] if intervals else []
    shares = weight_shares(weights or {})
    if shares:
        lines.append("weights: " + ", ".join(f"{s['name']} {100 * s['share']:.0f}% ({s['direction']})" for s in shares))
    return lines
