"""Commands that decide over time: ``compare`` two runs, ``gate`` a candidate, pin a ``baseline``.

Exit codes of ``gate`` (docs/compare.md): 0 on PASS or WARN, 1 on FAIL, 2 when it cannot decide (bad
arguments, a missing run, nothing comparable). ``compare`` exits 0 when it could compare, 2 when not.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from evalcore.cli._shared import add_db, open_run, open_store
from evalcore.cli.output import writing
from evalcore.core.errors import StoreMissing

if TYPE_CHECKING:
    from evalcore.core.records import Run
    from evalcore.storage.history import StoredRun
    from evalcore.storage.store import Store
    from evalcore.suite.config import GateModel

FORMATS = ["table", "json", "markdown"]


def add_compare(p: argparse.ArgumentParser) -> None:
    p.add_argument("base", help="the baseline: a run id (or unique prefix) in the store, or a run file")
    p.add_argument("candidate", help="the candidate: a run id (or unique prefix), or a run file")
    p.add_argument(
        "--pair",
        action="append",
        default=[],
        metavar="BASE_ID=CAND_ID",
        help="compare these contenders (repeatable); default: the same ids, or the only one of each run",
    )
    p.add_argument("--strict", action="store_true", help="refuse (exit 2) when the suite or a dataset changed")
    p.add_argument("--flips", type=int, default=10, help="how many changed cases to show (default 10)")
    p.add_argument(
        "--format", choices=[*FORMATS, "html"], default="table", help="html: one offline page with forest plots"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and the permutation test")
    add_db(p)


def cmd_compare(args: argparse.Namespace) -> int:
    from evalcore.analysis.decisions.compare import compare
    from evalcore.analysis.decisions.compare_text import comparison_json, comparison_lines, comparison_markdown
    from evalcore.explorer.flips import flip_details
    from evalcore.storage.history import StoredRun

    base, candidate = open_run(args.base, args), open_run(args.candidate, args)
    comparison = compare(base, candidate, args.pair or None, strict=args.strict, seed=args.seed)
    if isinstance(candidate, StoredRun):  # the store's history says which of its cases are flaky
        from evalcore.analysis.decisions.flaky import mark_flaky

        comparison = mark_flaky(comparison, candidate, candidate.store)
    details = flip_details(candidate, comparison, args.flips)
    if args.format == "json":
        print(comparison_json(comparison, details))
    elif args.format == "html":
        from evalcore.explorer.compare_report import comparison_html

        print(comparison_html(comparison, details, flips=args.flips), end="")
    elif args.format == "markdown":
        print(comparison_markdown(comparison, details, flips=args.flips), end="")
    else:
        print("\n".join(comparison_lines(comparison, details, flips=args.flips)))
    return 0


def add_gate(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", help="the candidate: a run id (or unique prefix) in the store, or a run file")
    p.add_argument(
        "--baseline",
        help="the run to compare with (default: the suite's pinned baseline, else the newest earlier completed "
        "run of the suite with the same definition fingerprint)",
    )
    p.add_argument("--contender", help="the candidate's contender (default: the only one, or the top-ranked)")
    p.add_argument("--baseline-contender", help="the baseline's contender (default: the pinned one, or the same id)")
    p.add_argument("--suite", help="read the gate: block from this suite folder (default: the one the run recorded)")
    p.add_argument("--format", choices=FORMATS, default="table")
    p.add_argument(
        "--summary",
        action="store_true",
        help="also append the markdown report to $GITHUB_STEP_SUMMARY when it is set",
    )
    add_db(p)


def cmd_gate(args: argparse.Namespace) -> int:
    from evalcore.analysis.decisions.compare_text import gate_json, gate_lines, gate_markdown
    from evalcore.analysis.decisions.gate import evaluate

    run = open_run(args.run, args)
    header = _header(run)
    baseline, base_contender, why = _baseline(args, header)
    report = evaluate(
        run,
        gate_for(header, args.suite),
        contender=args.contender,
        baseline=baseline,
        baseline_contender=base_contender,
        baseline_why=why,
    )
    from evalcore.explorer.flips import flip_details

    details = flip_details(run, report.comparison, 5) if report.comparison is not None else {}
    markdown = gate_markdown(report, details)
    if args.format == "json":
        print(gate_json(report))
    elif args.format == "markdown":
        print(markdown, end="")
    else:
        print("\n".join(gate_lines(report)))
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if args.summary and summary:
        with writing(summary, "$GITHUB_STEP_SUMMARY"), open(summary, "a", encoding="utf-8") as out:
            out.write(markdown + "\n")
    return report.exit_code


def gate_run(run: StoredRun, store: Store) -> int:
    """The gate of a stored run against its suite's baseline (pinned, else automatic), printed as a table: its
    exit code."""
    from evalcore.analysis.decisions.compare_text import gate_lines
    from evalcore.analysis.decisions.gate import evaluate

    base, base_contender, why = stored_baseline(store, run.header)
    report = evaluate(run, gate_for(run.header), baseline=base, baseline_contender=base_contender, baseline_why=why)
    print("\n".join(gate_lines(report)))
    return report.exit_code


def stored_baseline(store: Store, header: Run) -> tuple[StoredRun | None, str | None, str]:
    """The baseline of a candidate run from the store, its contender (None: chosen by the gate) and why it was
    chosen or why there is none: the suite's pin, else the newest earlier completed run of the suite with the
    candidate's definition fingerprint (:func:`evalcore.storage.baselines.automatic_baseline`)."""
    from evalcore.storage.baselines import automatic_baseline, baseline
    from evalcore.storage.history import StoredRun
    from evalcore.suite.fingerprint import SETTING

    info = header.info
    pinned = baseline(store, info.suite)
    if pinned is not None and pinned["run_id"] != info.id:
        return StoredRun(store, pinned["run_id"]), pinned["contender"], f"pinned for suite {info.suite}"
    found = automatic_baseline(store, info.suite, info.id, info.created_at, info.settings.get(SETTING))
    prefix = "" if pinned is None else "the pinned baseline is this run; "
    if found.run_id is None:
        return None, None, prefix + found.why
    return StoredRun(store, found.run_id), None, prefix + found.why


def _header(run: Run | StoredRun) -> Run:
    from evalcore.storage.history import header_of

    return header_of(run)


def _baseline(args: argparse.Namespace, header: Run) -> tuple[Run | StoredRun | None, str | None, str | None]:
    """The baseline run, its contender and why: ``--baseline``, else :func:`stored_baseline`, else none."""
    if args.baseline:
        return open_run(args.baseline, args), args.baseline_contender, None
    try:
        store = open_store(args)
    except StoreMissing as e:
        if not Path(args.run).is_file():
            raise
        return None, None, f"the candidate is a run file and there is no store to find one in: {e}"
    run, contender, why = stored_baseline(store, header)
    return run, args.baseline_contender or contender, why


def gate_for(header: Run, suite_path: str | None = None) -> GateModel | None:
    """The gate to apply: ``--suite``'s ``gate:`` block, else the one the run recorded, else the recorded suite's.

    Only ``evalcore.yaml`` is read (checked whole), not the datasets. None means the suite has no ``gate:``
    block: the default gate applies.
    """
    from evalcore.analysis.decisions.gate import gate_of
    from evalcore.core.errors import ConfigError
    from evalcore.suite.loader import SUITE_FILE, parse_suite_config

    def read(folder: str) -> GateModel | None:
        path = Path(folder)
        path = path if path.name == SUITE_FILE else path / SUITE_FILE
        if not path.is_file():
            raise ConfigError(f"{folder}: no {SUITE_FILE} here")
        return parse_suite_config(path.read_text(encoding="utf-8"), str(path)).gate

    if suite_path:
        return read(suite_path)
    settings = header.info.settings
    if "gate" in settings:
        return gate_of(settings["gate"])
    recorded = settings.get("suite_path")
    if recorded and (Path(recorded) / SUITE_FILE).is_file():
        return read(recorded)
    return None


def add_baseline(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["set", "show", "clear"], help="pin a run, show the pins, or remove one")
    p.add_argument("run", nargs="?", help="set: the run id (or unique prefix) to pin; clear: the suite name")
    p.add_argument("--contender", help="set: the contender to compare with (default: the run's top-ranked)")
    add_db(p)


def cmd_baseline(args: argparse.Namespace) -> int:
    from evalcore.core.errors import ConfigError
    from evalcore.storage.baselines import baselines, clear_baseline, pin_baseline

    store = open_store(args)
    if args.action == "show":
        pins = baselines(store)
        if not pins:
            print("no baseline pinned (evalcore baseline set RUN_ID)")
        for pin in pins:
            print(f"{pin['suite']}: run {pin['run_id']}, contender {pin['contender']} (pinned {pin['pinned_at']})")
        return 0
    if not args.run:
        raise ConfigError(
            f"evalcore baseline {args.action}: give a run id" + (" or suite name" * (args.action == "clear"))
        )
    if args.action == "clear":
        removed = clear_baseline(store, args.run)
        print(f"baseline of {args.run} removed" if removed else f"no baseline pinned for {args.run}")
        return 0
    from evalcore.analysis.decisions.gate import choose_contender
    from evalcore.analysis.tables.runs import rank_run
    from evalcore.storage.history import StoredRun

    run = StoredRun(store, store.resolve_run_id(args.run))
    header = run.header
    ids = [c.id for c in header.contenders]
    ranked = rank_run(run, header.info.weights, ci=False) if args.contender is None and len(ids) > 1 else None
    contender, _ = choose_contender(ranked, ids, args.contender, f"run {run.id}")
    pin_baseline(store, header.info.suite, run.id, contender)
    print(f"pinned run {run.id} ({contender}) as the baseline of suite {header.info.suite}")
    return 0


def add_flaky(p: argparse.ArgumentParser) -> None:
    p.add_argument("suite", nargs="?", help="a suite's name or folder; default: every suite in the store")
    p.add_argument(
        "--alpha", type=float, default=0.05, help="the chance of naming any case of a stable history (default 0.05)"
    )
    p.add_argument("--format", choices=["table", "json"], default="table")
    add_db(p)


def cmd_flaky(args: argparse.Namespace) -> int:
    from evalcore.analysis.decisions.flaky import FLAKY_TEST, flaky_cases, stored_histories
    from evalcore.cli._shared import table

    store = open_store(args)
    suites = [_suite_name(args.suite)] if args.suite else sorted({r["suite"] for r in store.list_runs()})
    histories = {suite: stored_histories(store, suite) for suite in suites}
    found = [(suite, f) for suite, history in histories.items() for f in flaky_cases(history, args.alpha)]
    if args.format == "json":
        rows = [
            {"suite": suite, **dataclasses.asdict(f.key), "outcomes": list(f.outcomes), "flips": f.flips}
            | {"flip_rate": f.flip_rate, "base_rate": f.base_rate, "p_value": f.p_value}
            for suite, f in found
        ]
        print(json.dumps(rows, indent=1))
        return 0
    unrun = [suite for suite, history in histories.items() if not history]
    if unrun and args.format == "table":
        print(f"no completed run of {', '.join(unrun)} made by evalcore run in the store (evalcore runs lists them)")
    if not found:
        print(f"no flaky case in {', '.join(suites) or 'the store'} ({FLAKY_TEST.format(alpha=args.alpha)})")
        return 0
    lines = [
        [suite, f.key.contender, f"{f.key.dataset}/{f.key.case}", len(f.outcomes), f.flips, f"{f.flip_rate:.0%}"]
        + [f"{f.base_rate:.1%}", f"{f.p_value:.2g}", "".join("✓" if o else "✗" for o in f.outcomes[-10:])]
        for suite, f in found
    ]
    headers = ["suite", "contender", "case", "runs", "flips", "flip rate", "group rate", "p", "last outcomes"]
    print(table(lines, headers))
    print(f"\n{FLAKY_TEST.format(alpha=args.alpha)}")
    return 0


def _suite_name(given: str) -> str:
    """A suite's name: as given, or read from the ``evalcore.yaml`` of a suite folder."""
    folder = Path(given)
    if (folder / "evalcore.yaml").is_file():
        from evalcore.suite.loader import load_suite

        return load_suite(folder).config.suite
    return given


COMMANDS = {
    "flaky": (
        add_flaky,
        cmd_flaky,
        "cases whose outcome flips between runs of the same suite definition and contender more than chance allows",
        "evalcore flaky data/suites/intake --format json",
    ),
    "compare": (
        add_compare,
        cmd_compare,
        "compare a candidate run with a base run: per-metric changes with intervals, and the cases that flipped",
        "evalcore compare BASE_RUN CANDIDATE_RUN --format markdown",
    ),
    "gate": (
        add_gate,
        cmd_gate,
        "check a run against the suite's gate: PASS or WARN exit 0, FAIL exits 1, cannot decide exits 2",
        "evalcore gate RUN_ID --baseline BASE_RUN",
    ),
    "baseline": (
        add_baseline,
        cmd_baseline,
        "pin the run a suite's gate compares with (set), show the pins (show), or remove one (clear)",
        "evalcore baseline set RUN_ID --contender 'fake/oracle · t=0'",
    ),
}
