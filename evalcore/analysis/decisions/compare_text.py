"""A comparison and a gate report as text: a plain table for a terminal, markdown for a pull request, JSON.

The markdown is made to paste as a pull-request comment or to append to ``$GITHUB_STEP_SUMMARY``: a verdict
line, one small table, the top flips with what was wrong.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import msgspec

from evalcore.analysis.decisions.compare import Change, Comparison, PairComparison
from evalcore.analysis.scores.formats import format_value, plural

if TYPE_CHECKING:
    from evalcore.analysis.decisions.gate import GateReport

#: What a flip's kind reads as in a table.
FLIP_LABELS = {
    "worse": "worse",
    "error appeared": "error appeared",
    "better": "better",
    "error vanished": "error vanished",
}
#: A flip's details: (candidate contender, dataset, case) → lines saying what was wrong (want vs got, or the
#: error); keyed by contender too, as one case can flip in several pairs.
Details = Mapping[tuple[str, str, str], list[str]]


def change_cells(change: Change) -> list[str]:
    """name, base, candidate, difference [interval], p, verdict."""
    return [
        change.name,
        format_value(change.name, change.base),
        format_value(change.name, change.candidate),
        difference_text(change),
        "–" if math.isnan(change.p_value) else f"{change.p_value:.3f}",
        f"inconclusive: ~{change.more_cases:,} more cases" if inconclusive(change) else change.verdict,
    ]


def inconclusive(change: Change) -> str:
    """``inconclusive: about N more cases would decide a difference this size`` for a change within noise whose
    size the planner can tell (:attr:`evalcore.analysis.decisions.compare.Change.more_cases`), else empty."""
    if change.more_cases is None or change.verdict != "within noise":
        return ""
    return f"inconclusive: about {change.more_cases:,} more cases would decide a difference this size"


def inconclusive_line(pair: PairComparison) -> str:
    """The primary score's :func:`inconclusive` sentence with its difference, or empty: the question a
    comparison answers first."""
    score = pair.change("score")
    text = inconclusive(score) if score is not None else ""
    return f"score {difference_text(score)}: {text}" if score is not None and text else ""


def difference_text(change: Change) -> str:
    """``+2.5 [0.4 to 4.6] pts``, ``+$0.0002 (+12%) [$0.0001 to $0.0003]``, ``–`` when unknown."""
    if math.isnan(change.diff):
        return "–"
    interval = not (math.isnan(change.lo) or math.isnan(change.hi))
    why = f" (no interval: {change.note})" if change.note and not interval else ""
    if change.name in ("cost", "time"):
        text = _signed(format_value(change.name, change.diff), change.diff)
        text += "" if math.isnan(change.relative) else f" ({100 * change.relative:+.0f}%)"
        bounds = [format_value(change.name, v) for v in (change.lo, change.hi)] if interval else []
        return text + (f" [{bounds[0]} to {bounds[1]}]" if bounds else "") + why
    text = f"{_points(change.diff):+.1f}"
    return text + (f" [{_points(change.lo):.1f} to {_points(change.hi):.1f}]" if interval else "") + " pts" + why


def _points(fraction: float) -> float:
    """A fraction in points, rounded to one decimal, with no negative zero."""
    return round(100 * fraction, 1) or 0.0


def _signed(text: str, value: float) -> str:
    return ("+" + text) if value > 0 else text


CHANGE_HEADER = ["", "base", "candidate", "difference [95% interval]", "p", "change"]


def headline(pair: PairComparison) -> str:
    """One line: what regressed, what improved, or nothing beyond noise."""
    regressions = [c.name for c in pair.changes if c.verdict == "regression"]
    improvements = [c.name for c in pair.changes if c.verdict == "improvement"]
    if regressions:
        text = "REGRESSION in " + ", ".join(regressions)
        return text + ("; improved: " + ", ".join(improvements) if improvements else "")
    if improvements:
        return "IMPROVED: " + ", ".join(improvements) + "; nothing got worse beyond noise"
    return "NO SIGNIFICANT CHANGE"


#: How many contender ids a line of what was not compared names before it counts the rest.
UNPAIRED_SHOWN = 3
#: What a pair's headline starts with, in the order an overall verdict counts them.
OUTCOMES = {"REGRESSION": "regression", "IMPROVED": "improved", "NO SIGNIFICANT CHANGE": "no significant change"}


def outcome(pair: PairComparison) -> str:
    """``regression``, ``improved`` or ``no significant change``: the kind of the pair's :func:`headline`."""
    text = headline(pair)
    return next(kind for start, kind in OUTCOMES.items() if text.startswith(start))


def overall(comparison: Comparison) -> str:
    """One line over every pair: ``12 pairs: 1 regression, 2 improved, 9 no significant change``."""
    kinds = [outcome(p) for p in comparison.pairs]
    counts = ", ".join(f"{kinds.count(k)} {k}" for k in OUTCOMES.values() if kinds.count(k))
    return f"{plural(len(kinds), 'pair')}: {counts or 'none compared'}"


def comparison_lines(comparison: Comparison, details: Details | None = None, flips: int = 10) -> list[str]:
    """A comparison as plain text for a terminal: with several pairs, the overall verdict comes first."""
    lines = [f"base {comparison.base_run} → candidate {comparison.candidate_run}"]
    if len(comparison.pairs) > 1:
        lines.append(f"overall: {overall(comparison)}")
    lines += scope_lines(comparison)
    for pair in comparison.pairs:
        lines += ["", f"{pair.base} → {pair.candidate}: {headline(pair)} ({plural(pair.cases, 'shared case')})"]
        lines += _aligned(CHANGE_HEADER, [change_cells(c) for c in pair.changes])
        lines += [line for line in [inconclusive_line(pair)] if line]
        lines += _flip_lines(pair, details, flips, bullet="  ")
    return lines


def scope_lines(comparison: Comparison) -> list[str]:
    """What was compared: changed datasets, shared and left-out cases, contenders in one run only."""
    lines = []
    if comparison.changed_datasets:
        lines.append("datasets changed: " + ", ".join(comparison.changed_datasets))
    elif comparison.suite_changed:
        lines.append("the suite file changed (the datasets did not)")
    shared = plural(comparison.shared_cases, "shared case")
    left = comparison.left_out_cases
    lines.append(f"compared {shared}" + (f"; left out {plural(left, 'case')} not in both runs alike" if left else ""))
    for side, ids in (("base", comparison.unpaired_base), ("candidate", comparison.unpaired_candidate)):
        if ids:
            lines.append(f"not compared ({side} only): " + ", ".join(ids))
    unpaired = comparison.unpaired_shared
    if unpaired:
        more = len(unpaired) - UNPAIRED_SHOWN
        named = ", ".join(unpaired[:UNPAIRED_SHOWN]) + (f" and {more} more" if more > 0 else "")
        whose = "the run's" if comparison.base_run == comparison.candidate_run else "both runs'"
        others = "other contender" if len(unpaired) == 1 else f"{len(unpaired)} other contenders"
        lines.append(f"not paired: {whose} {others} ({named}); compare one with --pair BASE_ID=CAND_ID")
    return lines


def _flip_lines(pair: PairComparison, details: Details | None, limit: int, bullet: str, sub: str = "    ") -> list[str]:
    flips = pair.flips
    if not flips:
        return [f"{bullet}no case changed outcome"]
    counts = {kind: sum(f.kind == kind for f in flips) for kind in FLIP_LABELS}
    summary = ", ".join(f"{n} {FLIP_LABELS[k]}" for k, n in counts.items() if n)
    flaky = len(pair.flaky_flips())
    summary += f"; {flaky} of them on known-flaky cases" if flaky else ""
    lines = [f"{bullet}cases that changed: {summary}" + (f" (first {limit} below)" if len(flips) > limit else "")]
    for flip in flips[:limit]:
        scores = f"{format_value('score', flip.base_score)} → {format_value('score', flip.candidate_score)}"
        mark = " [flaky]" if (flip.dataset, flip.case) in pair.flaky else ""
        lines.append(f"{bullet}- {flip.dataset}/{flip.case}: {FLIP_LABELS[flip.kind]} ({scores}){mark}")
        said = (details or {}).get((pair.candidate, flip.dataset, flip.case), [])
        lines += [f"{bullet}{sub}{line}" for line in said]
    return lines


def comparison_markdown(comparison: Comparison, details: Details | None = None, flips: int = 5) -> str:
    """A comparison as markdown for a pull-request comment or ``$GITHUB_STEP_SUMMARY``.

    With several pairs, the overall verdict and a table of every pair's come first, and only the pairs that
    changed get their own table below: a comment over a dozen unchanged pairs stays short.
    """
    lines = [f"### evalcore compare: `{comparison.base_run}` → `{comparison.candidate_run}`", ""]
    shown = comparison.pairs
    if len(comparison.pairs) > 1:
        lines += [f"**Overall: {overall(comparison)}**", ""]
        rows = [[f"`{p.base}` → `{p.candidate}`", outcome(p), str(len(p.flips))] for p in comparison.pairs]
        lines += _pipe_table(["pair", "verdict", "cases that changed"], rows) + [""]
        shown = [p for p in comparison.pairs if outcome(p) != "no significant change" or p.flips]
        if len(shown) < len(comparison.pairs):
            quiet = len(comparison.pairs) - len(shown)
            lines += [
                f"_{plural(quiet, 'pair')} with no significant change and no changed case: in the table only_",
                "",
            ]
    lines += [f"_{line}_" for line in scope_lines(comparison)]
    for pair in shown:
        lines += ["", f"**{headline(pair)}**: `{pair.base}` → `{pair.candidate}`", ""]
        lines += _pipe_table(CHANGE_HEADER, [change_cells(c) for c in pair.changes])
        lines += [f"\n_{line}_" for line in [inconclusive_line(pair)] if line]
        lines += [""] + _flip_lines(pair, details, flips, bullet="", sub="  - ")
    return "\n".join(lines) + "\n"


def comparison_json(comparison: Comparison, details: Details | None = None) -> str:
    """A comparison as JSON: every pair's changes (with verdicts) and flips; NaN as null.

    Encoded by msgspec: a comparison of big runs lists tens of thousands of flips.
    """
    data = _comparison_data(comparison, details)
    # msgspec writes NaN and infinities as null, as the run file's strict JSON wants.
    return msgspec.json.format(msgspec.json.encode(data), indent=2).decode()


def _comparison_data(comparison: Comparison, details: Details | None) -> dict[str, Any]:
    pairs = []
    for pair in comparison.pairs:
        changes = [{**asdict(c), "verdict": c.verdict, "inconclusive": inconclusive(c) or None} for c in pair.changes]
        flips = [
            {
                "dataset": f.dataset,
                "case": f.case,
                "kind": f.kind,
                "base_score": f.base_score,
                "candidate_score": f.candidate_score,
                "flaky": (f.dataset, f.case) in pair.flaky,
                "details": (details or {}).get((pair.candidate, f.dataset, f.case), []),
            }
            for f in pair.flips
        ]
        pairs.append({"base": pair.base, "candidate": pair.candidate, "cases": pair.cases, "headline": headline(pair)})
        pairs[-1] |= {"changes": changes, "flips": flips}
    return {
        "base_run": comparison.base_run,
        "candidate_run": comparison.candidate_run,
        "shared_cases": comparison.shared_cases,
        "left_out_cases": comparison.left_out_cases,
        "changed_datasets": comparison.changed_datasets,
        "suite_changed": comparison.suite_changed,
        "unpaired_base": comparison.unpaired_base,
        "unpaired_candidate": comparison.unpaired_candidate,
        "unpaired_shared": comparison.unpaired_shared,
        "pairs": pairs,
    }


def gate_lines(report: GateReport) -> list[str]:
    """A gate report as plain text: each check, then the verdict."""
    lines = [f"gate: run {report.run}, contender {report.contender}"]
    if report.baseline:
        lines.append(f"baseline: run {report.baseline}, contender {report.baseline_contender}")
    lines += [f"note: {n}" for n in report.notes]
    table = [_check_cells(c) for c in report.checks if c.kind != "guardrail"]
    lines += [""] + (_aligned(GATE_HEADER, table) if table else [])
    guardrails = guardrail_lines(report)
    lines += ([""] if table and guardrails else []) + guardrails
    return [*lines, "", *report.inconclusive, f"verdict: {report.verdict}"]


def guardrail_lines(report: GateReport) -> list[str]:
    """One line per guardrail rule: ``[ok]`` or ``[BREACH]``, the metric, its value, the rule and why."""
    lines = []
    for check in report.checks:
        if check.kind == "guardrail":
            mark = "[ok]" if check.status == "PASS" else "[BREACH]"
            detail = f" ({check.detail})" if check.detail else ""
            lines.append(
                f"{mark} guardrail {check.name} = {format_value(check.name, check.value)}: {check.limit}{detail}"
            )
    return lines


GATE_HEADER = ["check", "value", "limit", "result", "detail"]


def _check_cells(check: Any) -> list[str]:
    scope = "" if check.scope == "all" else f" ({check.scope})"
    what = {"regression": "worse by", "errors": "error rate", "minimum": ""}[check.kind]
    name = f"{check.name}{scope}" + (f" {what}" if what and check.kind != "errors" else "")
    value = format_value(check.name, check.value, delta=check.kind == "regression")
    if check.kind == "errors":
        value = format_value("errors", check.value)
    return [name, value, check.limit, check.status, check.detail]


def gate_markdown(report: GateReport, comparison_details: Details | None = None) -> str:
    """A gate report as markdown: the verdict first, the checks as a table, then the top flips."""
    icon = {"PASS": "✅", "WARN": "⚠️", "FAIL": "❌"}[report.verdict]
    lines = [
        f"### {icon} evalcore gate: **{report.verdict}**",
        "",
        f"Run `{report.run}`, contender `{report.contender}`",
    ]
    if report.baseline:
        lines[-1] += f"; baseline `{report.baseline}` (`{report.baseline_contender}`)"
    lines += [""] + [f"_{n}_" for n in report.notes] + [""]
    table = [_check_cells(c) for c in report.checks if c.kind != "guardrail"]
    lines += _pipe_table(GATE_HEADER, table) if table else []
    guardrails = guardrail_lines(report)
    lines += ([""] if table and guardrails else []) + [f"- `{line}`" for line in guardrails]
    lines += [""] + [f"_{line}_" for line in report.inconclusive] if report.inconclusive else []
    if report.comparison is not None:
        lines += [""] + _flip_lines(report.comparison.pairs[0], comparison_details, 5, bullet="", sub="  - ")
    return "\n".join(lines) + "\n"


def gate_json(report: GateReport) -> str:
    data = {
        "run": report.run,
        "contender": report.contender,
        "baseline": report.baseline,
        "baseline_contender": report.baseline_contender,
        "verdict": report.verdict,
        "checks": [asdict(c) for c in report.checks],
        "inconclusive": report.inconclusive,
        "notes": report.notes,
        "excluded_flaky": [{"dataset": d, "case": c} for d, c in report.excluded],
    }
    return json.dumps(_plain(data), indent=2, ensure_ascii=False)


def _plain(value: Any) -> Any:
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _aligned(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]

    left = {0, len(header) - 1} if header is GATE_HEADER else {0}

    def line(cells: list[str]) -> str:
        padded = (c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True)))
        return "  ".join(padded).rstrip()

    return [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def _pipe_table(header: list[str], rows: list[list[str]]) -> list[str]:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    return [line(header), line(["---"] + ["---:"] * (len(header) - 1)), *(line(r) for r in rows)]
