"""One self-contained report of a run: an HTML file anyone can open offline, with live weight sliders, or
Markdown for a README or a pull request.

The HTML file carries everything inline: its style, its script (``report.js``, ``report.css`` and
``report.html`` beside this module, read with :mod:`importlib.resources`), its charts (SVG drawn here)
and the run's aggregates as JSON in a ``<script type="application/json">`` block. Moving a slider re-ranks
those aggregates in the browser by the rules of :mod:`evalcore.analysis.scores.weights` (the same log scale,
errors penalty and ties), with the numbers of :mod:`evalcore.analysis.scores.rules` written into the script
(:func:`report_script`); a test runs the script under node against the Python ranking. The intervals
and P(best) stay those of the weights the report was made with, and the page says so once the weights move.
When the run's suite asks to rank by the judge's score corrected by people, the aggregates are corrected by
the function the app's leaderboard uses (:func:`evalcore.analysis.people.corrected.with_corrected_view`), so the
tables, the banner and the sliders all rank by the corrected column, and the page says so under its banner.

Every text from the run is escaped here (``html.escape``) or set as ``textContent`` by the script, never
parsed as markup. The file holds no time of generation: the same run and options give the same bytes.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from evalcore.analysis.people.judging import is_judged
from evalcore.analysis.ranking.leaderboard import RANKED_BY
from evalcore.analysis.ranking.outcomes import pass_rates_of
from evalcore.analysis.scores.repeats import shown_metric_set, table_metric_set
from evalcore.analysis.scores.results import Filters
from evalcore.analysis.scores.rules import ranking_rules
from evalcore.analysis.scores.weights import fold_primary, validate_weights
from evalcore.analysis.tables.banner import banner_html
from evalcore.analysis.tables.runs import frame_of, metric_set_of, rank_basis_of, run_stops
from evalcore.analysis.tables.text import (
    AGGREGATE_MARK,
    BEST_MARK,
    FEW_MARK,
    NO_SCORED_MARK,
    VALUE_MARK,
    cases_text,
    format_leaderboard,
    json_value,
    stopped_text,
)
from evalcore.analysis.tables.view import (
    LeaderboardView,
    escape_markdown,
    headline,
    leaderboard_view,
    slider_values,
    weight_hint,
    weight_names,
)
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Metric, Result, Run
from evalcore.core.version import __version__
from evalcore.explorer._report_parts import (
    JUDGE_NOTE,
    corrected_rows,
    corrected_section_html,
    failing_cases_html,
    judge_rows,
    judge_section_html,
    labels_section_html,
    pairwise_section_html,
    pairwise_tables,
    score_vs_svg,
)
from evalcore.storage.history import StoredRun, header_of

if TYPE_CHECKING:
    from evalcore.analysis.people.corrected import RankBasis

#: The formats :func:`build_report` writes.
REPORT_FORMATS = ("html", "markdown")
#: Aggregate columns embedded per row, besides the declared metrics (the weightable names and counts).
VALUE_COLUMNS = ("cases", "scored", "errors", "score", "cost", "time", "input_tokens", "output_tokens")
#: Counts embedded per row beside the values: how many distinct cases, and samples per case, make up ``cases``.
CASE_COLUMNS = ("distinct_cases", "samples")
#: A row's share of cases that meet their minimum scores (:mod:`evalcore.analysis.ranking.outcomes`), when a case has
#: some.
PASS_RATE = "pass_rate"
#: What the Python ranking decided for the report's weights, embedded per row as the page's first state.
RANKED_COLUMNS = ("rank", "wscore", "best", "best_value", "few_cases", "aggregate_only", "p_best", "stability")
#: The bound columns whose names end in ``_lo`` / ``_hi``: the score's and the wscore's 95% intervals.
INTERVALS = ("score", "wscore")
#: Where ``report.js`` takes the ranking's numbers (:func:`report_script`).
_RULES_SLOT = "/*{{RULES}}*/"


@dataclass(frozen=True)
class ReportOptions:
    """What a report shows.

    Attributes:
        weights: name → weight; None: the run's own weights.
        filters: which results count (datasets, variants, contenders, metadata).
        failing_per_contender: at most this many failing results are detailed per contender.
        B: bootstrap resamples behind the intervals and P(best).
    """

    weights: Mapping[str, float] | None = None
    filters: Filters | None = None
    failing_per_contender: int = 20
    B: int = 1000  # noqa: N815 (the bootstrap's usual name)


def build_report(run: Run | StoredRun, options: ReportOptions | None = None, fmt: str = "html") -> str:
    """The report of a run as one HTML document or as Markdown.

    Args:
        run: a run read from a file, or a run in a store.
        options: weights, filters and caps; the defaults show the whole run under its own weights.
        fmt: ``"html"`` (one offline file with live weights) or ``"markdown"`` (the banner and tables).

    Raises:
        ValueError: an unknown ``fmt``.
        WeightsError: a weight names something that cannot be weighted.
        EvalcoreError: a metadata filter on a key no case has.
    """
    if fmt not in REPORT_FORMATS:
        raise ValueError(f"unknown report format {fmt!r}; use one of {', '.join(REPORT_FORMATS)}")
    options = options or ReportOptions()
    header = header_of(run)
    metric_set = metric_set_of(run)
    weights = validate_weights(header.info.weights if options.weights is None else options.weights, metric_set)
    basis = rank_basis_of(run)
    view = leaderboard_view(
        frame_of(run, metric_set),
        metric_set,
        weights,
        options.filters,
        header.contenders,
        B=options.B,
        stops=run_stops(run),
        pass_rates=pass_rates_of(run, options.filters),
        basis=basis,
    )
    if fmt == "markdown":
        judged = None
        if is_judged(header.metrics):
            judged = run.results if isinstance(run, Run) else run.store.load_run(run.id).results
        return report_markdown(header, view, judged, basis, metric_set=metric_set)
    whole = run if isinstance(run, Run) else run.store.load_run(run.id)
    return report_html(whole, view, options, basis, metric_set=metric_set)


def stored_run_report(db_path: str | Path, run_id: str, options: ReportOptions | None = None) -> bytes:
    """The HTML report of a run in a store, as the bytes of a file to download.

    It opens a connection of its own: a page's download button calls it on a thread of its own, and only
    when clicked (a report reads every result, which opening a page should not).

    Raises:
        StoreError: an unknown run; WeightsError: a weight that cannot be used.
    """
    from evalcore.storage.store import Store

    with Store(db_path) as store:
        return build_report(StoredRun(store, run_id), options).encode("utf-8")


# --- the embedded data ------------------------------------------------------------------------------


def report_payload(metric_set: MetricSet, view: LeaderboardView) -> dict[str, Any]:
    """The JSON the page ranks from: weightable names, the report's weights and every table's rows.

    Each table (the overall one, then one per dataset) lists its rows in the report's rank order; a row
    holds its aggregates (``values``: counts, score, metrics, cost, time, tokens; null for none), its
    ``id_rank`` (the contender id's place in sorted order, the last tie-break) and what the report's
    ranking gave it (rank, wscore, marks, P(best), intervals).
    """
    metric_set = shown_metric_set(metric_set, view.ranked, brief=True)  # pass^k and consistency with samples
    metrics = list(metric_set.metrics)  # macro-F1 is weighted from its row value, as any metric
    names = weight_names(metric_set)
    tables: list[dict[str, Any]] = [{"dataset": None, "rows": _rows(view.ranked, metrics)}]
    for name, part in view.ranked_by_dataset.groupby("dataset", sort=True):
        tables.append({"dataset": str(name), "rows": _rows(part, metrics)})
    return {
        "names": names,
        "hints": {name: weight_hint(name, metric_set, markdown=False) for name in names},  # a title attribute
        "weights": view.weights,
        "sliders": {name: slider_values(fold_primary(view.weights, metric_set)).get(name, 0) for name in names},
        "metrics": [{"name": m.name, "primary": m.primary, "higher_is_better": m.higher_is_better} for m in metrics],
        "intervals": "p_best" in view.ranked.columns,
        "pass_rate": PASS_RATE in view.ranked.columns,
        "marks": {
            "best": BEST_MARK,
            "value": VALUE_MARK,
            "few": FEW_MARK,
            "none": NO_SCORED_MARK,
            "aggregate": AGGREGATE_MARK,
        },
        "tables": tables,
    }


def _rows(ranked: pd.DataFrame, metrics: list[Metric]) -> list[dict[str, Any]]:
    ids = ranked["contender"].astype(str).to_numpy(dtype=object)
    id_rank = np.unique(ids, return_inverse=True)[1]
    values = [*VALUE_COLUMNS[:4], *(m.name for m in metrics), *VALUE_COLUMNS[4:]]
    bounds = [f"{n}_{side}" for n in INTERVALS for side in ("lo", "hi")]
    rows = []
    for i, record in enumerate(ranked.to_dict("records")):
        row: dict[str, Any] = {"contender": str(record["contender"]), "id_rank": int(id_rank[i])}
        row["values"] = {name: json_value(record.get(name)) for name in values}
        row.update({name: json_value(record.get(name)) for name in RANKED_COLUMNS if name in record})
        row["cases_text"] = cases_text(record)
        # An adaptive run's stop text: the page ranks the row below those still in, whatever the weights.
        row["stopped"] = stopped_text(record)
        row.update({name: json_value(record[name]) for name in CASE_COLUMNS if name in record})
        if PASS_RATE in record:
            row[PASS_RATE] = json_value(record[PASS_RATE])
        if RANKED_BY in record:
            row[RANKED_BY] = json_value(record[RANKED_BY])
        row.update({name: json_value(record[name]) for name in bounds if name in record})
        rows.append(row)
    return rows


def embed_json(data: Any) -> str:
    """``data`` as JSON safe inside a ``<script type="application/json">``: every ``<``, ``>`` and ``&``
    escaped (``\\u003c``…), so no text from the run can close the block or open a comment."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def read_embedded(document: str) -> Any:
    """The JSON a report file embeds (:func:`report_payload`), read back from its HTML."""
    start = document.index('<script type="application/json" id="report-data">')
    start = document.index(">", start) + 1
    return json.loads(document[start : document.index("</script>", start)])


# --- HTML -------------------------------------------------------------------------------------------


def _asset(name: str) -> str:
    return resources.files("evalcore.explorer").joinpath(name).read_text(encoding="utf-8")


def report_css() -> str:
    """The reports' style sheet (the comparison's HTML shares it)."""
    return _asset("report.css")


def report_script() -> str:
    """The report's script: ``report.js`` with the ranking's numbers
    (:func:`evalcore.analysis.scores.rules.ranking_rules`)
    written in, so the page ranks by the same rules as Python. ``node`` can ``require`` it as it is."""
    rules = json.dumps(ranking_rules(), allow_nan=False, separators=(",", ":"))
    return _asset("report.js").replace(_RULES_SLOT, rules)


def report_html(
    run: Run,
    view: LeaderboardView,
    options: ReportOptions,
    basis: RankBasis | None = None,
    *,
    metric_set: MetricSet | None = None,
) -> str:
    """The report as one HTML document (see the module docstring).

    Args:
        run: the whole run (its cases and results feed the failing-case detail).
        view: its leaderboard under the report's weights and filters.
        options: the caps of the detail.
        basis: what the leaderboard ranks the judged metric by, when the run's suite asked for the score
            corrected by people (:func:`evalcore.analysis.tables.runs.rank_basis_of`): its sentence under the banner
            and a section of the corrected scores.
        metric_set: the run's (:func:`evalcore.analysis.tables.runs.metric_set_of`); none: derived here.
    """
    metric_set = metric_set or MetricSet.of(run.metrics)
    e = html.escape
    parts = {
        "TITLE": e(f"evalcore report: {run.info.suite}"),
        "STYLE": report_css(),
        "HEADER": _header_html(run, view, options),
        "BANNER": _banner_html(view),
        "BASIS": "" if basis is None else f"<p class='note' id='rank-basis'>{e(basis.note)}</p>",
        "CORRECTED": corrected_section_html(basis),
        "CHARTS": score_vs_svg(view.ranked, "cost") + score_vs_svg(view.ranked, "time"),
        "JUDGE": judge_section_html(run.results) if is_judged(run.metrics) else "",
        "PAIRWISE": pairwise_section_html(run),
        "LABELS": labels_section_html(run, options.filters, metric_set),
        "GLOSSARY": "".join(f"<li>{e(line)}</li>" for line in view.glossary),
        "CASES": failing_cases_html(run, view, options.filters, options.failing_per_contender, metric_set),
        "DATA": embed_json(report_payload(metric_set, view)),
        "SCRIPT": report_script(),
        "VERSION": e(__version__),
    }
    # One pass over the template: a run's text that reads "{{DATA}}" is never filled in itself.
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda m: parts[m.group(1)], _asset("report.html"))


def _header_html(run: Run, view: LeaderboardView, options: ReportOptions) -> str:
    e = html.escape
    info = run.info
    provenance = info.provenance
    rows = [
        ("suite", info.suite),
        ("run", info.id),
        ("status", info.status),
        ("started", info.created_at),
        ("finished", info.finished_at or "–"),
        ("revision", str(provenance.get("revision") or "–")),
        ("results", f"{len(run.results):,} from {len(run.contenders)} contenders on {len(run.cases):,} cases"),
    ]
    filters = options.filters
    if filters is not None and filters.any():
        chosen = [*filters.datasets, *filters.variants, *filters.contenders]
        chosen += [f"{k}={v}" for k, values in filters.metadata.items() for v in values]
        rows.append(("only", ", ".join(chosen)))
    weights = ", ".join(f"{k}={v:g}" for k, v in view.weights.items()) or "none (ranked by score)"
    rows.append(("weights", weights))
    cells = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in rows)
    known = {k: v for k, v in provenance.items() if k != "revision"}
    details = "".join(f"<tr><th>{e(str(k))}</th><td><code>{e(_short(v))}</code></td></tr>" for k, v in known.items())
    more = f"<details><summary>provenance</summary><table class='kv'>{details}</table></details>" if known else ""
    return f"<table class='kv'>{cells}</table>{more}"


def _short(value: Any, limit: int = 600) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _banner_html(view: LeaderboardView) -> str:
    if view.ranked.empty:
        return "<strong>No result matches these filters.</strong>"
    return banner_html(view.banner)


# --- Markdown ---------------------------------------------------------------------------------------


def report_markdown(
    run: Run,
    view: LeaderboardView,
    judged: Sequence[Result] | None = None,
    basis: RankBasis | None = None,
    *,
    metric_set: MetricSet | None = None,
) -> str:
    """The banner, the overall table, one table per dataset, the judge's cost (``judged``: the results of a
    judged run), the corrected scores the tables rank by (``basis``, when the suite asked for them) and the
    glossary, as Markdown that links nowhere. ``metric_set``: the run's; none: derived here.

    Every text from the run is backslash-escaped, so a name can never become a link, an image or HTML.
    """
    info = run.info
    if metric_set is None:
        metric_set = table_metric_set(run.metrics, view.ranked)
    else:
        metric_set = shown_metric_set(metric_set, view.ranked, brief=True)
    revision = info.provenance.get("revision")
    lines = [
        f"# evalcore report: {escape_markdown(info.suite)}",
        "",
        f"Run `{info.id.replace('`', '')}` · {info.status} · started {info.created_at}"
        + (f" · revision {escape_markdown(str(revision))}" if revision else ""),
        "",
        headline(view),
        *(["", escape_markdown(basis.note)] if basis is not None else []),
        "",
        "## Overall",
        "",
        _markdown_table(view.ranked, metric_set, view.weights),
    ]
    for name, part in view.ranked_by_dataset.groupby("dataset", sort=True):
        table = _markdown_table(part.drop(columns=["dataset"]), metric_set, view.weights)
        lines += ["", f"## {escape_markdown(str(name))}", "", table]
    if basis is not None and basis.corrected:
        title, header, rows = corrected_rows(basis)
        lines += ["", f"## {escape_markdown(title)}", "", _pipe_row(header), _pipe_row(["---"] * len(header))]
        lines += [_pipe_row(row) for row in rows]
    found = judge_rows(judged) if judged else None
    if found is not None:
        rows, header, summary = found
        lines += ["", "## Judge", "", escape_markdown(f"{JUDGE_NOTE} {summary}"), ""]
        lines += [_pipe_row(header), _pipe_row(["---"] * len(header)), *(_pipe_row(row) for row in rows)]
    parts = pairwise_tables(run)
    if parts:
        *tables, (head, _, legend) = parts
        lines += ["", "## Pairwise", "", escape_markdown(head)]
        for title, header, rows in tables:
            lines += ["", f"### {escape_markdown(title)}", "", _pipe_row(header), _pipe_row(["---"] * len(header))]
            lines += [_pipe_row(row) for row in rows]
        lines += ["", *(f"- {escape_markdown(line)}" for (line,) in legend)]
    lines += ["", "## Glossary", "", *(f"- {escape_markdown(line)}" for line in view.glossary)]
    return "\n".join(lines) + "\n"


def _markdown_table(ranked: pd.DataFrame, metric_set: MetricSet, weights: Mapping[str, float]) -> str:
    # The pipe table only (its notes follow once, escaped); names escaped, so "|" and "<" stay text.
    named = ranked.assign(contender=ranked["contender"].astype(str).map(escape_markdown))
    text = format_leaderboard(named, metric_set, "markdown", weights=weights)
    return text.split("\n\n", 1)[0].rstrip()


def _pipe_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(escape_markdown(c) for c in cells) + " |"
