"""The leaderboard's banner: who wins, how sure we are, why, and the best value, each sentence written once.

:func:`banner_of` reads the sentences off a ranked table (:func:`evalcore.analysis.ranking.leaderboard.finish`);
the app (:func:`banner_markdown`), the HTML report (:func:`banner_html`) and the CLI (:func:`banner_text`)
only render them, so the same run, weights and filters read the same everywhere. The numbers come from
the table's ``p_best`` and ``stability`` columns: no surface computes its own.

"Why" compares like with like: weighted scores with weighted scores (a number from 0 to 100, no unit),
scores with scores (percentages), and it names only what the weights weigh.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalcore.analysis.scores.formats import format_cost, format_percent, format_seconds, is_missing, plural
from evalcore.analysis.scores.rules import (
    ALONE_TEXT,
    BEST_VALUE_POINTS,
    ERRORS_PENALTY_BASE,
    ERRORS_PENALTY_EACH,
    TIE_DECIMALS,
    best_value_text,
)

#: Scores closer than this (a fraction) tie in :func:`winner_reason`'s words.
SCORE_TIE = 1e-9
NO_WINNER = "no row was scored without errors."
NO_WSCORE = "no row has a wscore."
#: What the banner says of a table with one contender, after its name.
ALONE = ALONE_TEXT


@dataclass(frozen=True)
class Banner:
    """What the banner says, as plain text; a renderer escapes and marks it up.

    Attributes:
        winner: the best row's contender, or None.
        sure: how sure the win is, in phrases (weight stability, then P(best)), each when known.
        reason: why the winner is first, in one line (:func:`winner_reason`), or None.
        best_value: the best-value row's contender, or None.
        best_value_points: the best-value margin, in points of score.
        missing: rows with scored results but no wscore, each with what it lacks (a price) and how to give it.
        alone: the contender of a table with only one, which wins nothing (:data:`ALONE`), or None.
    """

    winner: str | None = None
    sure: list[str] = field(default_factory=list)
    reason: str | None = None
    best_value: str | None = None
    best_value_points: float = 100 * BEST_VALUE_POINTS
    #: Rows with scored results but no wscore, each with what it lacks and how to give it
    #: (:func:`missing_wscores`).
    missing: list[str] = field(default_factory=list)
    alone: str | None = None

    @property
    def best_value_text(self) -> str:
        """What the best value is, after its name."""
        return best_value_text(self.best_value_points / 100)


def banner_of(
    ranked: pd.DataFrame, weights: Mapping[str, float] | None, best_value_points: float = BEST_VALUE_POINTS
) -> Banner:
    """The banner of one ranked table (in rank order); an empty banner for a table of several datasets."""
    if "dataset" in ranked.columns and ranked["dataset"].nunique() > 1:
        return Banner()
    contenders = ranked["contender"].unique() if "contender" in ranked.columns else []
    if len(contenders) == 1:
        # First of one is no finding: the table's best flag and P(best) of 1 are true by construction.
        return Banner(alone=str(contenders[0]), missing=missing_wscores(ranked, weights))
    winner, best_value = flagged(ranked, "best"), flagged(ranked, "best_value")
    sure = []
    if winner is not None:
        stability, p_best = value_of(ranked, winner, "stability"), value_of(ranked, winner, "p_best")
        if stability is not None:
            sure.append(f"stays first in {100 * stability:.0f}% of weight jitters (each weight × 0.5 to 2)")
        if p_best is not None:
            sure.append(f"ranks first in {100 * p_best:.0f}% of bootstrap resamples of the cases")
    reason = winner_reason(ranked, weights)
    return Banner(winner, sure, reason, best_value, 100 * best_value_points, missing_wscores(ranked, weights))


def banner_text(banner: Banner) -> list[str]:
    """The banner as plain lines, for a terminal; none without a winner or a best value."""
    lines = []
    if banner.alone is not None:
        return [f"Only one contender, {banner.alone}: {ALONE}", *banner.missing]
    if banner.winner is not None:
        lines.append("; ".join([f"Winner: {banner.winner}", *banner.sure]))
        lines += [f"Why: {banner.reason}"] if banner.reason else []
    elif banner.missing:
        lines.append(f"No winner: {NO_WSCORE}")
    lines += banner.missing
    if banner.best_value is not None:
        lines.append(f"Best value: {banner.best_value}, {banner.best_value_text}")
    return lines


def banner_markdown(banner: Banner, escape: Callable[[str], str]) -> str:
    """The banner as Markdown lines; ``escape`` makes a run's text literal (names come from a run file)."""
    if banner.alone is not None:
        return "  \n".join([f"**Only one contender, {escape(banner.alone)}:** {ALONE}", *map(escape, banner.missing)])
    if banner.winner is None:
        lines = [f"**No winner:** {NO_WSCORE if banner.missing else NO_WINNER}"]
    else:
        lines = ["; ".join([f"**Winner: {escape(banner.winner)}**", *banner.sure])]
        lines += [f"Why: {escape(banner.reason)}"] if banner.reason else []
    lines += [escape(line) for line in banner.missing]
    if banner.best_value is not None:
        lines.append(f"**Best value:** {escape(banner.best_value)}, {banner.best_value_text}")
    return "  \n".join(lines)


def banner_html(banner: Banner) -> str:
    """The banner as HTML, every text escaped; each part has a ``data-role`` a script can find."""
    e = html.escape
    if banner.alone is not None:
        return f"<strong>Only one contender, <span data-role='alone'>{e(banner.alone)}</span>:</strong> {e(ALONE)}"
    if banner.winner is None:
        lines = [f"<strong>No winner:</strong> {NO_WSCORE if banner.missing else NO_WINNER}"]
    else:
        lines = [f"<strong>Winner: <span data-role='winner'>{e(banner.winner)}</span></strong>"]
        lines += [f"<span data-role='sure'>{e('; '.join(banner.sure))}</span>"] if banner.sure else []
        lines += [f"<span data-role='reason'>Why: {e(banner.reason)}</span>"] if banner.reason else []
    if banner.best_value is not None:
        lines.append(
            f"<strong>Best value:</strong> <span data-role='best-value'>{e(banner.best_value)}</span>, "
            f"{e(banner.best_value_text)}"
        )
    return "<br>".join(lines)


def missing_wscores(table: pd.DataFrame, weights: Mapping[str, float] | None) -> list[str]:
    """One line per contender with scored results but no wscore under these weights: which weighted values it
    lacks, and how to give them (a price, for cost). Ranking is the spec's: such rows come after the rest."""
    if not weights or "wscore" not in table.columns:
        return []
    lines: dict[str, str] = {}
    for row in table.to_dict("records"):
        if row.get("scored", 0) <= 0 or not is_missing(row.get("wscore", np.nan)) or row["contender"] in lines:
            continue
        missing = [name for name in weights if name != "errors" and is_missing(row.get(name, np.nan))]
        if missing:
            lines[str(row["contender"])] = f"no wscore for {row['contender']}: " + "; ".join(map(_missing, missing))
    found = list(lines.values())
    if found:
        found[-1] += ". Rows without a wscore rank after the others, by score"
    return found


def _missing(name: str) -> str:
    if name == "cost":
        return (
            "cost is weighted and unknown (no price); give its model one under `prices:` in evalcore.yaml "
            "(input_cost_per_token, output_cost_per_token), or weight cost 0"
        )
    if name == "time":
        return "time is weighted and unknown (no latency recorded); weight time 0 to rank it"
    return f"{name} is weighted and has no value on its scored cases; weight {name} 0 to rank it"


def flagged(table: pd.DataFrame, column: str) -> str | None:
    """The first contender whose row has ``column`` set (★ best, value), or None."""
    if column not in table.columns:
        return None
    rows = table.loc[table[column].astype(bool), "contender"]
    return str(rows.iloc[0]) if len(rows) else None


def value_of(table: pd.DataFrame, contender: str, column: str) -> float | None:
    """``contender``'s value in ``column``, or None when the column or the value is missing."""
    if column not in table.columns:
        return None
    values = table.loc[table["contender"] == contender, column]
    return None if values.empty or is_missing(float(values.iloc[0])) else float(values.iloc[0])


# --- why the winner is first -----------------------------------------------------------------------


def winner_reason(table: pd.DataFrame, weights: Mapping[str, float] | None) -> str | None:
    """One line saying why the best row won against the runner-up, the best-ranked other row with a score.

    E.g. ``"fake/a ranks first on the weighted score: 54.0 vs 50.0 for fake/b, ahead on score (54.0% vs
    50.0%)"``, ``"fake/flaky ties on score but loses 20 points of weighted score for 1 error"``,
    ``"fake/a ranks first on score: 54.0% vs 50.0% for fake/b"`` (no weights).

    Args:
        table: one ranked table (:func:`evalcore.analysis.ranking.leaderboard.rank`), in rank order.
        weights: the weights it was ranked under.

    Returns:
        The line, or None when there is no best row, no other row with a score, or several datasets.
    """
    if "dataset" in table.columns and table["dataset"].nunique() > 1:
        return None
    rows = table.to_dict("records")
    best = next((r for r in rows if r.get("best")), None)
    others = [r for r in rows if r is not best and r.get("scored", 0) > 0]
    if best is None or not others:
        return None
    weights = dict(weights or {})
    weighted = bool(weights) and not is_missing(best.get("wscore", np.nan))
    return _reason(best, others[0], weighted, weights)


def _reason(best: dict, other: dict, weighted: bool, weights: Mapping[str, float]) -> str:
    b, o = best["contender"], other["contender"]
    if _ranks_above(other, best):
        return f"{o} ranks higher but has {plural(other['errors'], 'error')}, and a row with errors is never best"
    gap = best["score"] - other["score"]
    scores = f"{format_percent(other['score'])} vs {format_percent(best['score'])}"
    if weighted and "errors" in weights and other["errors"] > 0:
        penalty = ERRORS_PENALTY_BASE + ERRORS_PENALTY_EACH * other["errors"]
        lost = f"loses {penalty} points of weighted score for {plural(other['errors'], 'error')}"
        if other["wscore"] + penalty >= best["wscore"] - 10**-TIE_DECIMALS:
            if "score" not in weights:
                return f"{o} {lost}, which puts it behind"
            if abs(gap) < SCORE_TIE:
                return f"{o} ties on score but {lost}"
            return f"{o} scores {'higher' if gap < 0 else 'lower'} ({scores}) but {lost}"
    if weighted and round(best["wscore"] - other["wscore"], TIE_DECIMALS) > 0:
        line = f"{b} ranks first on the weighted score: {best['wscore']:.1f} vs {other['wscore']:.1f} for {o}"
        ahead = ", ahead on"
        if "score" in weights and gap <= -SCORE_TIE:
            line, ahead = f"{line}, which scores higher ({scores})", f"; {b} is ahead on"
        edges = _edges(best, other, weights)
        return f"{line}{ahead} {edges}" if edges else line
    prefix = "ties on weighted score; " if weighted else ""
    if gap >= SCORE_TIE:
        first = f"{format_percent(best['score'])} vs {format_percent(other['score'])}"
        return f"{prefix}{b} ranks first on score: {first} for {o}"
    if not is_missing(best["cost"]) and (is_missing(other["cost"]) or best["cost"] < other["cost"]):
        costs = f"{format_cost(best['cost'])} vs {format_cost(other['cost'])} per case"
        return f"{prefix}ties on score; {b} is cheaper ({costs})"
    return f"{prefix}ties with {o} on score and cost; first by contender id"


def _ranks_above(row: dict, other: dict) -> bool:
    return not is_missing(row.get("rank")) and not is_missing(other.get("rank")) and row["rank"] < other["rank"]


def _edges(best: dict, other: dict, weights: Mapping[str, float]) -> str | None:
    """The weighted names on which the best row does better than the other, with both values, in words."""
    edges = []
    for name, weight in weights.items():
        mine, theirs = best.get(name, np.nan), other.get(name, np.nan)
        if name == "errors" or is_missing(mine) or is_missing(theirs) or mine == theirs:
            continue
        if (mine > theirs) != (weight > 0):
            continue
        shown = {"cost": format_cost, "time": format_seconds}.get(name, format_percent)
        if shown(mine) == shown(theirs):
            continue  # a difference too small to read is no reason to give
        unit = " per case" if name in ("cost", "time") else ""
        if name == "score" and weight < 0:  # a lower score is no edge but for the weight that rewards it
            edges.append(f"a lower score ({shown(mine)} vs {shown(theirs)}), which the weight score={weight:g} rewards")
            continue
        edges.append(f"{name} ({shown(mine)} vs {shown(theirs)}{unit})")
    if "errors" in weights and best["errors"] < other["errors"]:
        edges.append(f"errors ({best['errors']} vs {other['errors']})")
    if not edges:
        return None
    return edges[0] if len(edges) == 1 else ", ".join(edges[:-1]) + " and " + edges[-1]
