"""The leaderboard as the explorer app shows it, computed without a browser: the filters and weight
sliders, display-ready tables with their column kinds, the headline, and the display formats they share
(money, settings, escaped Markdown).

The app's pages read widgets, call one or two functions here and render the result. The cases drill-down
lives in :mod:`evalcore.explorer.drilldown`, run history and shareable addresses in
:mod:`evalcore.explorer.sharing`, planning and background runs in :mod:`evalcore.explorer.jobs`. Nothing here
imports streamlit or litellm: stored runs and run files are ranked without any model call.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from evalcore.analysis.ranking import leaderboard as ranking
from evalcore.analysis.ranking.leaderboard import FEW_CASES, RANKED_BY, STOPPED, PreparedView, finish, prepare
from evalcore.analysis.ranking.outcomes import PassRates, add_pass_rate
from evalcore.analysis.scores.repeats import repeat_notes, shown_metric_set
from evalcore.analysis.scores.results import Filters
from evalcore.analysis.scores.rules import best_value_text, errors_penalty_text
from evalcore.analysis.scores.weights import validate_weights, weight_shares
from evalcore.analysis.tables import text as table_text
from evalcore.analysis.tables.banner import Banner, banner_markdown, banner_of, flagged, value_of
from evalcore.analysis.tables.text import BEST_MARK, FEW_MARK, NO_SCORED_MARK, STOPPED_MARK, VALUE_MARK, glossary
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import SHORT_NAMES, Contender, Metric

if TYPE_CHECKING:
    from evalcore.analysis.people.corrected import RankBasis

#: Column kinds of a display table; a page maps each kind to one column configuration.
PERCENT, POINTS, MONEY, SECONDS, COUNT, TEXT = "percent", "points", "money", "seconds", "count", "text"
#: Metadata keys with more distinct values than this are not offered as filters.
MAX_METADATA_VALUES = 30
#: The ``pass rate`` column's tooltip (:mod:`evalcore.analysis.ranking.outcomes`).
PASS_RATE_HINT = (
    "Share of the cases with minimum_scores that meet every minimum (an error counts as not passed; "
    "a case whose metric was not computed is left out); higher is better"
)

#: The ``ranked by`` column's tooltip (a per-dataset table of a run ranked by the corrected score).
RANKED_BY_HINT = (
    "The score this dataset's table ranks by: the judge's corrected by people's ratings of this dataset, or the "
    "judge's own where people have not rated a randomly drawn reply of every contender in it"
)


# --- selection and filters ------------------------------------------------------------------------


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
        if column not in frame.columns:
            return []
        series = frame[column]
        if isinstance(series.dtype, pd.CategoricalDtype):  # the categories in use, not a million cells as text
            # Counted, not sorted (np.unique): -1 (no value) lands in the first bin, left out.
            counts = np.bincount(
                series.cat.codes.to_numpy().astype(np.intp) + 1, minlength=len(series.cat.categories) + 1
            )
            return sorted({str(v) for v in series.cat.categories[np.flatnonzero(counts[1:])]})
        return sorted(series.dropna().astype(str).unique())

    # Numbers (word counts) and keys with one value or dozens (ids) are no use as a pick list.
    labels = [c for c in frame.columns if c.startswith("meta_") and not pd.api.types.is_float_dtype(frame[c])]
    metadata = {c.removeprefix("meta_"): values(c) for c in labels}
    metadata = {k: v for k, v in metadata.items() if 2 <= len(v) <= MAX_METADATA_VALUES}
    return {
        "datasets": values("dataset"),
        "variants": values("variant"),
        "contenders": values("contender"),
        "metadata": metadata,
    }


def weight_names(metric_set: MetricSet) -> list[str]:
    """Every name a slider can weight: score, each metric (aggregate metrics last), then errors, cost and time.
    The primary metric is the score: no slider of its own (``weights.fold_primary`` puts its weight on score)."""
    return [name for name in metric_set.order if name == "score" or name != metric_set.primary]


def weight_hint(name: str, metric_set: MetricSet, *, markdown: bool = True) -> str:
    """What a weight on ``name`` means, for a slider's help text: Markdown with the run's descriptions escaped,
    or plain text (``markdown=False``) for a tooltip that shows text as it is."""
    text = escape_markdown if markdown else str
    described = {n: text(d) for n, d in metric_set.descriptions.items()}
    primary = metric_set.primary if metric_set.primary != "score" else None
    fixed = {
        "score": f"The primary metric, {text(primary)}: {text(metric_set.descriptions[primary].rstrip('. '))}."
        if primary
        else "The primary metric.",
        "errors": f"Failed calls; a row with n errors loses {errors_penalty_text()} points.",
        "cost": "USD per case, on a log scale.",
        "time": "Seconds per case, on a log scale.",
    }
    return f"{described.get(name) or fixed.get(name, name)} Positive: higher is better; negative: lower is better."


#: A weight slider runs over whole numbers: fractional steps drift in the browser (-0.1 comes back as -0.05).
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
    #: The ranked tables as :func:`evalcore.analysis.ranking.leaderboard.leaderboard` returns them (for charts).
    ranked: pd.DataFrame
    ranked_by_dataset: pd.DataFrame
    weights: dict[str, float]
    winner: str | None
    best_value: str | None
    #: Share of weight jitters (each weight × 0.5–2) under which the winner stays first.
    stability: float | None
    glossary: list[str]
    #: Why the winner is first, in one line (:func:`evalcore.analysis.tables.banner.winner_reason`), or None.
    reason: str | None = None
    #: Rows with ``0 <`` scored cases ``<`` FEW_CASES: marked "few cases".
    few_cases: int = 0
    #: The banner's sentences (:mod:`evalcore.analysis.tables.banner`): the page and the report render these.
    banner: Banner = field(default_factory=Banner)


def leaderboard_view(
    frame: pd.DataFrame,
    metric_set: MetricSet,
    weights: Mapping[str, float] | None,
    filters: Filters | None = None,
    contenders: Sequence[Contender] = (),
    *,
    ci: bool = True,
    B: int = 1000,  # noqa: N803 (the bootstrap's usual name)
    stops: Mapping[str, str] | None = None,
    pass_rates: PassRates | None = None,
    basis: RankBasis | None = None,
) -> LeaderboardView:
    """Rank a run's results overall and per dataset, as tables a page shows directly.

    Args:
        frame: the run's results frame (:func:`evalcore.storage.frames.results_frame`).
        metric_set: the run's metric set (:meth:`~evalcore.core.metric_set.MetricSet.of` its declared metrics).
        weights: name → weight (validated; zeros dropped).
        filters: which results count.
        contenders: the run's contenders, for the settings column.
        ci: add 95% bootstrap intervals and P(best) (skip for a run still in progress).
        B: bootstrap resamples.
        stops: an adaptive run's stopped contenders (:func:`evalcore.analysis.tables.runs.run_stops`): marked, and
            ranked below the others (:func:`evalcore.analysis.ranking.leaderboard.finish`).
        pass_rates: the run's :func:`evalcore.analysis.ranking.outcomes.pass_rates_of` under the same filters: a
            ``pass rate`` column beside the metrics when a case declares minimum scores.
        basis: the run's :func:`evalcore.analysis.tables.runs.rank_basis_of`: when its suite asked, the judged metric
            ranks corrected by people (:func:`evalcore.analysis.people.corrected.with_corrected_view`).

    Raises:
        WeightsError: a weight names something that cannot be weighted.
        EvalcoreError: a metadata filter on a key no case has.
    """
    weights = validate_weights(weights, metric_set)
    prepared = prepare_view(frame, metric_set, filters, ci=ci, B=B)
    if basis is not None:
        from evalcore.analysis.people.corrected import with_corrected_view

        prepared = with_corrected_view(prepared, basis, metric_set)
    return _view_of(prepared, metric_set, weights, contenders, stops or {}, pass_rates)


def prepare_view(
    frame: pd.DataFrame, metric_set: MetricSet, filters: Filters | None = None, *, ci: bool = True, B: int = 1000
) -> PreparedView:  # noqa: N803
    """Aggregate a run's results overall and per dataset, with bootstrap resamples when ``ci``.

    Raises:
        EvalcoreError: a metadata filter on a key no case has.
    """
    overall = prepare(frame, metric_set, filters, ci=ci, B=B)
    return PreparedView(
        overall, prepare(frame, metric_set, filters, by=("contender", "dataset"), overall=overall, ci=ci, B=B), ci
    )


def view_of(
    prepared: PreparedView,
    metric_set: MetricSet,
    weights: Mapping[str, float] | None,
    contenders: Sequence[Contender] = (),
    stops: Mapping[str, str] | None = None,
    pass_rates: PassRates | None = None,
) -> LeaderboardView:
    """Rank a prepared view under these weights (see :func:`leaderboard_view`).

    Raises:
        WeightsError: a weight names something that cannot be weighted.
    """
    return _view_of(prepared, metric_set, validate_weights(weights, metric_set), contenders, stops or {}, pass_rates)


def _view_of(
    prepared: PreparedView,
    metric_set: MetricSet,
    weights: dict[str, float],
    contenders: Sequence[Contender],
    stops: Mapping[str, str],
    pass_rates: PassRates | None = None,
) -> LeaderboardView:
    """:func:`view_of` under validated weights."""
    ci = prepared.ci
    ranked = add_pass_rate(finish(prepared.overall, metric_set, weights, stops=stops), pass_rates)
    by_dataset = add_pass_rate(
        finish(prepared.by_dataset, metric_set, weights, stops=stops), pass_rates, by_dataset=True
    )
    shown = shown_metric_set(metric_set, ranked, brief=True)  # pass^k and consistency, when a case has samples
    metrics = shown.metrics
    money = money_format(np.concatenate([ranked["cost"].to_numpy(float), by_dataset["cost"].to_numpy(float)]))
    columns = display_columns(metrics, money, intervals=ci, weighted=bool(weights), pass_rate=pass_rates is not None)
    settings = {c.id: format_settings(c.settings) for c in contenders}
    weighted = bool(weights)
    per_dataset = {
        str(name): display_table(part, metrics, settings, weighted=weighted)
        for name, part in by_dataset.groupby("dataset", sort=True)
    }
    winner = flagged(ranked, "best")
    banner = banner_of(ranked, weights)
    overall = display_table(ranked, metrics, settings, weighted=weighted)
    # A samples column only where a case was asked more than once.
    columns = [c for c in columns if c.name != "samples" or "samples" in overall.columns]
    if RANKED_BY in by_dataset.columns:
        columns.insert(2, Column("ranked by", TEXT, RANKED_BY_HINT))
    return LeaderboardView(
        overall=overall,
        per_dataset=per_dataset,
        columns=columns,
        ranked=ranked,
        ranked_by_dataset=by_dataset,
        weights=weights,
        winner=winner,
        best_value=flagged(ranked, "best_value"),
        stability=None if winner is None else value_of(ranked, winner, "stability"),
        glossary=[*glossary(shown, weights, intervals=ci, table=ranked), *repeat_notes(ranked)],
        reason=banner.reason,
        few_cases=int(ranked["few_cases"].sum()) if "few_cases" in ranked.columns else 0,
        banner=banner,
    )


def how_sure(view: LeaderboardView) -> list[str]:
    """How sure the winner is, in phrases: how often it stays first when the weights are jittered, and in
    how many bootstrap resamples of the cases it ranks first (each when known)."""
    return list(view.banner.sure)


def headline(view: LeaderboardView) -> str:
    """The banner as Markdown lines (:func:`evalcore.analysis.tables.banner.banner_markdown`): the winner and how
    sure we are, why, then the best value. Names are escaped: they come from a run file."""
    return banner_markdown(view.banner, escape_markdown)


def display_columns(
    metrics: Sequence[Metric],
    money: str = "$%.4f",
    intervals: bool = True,
    weighted: bool = True,
    pass_rate: bool = False,
) -> list[Column]:
    """The columns of a display table, in order, with their kind and a tooltip.

    What explains a rank comes first (scores, errors, cost, time), so it fits a 1,400 px window; the
    intervals, the other metrics and the settings follow. Without weights there is no weighted score:
    rows are ranked by score, and the wscore columns are left out. With ``pass_rate`` (a case declares
    minimum scores) a ``pass rate`` column follows the metrics.
    """
    primary = next((m.name for m in metrics if m.primary), "the primary metric")
    cols = [
        Column("rank", COUNT, "Rank by weighted score" if weighted else "Rank by score (no weights set)"),
        Column("contender", TEXT, "Model and the settings its lineup entry varied"),
        Column(
            "mark",
            TEXT,
            f"{BEST_MARK}: top row with no errors; {VALUE_MARK}: {best_value_text()}; "
            f"{FEW_MARK}: fewer than {FEW_CASES} scored cases, its intervals are wide; "
            f"{NO_SCORED_MARK}: every call failed, so no rank, score or P(best); "
            f"{STOPPED_MARK} …: an adaptive run's race stopped calling it; ranked below those still in",
        ),
    ]
    cols += [Column("wscore", POINTS, "Weighted score, 0 to 100, higher is better")] if weighted else []
    cols += [
        Column("score", PERCENT, f"{primary}, mean over scored results"),
        Column("errors", COUNT, "Calls that failed after retries; never scored"),
        Column("cost", MONEY, "Mean USD per case", money),
        Column("time", SECONDS, "Mean seconds per case"),
    ]
    if intervals:
        cols += [Column("P(best)", PERCENT, "Share of bootstrap resamples in which the row ranks first")]
        cols += [Column("score 95% CI", TEXT, "95% interval of the score")]
        cols += [Column("wscore 95% CI", TEXT, "95% bootstrap interval of the weighted score")] if weighted else []
    # A tooltip renders Markdown, and a description comes from a run file.
    cols += [
        Column(
            m.name,
            PERCENT,
            f"{escape_markdown(m.description)} ({'higher' if m.higher_is_better else 'lower'} is better)",
        )
        for m in metrics
        if not m.primary
    ]
    if pass_rate:
        cols += [Column("pass rate", PERCENT, PASS_RATE_HINT)]
    return cols + [
        Column("cases", COUNT, "Distinct cases answered"),
        Column("samples", COUNT, "Samples per case: each case was asked this many times (shown when more than once)"),
        Column("settings", TEXT, "Every setting sent with each call"),
        Column("input tokens", COUNT, "Mean input tokens per case"),
        Column("output tokens", COUNT, "Mean output tokens per case"),
    ]


def display_table(
    ranked: pd.DataFrame,
    metrics: Sequence[Metric],
    settings: Mapping[str, str] | None = None,
    *,
    weighted: bool = True,
) -> pd.DataFrame:
    """A ranked table in display units: percentages 0–100, intervals as text, marks, settings.

    A row with nothing scored has no rank (NaN) and is marked "no scored results"; one with fewer
    than FEW_CASES scored cases is marked "few cases". Unweighted (``weighted`` False), the table has
    no wscore columns: it was ranked by score.
    """
    settings = settings or {}
    out = pd.DataFrame(
        {
            "rank": pd.to_numeric(ranked["rank"], errors="coerce").astype(float).to_numpy(),
            "contender": ranked["contender"].astype(str).to_numpy(),
            "mark": [_mark(r) for r in _mark_rows(ranked).itertuples(index=False)],
        }
    )
    if RANKED_BY in ranked.columns:
        out["ranked by"] = ranked[RANKED_BY].astype(str).to_numpy()
    out["wscore"] = ranked["wscore"].to_numpy(float)
    out["score"] = 100 * ranked["score"].to_numpy(float)
    out["errors"] = ranked["errors"].to_numpy()
    out["cost"] = ranked["cost"].to_numpy(float)
    out["time"] = ranked["time"].to_numpy(float)
    if "p_best" in ranked.columns:
        out["P(best)"] = 100 * ranked["p_best"].to_numpy(float)
    if "score_lo" in ranked.columns:
        out["score 95% CI"] = _interval_text(ranked, "score", 100.0)
    if "p_best" in ranked.columns:
        out["wscore 95% CI"] = _interval_text(ranked, "wscore", 1.0)
    for metric in metrics:
        if not metric.primary:
            out[metric.name] = 100 * ranked[metric.name].to_numpy(float)
    if "pass_rate" in ranked.columns:
        out["pass rate"] = 100 * ranked["pass_rate"].to_numpy(float)
    out["cases"] = _column(ranked, "distinct_cases", "cases")
    samples = _column(ranked, "samples", "cases")
    if "samples" in ranked.columns and (samples > 1).any():
        out["samples"] = samples
    out["settings"] = [settings.get(c, "") for c in out["contender"]]
    out["input tokens"] = ranked["input_tokens"].to_numpy(float)
    out["output tokens"] = ranked["output_tokens"].to_numpy(float)
    return out if weighted else out.drop(columns=["wscore", "wscore 95% CI"], errors="ignore")


def _column(ranked: pd.DataFrame, name: str, fallback: str) -> np.ndarray:
    """A column of the table, or another one when it has none (a table ranked before the column existed)."""
    return ranked[name if name in ranked.columns else fallback].to_numpy()


def _mark_rows(ranked: pd.DataFrame) -> pd.DataFrame:
    scored = ranked["scored"] if "scored" in ranked.columns else pd.Series(1, index=ranked.index)
    few = ranked["few_cases"] if "few_cases" in ranked.columns else pd.Series(False, index=ranked.index)
    stopped = ranked[STOPPED] if STOPPED in ranked.columns else pd.Series(None, index=ranked.index, dtype=object)
    reported = (
        ranked[ranking.AGGREGATE_ONLY]
        if ranking.AGGREGATE_ONLY in ranked.columns
        else pd.Series(False, index=ranked.index)
    )
    return pd.DataFrame(
        {
            "best": ranked["best"],
            "value": ranked["best_value"],
            "few": few.astype(bool),
            "none": scored == 0,
            "reported": reported.astype(bool),
            "stopped": stopped,
        }
    )


def _mark(row: tuple) -> str:
    best, value, few, none, reported, stopped = row
    marks = [BEST_MARK] if best else []
    marks += [VALUE_MARK] if value else []
    marks += [NO_SCORED_MARK] if none else [FEW_MARK] if few else []
    marks += [table_text.AGGREGATE_MARK] if reported else []
    marks += [stopped] if isinstance(stopped, str) and stopped else []
    return "  ".join(marks)


def _interval_text(ranked: pd.DataFrame, name: str, scale: float) -> list[str]:
    lows, highs = ranked[f"{name}_lo"].to_numpy(float), ranked[f"{name}_hi"].to_numpy(float)
    return [
        "–" if math.isnan(lo) or math.isnan(hi) else f"{scale * lo:.1f}–{scale * hi:.1f}"
        for lo, hi in zip(lows, highs, strict=True)
    ]


def money_format(values: Iterable[float]) -> str:
    """A printf format with enough decimals that the smallest positive cost keeps two significant digits.

    ``[0.0004, 0.01]`` → ``"$%.5f"`` (shows $0.00040); ``[0.000012]`` → ``"$%.6f"``; never fewer than 2 decimals.
    """
    positive = [v for v in values if isinstance(v, int | float) and math.isfinite(v) and v > 0]
    if not positive:
        return "$%.2f"
    decimals = max(2, 1 - math.floor(math.log10(min(positive))))
    return f"$%.{min(decimals, 10)}f"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun, singular for one: ``count(1, "result")`` → ``"1 result"``, ``count(1200, "case")``
    → ``"1,200 cases"``."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def format_settings(settings: Mapping[str, Any]) -> str:
    """``{"temperature": 0, "reasoning_effort": "high"}`` → ``"effort=high · t=0"``."""
    parts = [
        f"{SHORT_NAMES.get(k, k)}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in sorted(settings.items())
    ]
    return " · ".join(parts)


_MARKDOWN_SPECIAL = frozenset("\\`*_{}[]()#+-.!|<>~$:=")


def escape_markdown(text: str) -> str:
    """Text that a Markdown renderer shows literally: every Markdown (and Streamlit directive)
    character backslash-escaped, so a run file's names can never become links, images, LaTeX or HTML."""
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIAL else ch for ch in text)
