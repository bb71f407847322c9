"""The report's static parts: score-vs-cost and score-vs-time charts as SVG, and the failing cases.

Both are drawn here, in Python, as escaped markup: they do not move with the weights (the Pareto
frontier is score against cost or time), so the page needs no chart library and no script for them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

import pandas as pd

from evalcore.analysis.ranking.pareto import pareto_front
from evalcore.analysis.scores.results import Filters, select_results
from evalcore.analysis.tables.charts import LABEL_CHARS, log_ticks, tick_text
from evalcore.analysis.tables.text import cut_names
from evalcore.core.records import Result, Run
from evalcore.explorer.drilldown import as_text, want_vs_got_rows

if TYPE_CHECKING:
    from evalcore.analysis.people.corrected import RankBasis
    from evalcore.analysis.tables.view import LeaderboardView
    from evalcore.core.metric_set import MetricSet

WIDTH, HEIGHT = 560, 340
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 34, 44
FONT = 'font-family="sans-serif" font-size="11" fill="#31333f"'
#: Longer texts (inputs, outputs) are cut here in the detail, with a note: a page, not an archive.
MAX_TEXT = 4000


def score_vs_svg(table: pd.DataFrame, x: str) -> str:
    """Score (%) against ``x`` (``"cost"``, on a log axis, or ``"time"``), a point per contender, the
    Pareto frontier as a dashed step line through the contenders nothing beats on both.

    Rows with no score or no ``x`` (and, for cost, ``x ≤ 0``, which a log axis cannot place) are left
    out; the title says how many. Each point's tooltip names its contender.
    """
    log_x = x == "cost"
    known = table.dropna(subset=["score", x])
    if log_x:
        known = known[known[x] > 0]
    left_out = len(table) - len(known)
    title = f"Score vs {x}" + (f" ({left_out} without a {x} not shown)" if left_out else "")
    unit = "cost per case (USD, log scale)" if log_x else "seconds per case"
    parts = [
        f'<figure class="chart"><svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}">',
        f'<text x="0" y="14" {FONT} font-weight="600">{escape(title)}</text>',
    ]
    if not len(known):
        return "".join(parts) + f'<text x="{LEFT}" y="{HEIGHT / 2}" {FONT}>nothing to plot</text></svg></figure>'
    xs, ys = known[x].to_numpy(float), 100 * known["score"].to_numpy(float)
    place_x, ticks = _x_axis(xs, log_x)
    y_lo, y_hi = _y_range(ys)

    def place_y(v: float) -> float:
        return TOP + (HEIGHT - TOP - BOTTOM) * (1 - (v - y_lo) / (y_hi - y_lo))

    parts += _axes(place_x, place_y, ticks, (y_lo, y_hi), x, unit)
    front = pareto_front(known, x=x)
    by_id = known.set_index(known["contender"].astype(str))
    step = []
    for i, cid in enumerate(front):
        px, py = place_x(float(by_id.loc[cid, x])), place_y(100 * float(by_id.loc[cid, "score"]))
        # Plotly's "hv" shape: along at the last score to the next cost, then up to its score.
        step.append(f"H{px:.1f} V{py:.1f}" if i else f"M{px:.1f},{py:.1f}")
    if step:
        parts.append(
            f'<path d="{" ".join(step)}" fill="none" stroke="#ff7f0e" stroke-width="2" stroke-dasharray="6 4"/>'
        )
    on_front = set(front)
    short = cut_names(known["contender"].astype(str).tolist(), LABEL_CHARS)
    for cid, vx, vy in zip(known["contender"].astype(str), xs, ys, strict=True):
        px, py, edge = place_x(vx), place_y(vy), cid in on_front
        shape = f'r="{6 if edge else 4}" fill="{"#ff7f0e" if edge else "#1f77b4"}"'
        tip = f"{cid}: score {vy:.1f}%, {_x_text(vx, x)}" + (" (on the Pareto frontier)" if edge else "")
        parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" {shape}><title>{escape(tip)}</title></circle>')
        if edge:
            label = f"{escape(short[cid])}<title>{escape(cid)}</title>"
            parts.append(f'<text x="{px + 7:.1f}" y="{py - 7:.1f}" {FONT}>{label}</text>')
    legend = f'<text x="{WIDTH - RIGHT}" y="14" {FONT} text-anchor="end">orange: Pareto frontier</text>'
    return "".join([*parts, legend, "</svg></figure>"])


def _x_axis(xs: Sequence[float], log_x: bool) -> tuple:
    lo, hi = float(min(xs)), float(max(xs))
    if log_x:
        ticks = log_ticks(lo, hi)
        lo, hi = min(lo, *ticks) / 1.2, max(hi, *ticks) * 1.2
        a, b = math.log(lo), math.log(hi)

        def place(v: float) -> float:
            return LEFT + (WIDTH - LEFT - RIGHT) * (math.log(v) - a) / (b - a)

        return place, ticks
    pad = (hi - lo) * 0.08 or max(abs(hi) * 0.1, 0.1)
    lo, hi = max(0.0, lo - pad), hi + pad
    step = _nice_step((hi - lo) / 4)
    ticks = [k * step for k in range(math.ceil(lo / step), math.floor(hi / step) + 1)]

    def place_linear(v: float) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * (v - lo) / (hi - lo)

    return place_linear, ticks


def _nice_step(rough: float) -> float:
    """The smallest 1, 2 or 5 × 10^k at least ``rough``: ticks a reader counts in."""
    power = 10.0 ** math.floor(math.log10(rough))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= rough)


def _y_range(ys: Sequence[float]) -> tuple[float, float]:
    lo, hi = float(min(ys)), float(max(ys))
    pad = max((hi - lo) * 0.1, 2.0)
    return max(0.0, lo - pad), min(100.0, hi + pad) if hi + pad > lo - pad else hi + 1


def _axes(place_x, place_y, ticks, y_range, x: str, unit: str) -> list[str]:  # noqa: ANN001
    bottom, out = HEIGHT - BOTTOM, []
    out.append(f'<line x1="{LEFT}" y1="{bottom}" x2="{WIDTH - RIGHT}" y2="{bottom}" stroke="#888"/>')
    out.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="#888"/>')
    for t in ticks:
        px = place_x(t)
        out.append(f'<line x1="{px:.1f}" y1="{bottom}" x2="{px:.1f}" y2="{bottom + 4}" stroke="#888"/>')
        label = "$" + tick_text(t) if x == "cost" else f"{t:g} s"
        out.append(f'<text x="{px:.1f}" y="{bottom + 16}" {FONT} text-anchor="middle">{escape(label)}</text>')
    y_lo, y_hi = y_range
    for i in range(5):
        v = y_lo + (y_hi - y_lo) * i / 4
        py = place_y(v)
        out.append(f'<line x1="{LEFT - 4}" y1="{py:.1f}" x2="{WIDTH - RIGHT}" y2="{py:.1f}" stroke="#eee"/>')
        out.append(f'<text x="{LEFT - 6}" y="{py + 4:.1f}" {FONT} text-anchor="end">{v:.0f}%</text>')
    out.append(f'<text x="{(LEFT + WIDTH) / 2}" y="{HEIGHT - 6}" {FONT} text-anchor="middle">{escape(unit)}</text>')
    return out


def _x_text(v: float, x: str) -> str:
    return f"${v:.3g} per case" if x == "cost" else f"{v:.3g} s per case"


# --- failing cases ----------------------------------------------------------------------------------


def failing_cases_html(
    run: Run, view: LeaderboardView, filters: Filters | None, per_contender: int, metric_set: MetricSet | None = None
) -> str:
    """For each contender, in rank order, its failing results (a failed call, or a score below 1) behind a
    disclosure: input, expected, output and want vs got. At most ``per_contender`` each; a note says how
    many are left out."""
    keep = _selected_keys(run, filters, metric_set)
    cases = {c.key: c for c in run.cases}
    failing: dict[str, list[Result]] = {}
    counts: dict[str, int] = {}
    totals: dict[str, int] = {}
    for r in run.results:
        if keep is None or r.key in keep:
            totals[r.contender] = totals.get(r.contender, 0) + 1
        if (r.status == "error" or (r.score is not None and r.score < 1)) and (keep is None or r.key in keep):
            counts[r.contender] = counts.get(r.contender, 0) + 1
            if counts[r.contender] <= per_contender:
                failing.setdefault(r.contender, []).append(r)
    blocks = []
    for cid in view.ranked["contender"].astype(str):
        n = counts.get(cid, 0)
        summary = f"{cid}: {n:,} failing of {totals.get(cid, 0):,} result{'s' if totals.get(cid, 0) != 1 else ''}"
        if n > per_contender:
            summary += f" (the first {per_contender} shown, {n - per_contender:,} left out)"
        items = "".join(
            _case_html(r, cases[(r.dataset, r.case)]) for r in failing.get(cid, []) if (r.dataset, r.case) in cases
        )
        blocks.append(
            f"<details class='contender'><summary>{escape(summary)}</summary>{items or '<p>none</p>'}</details>"
        )
    note = (
        f"<p class='note'>At most {per_contender} failing results per contender, in the run's order; "
        "open the run in the explorer's Cases page for every one.</p>"
    )
    return note + "".join(blocks)


def _selected_keys(
    run: Run, filters: Filters | None, metric_set: MetricSet | None
) -> set[tuple[str, str, str, int]] | None:
    if filters is None or not filters.any():
        return None
    from evalcore.storage.frames import results_frame

    chosen = select_results(results_frame(run, metric_set), filters)
    columns = [chosen[k].astype(str).tolist() for k in ("contender", "dataset", "case")]
    return set(zip(*columns, chosen["sample"].astype(int).tolist(), strict=True))


def _case_html(r: Result, case) -> str:  # noqa: ANN001
    outcome = f"error: {r.error.kind}" if r.status == "error" and r.error else f"score {100 * (r.score or 0):.0f}%"
    title = f"{r.dataset} / {r.case}" + (f" (sample {r.sample})" if r.sample else "") + f": {outcome}"
    body = [
        _block("input", as_text(case.input)),
        _block("expected", as_text(case.expected)),
        _block("output", as_text(r.output) if r.status == "scored" else "(no reply: the call failed)"),
    ]
    if r.error is not None:
        body.append(_block("error", f"{r.error.kind}: {r.error.message}"))
    if r.status == "scored":
        rows = "".join(
            f"<tr class='{'right' if row['right'] else 'wrong'}'><td>{escape(str(row['field']))}</td>"
            f"<td>{escape(str(row['want']))}</td><td>{escape(str(row['got']))}</td>"
            f"<td>{'✓' if row['right'] else '✗'}</td></tr>"
            for row in want_vs_got_rows(case.expected, r)
        )
        body.append(f"<table class='wvg'><tr><th>field</th><th>want</th><th>got</th><th></th></tr>{rows}</table>")
    return f"<details class='case'><summary>{escape(title)}</summary>{''.join(body)}</details>"


def _block(name: str, text: str) -> str:
    cut = len(text) > MAX_TEXT
    shown = text[:MAX_TEXT] + (f"\n… ({len(text) - MAX_TEXT:,} more characters)" if cut else "")
    return f"<div class='block'><b>{name}</b><pre>{escape(shown)}</pre></div>"


# --- the judge ---------------------------------------------------------------------------------------

JUDGE_NOTE = "What judging cost and took, on top of the contenders' own cost and time columns (per judged result)."


def judge_rows(results: Sequence[Result]) -> tuple[list[list[str]], list[str], str] | None:
    """The judge-cost table of a judged run (rows, header, a sentence with the totals), as the CLI prints it
    under the leaderboard; None when nothing was judged."""
    from evalcore.analysis.people.judging import judge_cost_rows, judge_costs
    from evalcore.analysis.tables.text import format_cost

    costs = judge_costs(results)
    if not costs:
        return None
    total = costs[-1]
    spent = "an unknown amount" if total.cost_usd is None else format_cost(total.cost_usd)
    summary = f"The judge made {total.calls:,} calls over {total.judged:,} judged results and cost {spent} in all."
    rows, header = judge_cost_rows(costs)
    return rows, header, summary


def judge_section_html(results: Sequence[Result]) -> str:
    """The report's judge section, or '' for a run without a judge."""
    found = judge_rows(results)
    if found is None:
        return ""
    rows, header, summary = found
    return (
        f"<section><h2>Judge</h2><p class='note'>{escape(JUDGE_NOTE)} {escape(summary)}</p>"
        f"{_html_table(header, rows, 'judge')}</section>"
    )


def pairwise_tables(run: Run) -> list[tuple[str, list[str], list[list[str]]]]:
    """A run's pairwise verdicts as the CLI's two tables (title, header, rows), then its headline and legend
    as a table-less entry; [] for a run without verdicts."""
    from evalcore.analysis.people.win_rates import headline, legend, pairwise_summary, strength_rows, win_rate_rows

    if not run.pairwise:
        return []
    summary = pairwise_summary(run.pairwise, [c.id for c in run.contenders])
    rates, rate_header = win_rate_rows(summary)
    strengths, strength_header = strength_rows(summary)
    return [
        ("Win rate (each comparison judged in both orders)", rate_header, rates),
        ("Bradley–Terry ranking", strength_header, strengths),
        (headline(summary), [], [[line] for line in legend(summary)]),
    ]


def pairwise_section_html(run: Run) -> str:
    """The report's pairwise section: win rates and the Bradley–Terry ranking; '' for a run without verdicts."""
    parts = pairwise_tables(run)
    if not parts:
        return ""
    (rates_title, rate_header, rates), (strength_title, strength_header, strengths), (head, _, notes) = parts
    legend = "".join(f"<li>{escape(line)}</li>" for (line,) in notes)
    return (
        f"<section><h2>Pairwise</h2><p class='note'>{escape(head)}</p>"
        f"<h3>{escape(rates_title)}</h3>{_html_table(rate_header, rates, 'pairwise')}"
        f"<h3>{escape(strength_title)}</h3>{_html_table(strength_header, strengths, 'pairwise')}"
        f"<ul class='glossary'>{legend}</ul></section>"
    )


def _html_table(header: Sequence[str], rows: Sequence[Sequence[str]], kind: str) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table class='{kind}'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def labels_section_html(run: Run, filters: Filters | None, metric_set: MetricSet | None = None) -> str:
    """The report's classification section: each contender's per-label precision, recall, F1 and support under
    the report's filters; '' for a run without a ``classification`` scorer."""
    from evalcore.analysis.scores.classification import label_rows, label_tables

    parts = []
    for found in label_tables(run, filters, metric_set):
        header, rows = label_rows(found.rows)
        summary = (
            f"{found.contender}: {found.results} scored results, accuracy {100 * found.accuracy:.1f}%, "
            f"macro-F1 {found.macro_f1:.3f}"
        )
        parts.append(f"<h3>{escape(summary)}</h3>{_html_table(header, rows, 'labels')}")
    if not parts:
        return ""
    note = (
        "Per label L: precision = right L answers / L answers, recall = right L answers / L expected, "
        "support = L expected; F1 0 where L is never answered right."
    )
    return f"<section><h2>Classification: per label</h2><p class='note'>{escape(note)}</p>{''.join(parts)}</section>"


# --- the judge corrected by people ---------------------------------------------------------------------


def corrected_rows(basis: RankBasis) -> tuple[str, list[str], list[list[str]]]:
    """The judged metric corrected by people, as the leaderboard ranks by it (a title, a header, a row per rated
    contender: the judge's own mean, the corrected one and its 95% interval, replies rated and not)."""
    metric = basis.metric or "the judged metric"
    header = ["contender", f"judge's {metric}", "corrected", "95% interval", "rated", "unrated"]
    rows = [
        [c, _percent(m.judge), _percent(m.value), f"{_percent(m.low)}–{_percent(m.high)}", f"{m.rated:,}"]
        + [f"{m.unrated:,}"]
        for c, m in basis.corrected.items()
    ]
    return f"{metric} corrected by people (prediction-powered)", header, rows


def corrected_section_html(basis: RankBasis | None) -> str:
    """The report's section on the corrected scores the leaderboard ranks by; '' when the suite did not ask for
    them or no contender has a rated reply."""
    if basis is None or not basis.corrected:
        return ""
    title, header, rows = corrected_rows(basis)
    return (
        f"<section><h2>{escape(title)}</h2><p class='note'>{escape(basis.note)}</p>"
        f"{_html_table(header, rows, 'corrected')}</section>"
    )


def _percent(value: float) -> str:
    return "–" if math.isnan(value) else f"{100 * value:.1f}%"
