"""A comparison of two runs as one self-contained HTML file: ``evalcore compare --format html``.

The same content as the Markdown of :mod:`evalcore.analysis.decisions.compare_text` (what was compared, each pair's
verdict and changes with their intervals, the cases that flipped with what was wrong), plus each pair's
forest plot (:func:`evalcore.analysis.decisions.forest.forest_svg`, an SVG picture). It has no script at all and asks
no host for anything; every text from the runs is escaped.
"""

from __future__ import annotations

from html import escape

from evalcore.analysis.decisions.compare import Comparison, PairComparison
from evalcore.analysis.decisions.compare_text import (
    CHANGE_HEADER,
    FLIP_LABELS,
    Details,
    change_cells,
    headline,
    scope_lines,
)
from evalcore.analysis.decisions.forest import forest_svg
from evalcore.analysis.scores.formats import format_value, plural
from evalcore.core.version import __version__
from evalcore.explorer.report import report_css

VERDICT_CLASSES = {"regression": "wrong", "improvement": "right"}


def comparison_html(comparison: Comparison, details: Details | None = None, flips: int = 10) -> str:
    """The comparison as one HTML document (no script, no request to any host).

    Args:
        comparison: from :func:`evalcore.analysis.decisions.compare.compare`.
        details: what was wrong in the first flips (want vs got, or the error), by (candidate contender,
            dataset, case).
        flips: how many flipped cases to list per pair.
    """
    title = f"evalcore compare: {comparison.base_run} → {comparison.candidate_run}"
    body = [f"<h1>{escape(title)}</h1>", "<ul class='glossary'>"]
    body += [f"<li>{escape(line)}</li>" for line in scope_lines(comparison)]
    body.append("</ul>")
    for pair in comparison.pairs:
        body.append(f"<h2>{escape(pair.base)} → {escape(pair.candidate)}</h2>")
        body.append(
            f"<div class='banner'><strong>{escape(headline(pair))}</strong> "
            f"({escape(plural(pair.cases, 'shared case'))})</div>"
        )
        head = "".join(f"<th>{escape(h)}</th>" for h in CHANGE_HEADER)
        rows = "".join(
            f"<tr class='{VERDICT_CLASSES.get(c.verdict, '')}'>"
            + "".join(f"<td>{escape(cell)}</td>" for cell in change_cells(c))
            + "</tr>"
            for c in pair.changes
        )
        body.append(f"<div class='scroll'><table class='board static'><tr>{head}</tr>{rows}</table></div>")
        body.append(f"<figure class='chart'>{forest_svg(pair.changes)}</figure>")
        body += _flips_html(pair, details or {}, flips)
    body.append(f"<footer>Made by evalcore {escape(__version__)}: one file, no script, no network.</footer>")
    return (
        "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        f"<title>{escape(title)}</title>\n<style>\n{report_css()}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _flips_html(pair: PairComparison, details: Details, limit: int) -> list[str]:
    flips = pair.flips
    if not flips:
        return ["<p class='note'>No case changed outcome.</p>"]
    counts = {kind: sum(f.kind == kind for f in flips) for kind in FLIP_LABELS}
    summary = ", ".join(f"{n} {FLIP_LABELS[k]}" for k, n in counts.items() if n)
    more = f" (the first {limit} below, {len(flips) - limit} left out)" if len(flips) > limit else ""
    items = []
    for flip in flips[:limit]:
        scores = f"{format_value('score', flip.base_score)} → {format_value('score', flip.candidate_score)}"
        line = f"{flip.dataset}/{flip.case}: {FLIP_LABELS[flip.kind]} ({scores})"
        notes = "".join(
            f"<li>{escape(text)}</li>" for text in details.get((pair.candidate, flip.dataset, flip.case), [])
        )
        items.append(f"<li>{escape(line)}" + (f"<ul>{notes}</ul>" if notes else "") + "</li>")
    return [f"<h3>Cases that changed: {escape(summary + more)}</h3>", f"<ul>{''.join(items)}</ul>"]
