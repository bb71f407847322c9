"""Commands on the store's run history: ``runs``, ``export``, ``import`` and ``delete``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from evalcore.cli._shared import add_db, open_store, table

#: ``evalcore import`` stores the leaderboard summary of a run with more results than this, so the explorer
#: opens it without reading them. A smaller run's summary is quick for the explorer to compute and save on
#: first open, and importing it stays free of pandas, which is slow to load next to a small import.
SUMMARY_AT_IMPORT_ABOVE = 100_000


def add_runs(p: argparse.ArgumentParser) -> None:
    add_db(p)
    p.add_argument("--format", choices=["table", "json"], default="table")


def cmd_runs(args: argparse.Namespace) -> int:
    runs = open_store(args).list_runs()
    if args.format == "json":
        print(json.dumps(runs, indent=1, default=str))
        return 0
    if not runs:
        print("no runs yet: try `evalcore run data/suites/intake`")
        return 0
    keys = ["id", "suite", "created_at", "status", "contenders", "cases", "results", "errors", "cost_usd"]
    rows = [[_cell(r.get(k)) for k in keys] for r in runs]
    print(table(rows, keys))
    return 0


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "–" if value is None else str(value)


def add_export(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_id", help="a run id, or a unique prefix of one (at least 4 characters)")
    p.add_argument("-o", "--output", required=True, help="file to write (.json, or .json.gz for gzip)")
    add_db(p)


def cmd_export(args: argparse.Namespace) -> int:
    from evalcore.runfile.write import export_run

    store = open_store(args)
    count = export_run(store, store.resolve_run_id(args.run_id), Path(args.output))
    print(f"wrote {args.output}: {count} {'result' if count == 1 else 'results'}")
    return 0


def add_import(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", help="run file (.json or .json.gz)")
    p.add_argument("--replace", action="store_true", help="replace a stored run with the same id")
    add_db(p)


def cmd_import(args: argparse.Namespace) -> int:
    from evalcore.runfile.read import read_run_file

    run = read_run_file(Path(args.path))
    store = open_store(args)
    store.import_run(run, replace=args.replace)
    if len(run.results) > SUMMARY_AT_IMPORT_ABOVE:
        from evalcore.analysis.summaries import refresh_summary

        refresh_summary(store, run.info.id)
    n = len(run.results)
    print(f"imported run {run.info.id} ({run.info.suite}, {n} {'result' if n == 1 else 'results'})")
    return 0


def add_delete(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_id", help="a run id, or a unique prefix of one (at least 4 characters)")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    add_db(p)


def cmd_delete(args: argparse.Namespace) -> int:
    store = open_store(args)
    run_id = store.resolve_run_id(args.run_id)
    if not args.yes:
        answer = input(f"delete run {run_id} and all its results? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("kept")
            return 1
    store.delete_run(run_id)
    print(f"deleted run {run_id}")
    return 0


COMMANDS = {
    "runs": (add_runs, cmd_runs, "list stored runs", "evalcore runs --format json"),
    "export": (
        add_export,
        cmd_export,
        "write a stored run as a run file (.json or .json.gz)",
        "evalcore export 3f2c... -o run.json.gz",
    ),
    "import": (
        add_import,
        cmd_import,
        "read a run file into the store; atomic",
        "evalcore import run.json.gz --replace",
    ),
    "delete": (add_delete, cmd_delete, "delete a stored run and its results", "evalcore delete 3f2c... --yes"),
}
