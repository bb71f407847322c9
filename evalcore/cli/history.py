"""Commands on the store's run history: ``runs``, ``export``, ``import``, ``merge``, ``delete`` and ``copy``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalcore.cli._shared import add_db, add_run_metadata, open_store, run_metadata, store_location, table
from evalcore.cli.output import output_path, writing
from evalcore.cli.traces import add_trace_scoring, score_traces, trace_scorers

if TYPE_CHECKING:
    from evalcore.core.records import Run
    from evalcore.storage.runs import RunFilters
    from evalcore.storage.store import Store

#: ``evalcore import`` stores the leaderboard summary of a run with more results than this, so the explorer
#: opens it without reading them. A smaller run's summary is quick for the explorer to compute and save on
#: first open, and importing it stays free of pandas, which is slow to load next to a small import.
SUMMARY_AT_IMPORT_ABOVE = 100_000


def add_runs(p: argparse.ArgumentParser) -> None:
    add_db(p)
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument("--suite", help="only runs of this suite (its name)")
    p.add_argument("--status", help="only runs with this status: running, completed, interrupted, failed or cancelled")
    p.add_argument("--since", metavar="DATE", help="only runs created on or after this date or time, e.g. 2026-11-29")
    p.add_argument("--limit", type=int, metavar="N", help="only the N newest runs (after the other filters)")
    add_run_metadata(p, "only runs labelled KEY=VALUE by `evalcore run --metadata` (repeat: all must match)")


def run_filters(args: argparse.Namespace) -> RunFilters:
    """The history filters of ``runs``' arguments, checked.

    Raises:
        ConfigError: a ``--limit`` below 1, a ``--since`` that is no date or time, a bad ``--metadata``.
    """
    from evalcore.core.errors import ConfigError
    from evalcore.storage.runs import RunFilters

    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit {args.limit}: give a number of runs, 1 or more")
    statuses = run_statuses()
    if args.status is not None and args.status not in statuses:
        raise ConfigError(f"--status {args.status!r}: not a run status; give one of {', '.join(statuses)}")
    return RunFilters(
        suite=args.suite,
        status=args.status,
        since=None if args.since is None else since_stamp(args.since),
        metadata=run_metadata(args.metadata),
        limit=args.limit,
    )


def run_statuses() -> list[str]:
    """The statuses ``runs --status`` takes: a stored run's, and ``cancelled`` (an interrupted run a user stopped)."""
    from evalcore.storage.runs import CANCELLED
    from evalcore.storage.store import RUN_STATUSES

    return [*RUN_STATUSES, CANCELLED]


def since_stamp(text: str) -> str:
    """``--since``'s value as the stored runs' times read (RFC 3339 UTC): a date stays a date (its start), a time
    with an offset is moved to UTC, a time without one is taken as UTC.

    Raises:
        ConfigError: neither a date nor a time.
    """
    from datetime import UTC, date, datetime

    from evalcore.core.errors import ConfigError

    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"--since {text!r}: give a date (2026-11-29) or a time (2026-11-29T18:00:00Z)") from None
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def cmd_runs(args: argparse.Namespace) -> int:
    from evalcore.storage.runs import RunFilters

    filters = run_filters(args)
    runs = _listed_runs(args, filters)
    if args.format == "json":
        print(json.dumps(runs, indent=1, default=str))
        return 0
    if not runs:
        filtered = filters != RunFilters()
        print("no run matches these filters" if filtered else "no runs yet: try `evalcore run data/suites/intake`")
        return 0
    keys = ["id", "suite", "created_at", "status", "contenders", "cases", "results", "errors", "cost_usd"]
    rows = [[_cell(r.get(k)) for k in keys] + [_labels(r["metadata"])] for r in runs]
    print(table(rows, keys + ["metadata"]))
    return 0


def _listed_runs(args: argparse.Namespace, filters: RunFilters) -> list[dict[str, Any]]:
    """The runs of the store ``--db`` names. A PostgreSQL database that is reached but holds no evalcore tables
    is an empty store (its name was not mistyped: the server knows it), listed as such and left as it is; a
    missing SQLite file is no store (a mistyped path), said as an error."""
    from evalcore.core.errors import StoreMissing

    try:
        store = open_store(args)
    except StoreMissing:
        if not store_location(args).is_server:
            raise
        return []
    try:
        return store.list_runs(filters)
    finally:
        store.close()


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "–" if value is None else str(value)


def _labels(metadata: dict[str, Any]) -> str:
    """``branch=main pr=42``: a run's metadata in one cell."""
    return " ".join(f"{k}={v}" for k, v in metadata.items()) or "–"


def add_export(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_id", help="a run id, or a unique prefix of one (at least 4 characters)")
    p.add_argument(
        "-o", "--output", help="file to write (.json, or .json.gz for gzip); with --to eee, the folder to write into"
    )
    p.add_argument(
        "--to",
        metavar="TRACKER",
        help="send the run to a tracker instead (mlflow, otel, outbox, an installed package's; docs/trackers.md); "
        "sending it again updates what MLflow holds, never duplicates it; eee: write it as Every Eval Ever records "
        "(into -o FOLDER, default eee-RUN_ID; docs/importing.md)",
    )
    add_db(p)


def cmd_export(args: argparse.Namespace) -> int:
    """Exit codes: 0 written or sent; 1 the tracker could not send everything; 2 a user error."""
    from evalcore.core.errors import ConfigError
    from evalcore.runfile.write import export_run

    if args.to == EEE:
        return _export_eee(args)
    if (args.output is None) == (args.to is None):
        raise ConfigError("export: give -o FILE (write the run file) or --to TRACKER (send the run), one of them")
    path = output_path(args.output) if args.output is not None else None
    store = open_store(args)
    run_id = store.resolve_run_id(args.run_id)
    if path is None:
        return _send(store, run_id, args.to)
    with writing(path):
        count = export_run(store, run_id, path)
    print(f"wrote {args.output}: {count} {'result' if count == 1 else 'results'}")
    return 0


#: ``export --to eee``: the run as Every Eval Ever records, not sent to a tracker.
EEE = "eee"


def _export_eee(args: argparse.Namespace) -> int:
    """Write a stored run as Every Eval Ever records into a folder (refused when it holds files already)."""
    from evalcore.core.errors import ConfigError
    from evalcore.runfile.eee_export import write_eee

    store = open_store(args)
    run_id = store.resolve_run_id(args.run_id)
    folder = Path(args.output or f"eee-{run_id}")
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ConfigError(
            f"export --to eee -o {folder}: {'not a folder' if not folder.is_dir() else 'the folder is not empty'}; "
            "give a new or empty folder"
        )
    written = write_eee(store.load_run(run_id), folder)
    records = sum(1 for p in written if p.suffix == ".json")
    print(f"wrote {records} Every Eval Ever {'record' if records == 1 else 'records'} into {folder}:")
    for path in written:
        print(f"  {path}")
    return 0


def _send(store: Store, run_id: str, name: str) -> int:
    from evalcore.suite.config import NamedRef
    from evalcore.trackers import build_trackers, send_stored_run

    [tracker] = build_trackers([NamedRef(name=name)], Path.cwd())
    unsent = send_stored_run(store, run_id, tracker)
    for line in unsent:
        print(line, file=sys.stderr)
    if not unsent:
        print(f"sent run {run_id} to {name}")
    return 1 if unsent else 0


def add_import(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="run files (.json, .json.gz), promptfoo result files, Inspect logs (.json, .eval), lm-evaluation-harness "
        "output folders (results_*.json with their samples_*.jsonl, or a .zip of them), Every Eval Ever records "
        "(<uuid>.json with its <uuid>_samples.jsonl, or a .zip of them), OpenTelemetry traces (OTLP JSON), or "
        "folders of them",
    )
    p.add_argument(
        "--replace",
        action="store_true",
        help="replace a stored run with the same id (without it, the same run again is left as it is, and a "
        "different run under a stored id is refused)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    traces = p.add_argument_group("OpenTelemetry traces (OTLP JSON)")
    traces.add_argument("--sample", metavar="SHARE", help="keep this share of the model calls, e.g. 5%% (stable)")
    traces.add_argument("--since", metavar="DATE", help="keep the calls that started on or after DATE (ISO 8601)")
    traces.add_argument(
        "--where",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="keep the calls whose span or resource attribute KEY equals VALUE (repeatable)",
    )
    add_trace_scoring(traces)
    add_db(p)


def trace_selection(args: argparse.Namespace) -> Any:
    """The ``--sample``/``--since``/``--where`` of ``import`` as a selection of traced calls (None: all)."""
    from evalcore.core.errors import ConfigError
    from evalcore.runfile.importers.otlp import Selection, parse_share, parse_since

    if args.sample is None and args.since is None and not args.where:
        return None
    try:
        share = parse_share(args.sample) if args.sample is not None else None
    except ValueError as exc:
        raise ConfigError(str(exc) if "--sample" in str(exc) else f"--sample {args.sample!r}: give e.g. 5%") from None
    since = parse_since(args.since) if args.since is not None else None
    if args.since is not None and since is None:
        raise ConfigError(f"--since {args.since!r}: give a date or time, e.g. 2026-12-01 or 2026-12-01T12:00:00Z")
    bad = [w for w in args.where if "=" not in w]
    if bad:
        raise ConfigError(f"--where {bad[0]!r}: give KEY=VALUE, e.g. --where deployment.environment=prod")
    return Selection(share, since, dict(w.split("=", 1) for w in args.where))


def cmd_import(args: argparse.Namespace) -> int:
    """Import every file named and every file in every folder named, each one atomically; a file in a folder
    that no importer knows is skipped with a word, one named on the command line is an error."""
    from evalcore.cli import imports
    from evalcore.core.errors import EvalcoreError
    from evalcore.runfile.importers.detect import InspectListingError, UnknownLayoutError
    from evalcore.storage.transfer import holds_run

    selection = trace_selection(args)
    scorers = trace_scorers(args)
    target = imports.StoreOnDemand(args)
    failed = scored = 0
    try:
        for path, in_folder in imports.targets([Path(p) for p in args.paths]):
            try:
                # --sample/--since/--where select traced calls: a run file they name is read whole, and warned of
                streamed = None if selection else imports.import_streaming(target.store(), path, args.replace)
                if streamed is not None:
                    stored, count = streamed
                    if count > SUMMARY_AT_IMPORT_ABOVE:
                        _refresh_summary(target.store(), stored.id)
                    target.written += 1
                    imports.report(stored, path, count)
                    if scorers is not None:
                        print(f"  warning: --suite scores traced calls only; {path.name} was imported as it is")
                    continue
                run = imports.read_with_bar(path, quiet=args.quiet, selection=selection)
                traced = run.info.provenance.get("tool", {}).get("name") == "otlp"
                if not args.replace and holds_run(target.store(), run):
                    where = target.store().location
                    print(f"run {run.info.id} is already in the store {where}, unchanged: nothing imported")
                    if scorers is not None and traced:
                        scored = max(scored, score_traces(args, target.store(), run, scorers))
                    continue
                store_run(target.store(), run, replace=args.replace)
            except UnknownLayoutError as exc:
                if in_folder:
                    why = (
                        "Inspect's listing of the folder's logs"
                        if isinstance(exc, InspectListingError)
                        else "not a run file, promptfoo result file, Inspect log, lm-eval results file or Every Eval "
                        "Ever record"
                    )
                    print(f"skipped {path}: {why}", file=sys.stderr)
                else:
                    failed += 1
                    print(f"error: {exc}", file=sys.stderr)
                continue
            except EvalcoreError as exc:
                failed += 1
                print(f"error: {exc}", file=sys.stderr)
                continue
            target.written += 1
            imports.report(run, path, len(run.results))
            if selection is not None and not traced:
                print(
                    f"  warning: --sample, --since and --where select traced calls only; {path.name} was imported whole"
                )
            if scorers is not None and not traced:
                print(f"  warning: --suite scores traced calls only; {path.name} was imported as it is")
            elif scorers is not None:
                scored = max(scored, score_traces(args, target.store(), run, scorers))
        if target.written:
            print(f"stored in {target.store().location}")
    finally:
        target.close()
    return 2 if failed else scored


def store_run(store: Store, run: Run, replace: bool) -> None:
    """Store a whole run (atomically), with its leaderboard summary when it is big."""
    store.import_run(run, replace=replace)
    if len(run.results) > SUMMARY_AT_IMPORT_ABOVE:
        _refresh_summary(store, run.info.id)


def _refresh_summary(store: Store, run_id: str) -> None:
    from evalcore.analysis.tables.summaries import refresh_summary

    store.map_memory(False)  # the run's numbers are read once: their pages need not stay mapped
    refresh_summary(store, run_id)


def add_merge(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", metavar="RUN", help="run ids (or unique prefixes) in the store, or files")
    p.add_argument("-o", "--output", required=True, help="run file to write (.json, or .json.gz for gzip)")
    p.add_argument("--by-id", action="store_true", help="match cases by id alone (datasets named differently)")
    p.add_argument("--save", action="store_true", help="also store the merged run")
    p.add_argument("--replace", action="store_true", help="with --save: replace a stored run with the same id")
    add_db(p)


def cmd_merge(args: argparse.Namespace) -> int:
    """Merge runs over the same cases into one run file (and, with ``--save``, into the store)."""
    from evalcore.cli import imports
    from evalcore.runfile.merge import merge_runs
    from evalcore.runfile.write import write_run_file

    path = output_path(args.output, example="merged.json")
    runs = [imports.open_whole(ref, args) for ref in args.runs]
    merged = merge_runs(runs, by_id=args.by_id)
    run = merged.run
    with writing(path):
        write_run_file(run, path)
    print(
        f"merged {len(runs)} runs into {run.info.id}: {len(run.contenders)} contenders, {len(run.cases)} cases, "
        f"{len(run.results)} results; wrote {args.output}"
    )
    for (source, old), new in merged.renamed.items():
        print(f"  renamed {old!r} of {source} to {new!r}")
    imports.print_unmatched(merged.unmatched)
    if args.save:
        store_run(open_store(args, create=True), run, replace=args.replace)
        print(f"stored run {run.info.id}")
    return 0


def add_delete(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_id", help="a run id, or a unique prefix of one (at least 4 characters)")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    add_db(p)


def cmd_delete(args: argparse.Namespace) -> int:
    """Exit 0 when deleted, 1 when the answer to the question was no, 2 when there is no one to ask."""
    from evalcore.core.errors import ConfigError

    store = open_store(args)
    run_id = store.resolve_run_id(args.run_id)
    if not args.yes:
        try:
            answer = input(f"delete run {run_id} and all its results? [y/N] ")
        except EOFError:
            raise ConfigError(
                f"delete run {run_id}: there is no terminal to ask for confirmation; add --yes to delete it"
            ) from None
        if answer.strip().lower() not in ("y", "yes"):
            print("kept")
            return 1
    store.delete_run(run_id)
    print(f"deleted run {run_id}")
    return 0


def add_copy(p: argparse.ArgumentParser) -> None:
    where = "a SQLite file, sqlite:///PATH or postgresql://USER@HOST/DB (password in PGPASSWORD or ~/.pgpass)"
    p.add_argument("--from", dest="source", required=True, metavar="STORE", help=f"the store to read: {where}")
    p.add_argument("--to", dest="target", required=True, metavar="STORE", help=f"the store to write: {where}")
    p.add_argument("run_ids", nargs="*", metavar="RUN_ID", help="only these runs (ids or unique prefixes); default all")
    p.add_argument("--replace", action="store_true", help="overwrite runs the target holds (default: skip them)")


def cmd_copy(args: argparse.Namespace) -> int:
    """Copy runs between two stores, oldest first, each atomically; exit 2 when the stores are one or the source
    is missing."""
    from evalcore.core.errors import ConfigError, StoreMissing
    from evalcore.storage.location import parse_location
    from evalcore.storage.store import Store
    from evalcore.storage.transfer import copy_runs

    source_at, target_at = parse_location(args.source, "--from"), parse_location(args.target, "--to")
    if str(source_at) == str(target_at) or (
        source_at.path is not None
        and target_at.path is not None
        and source_at.path.resolve() == target_at.path.resolve()
    ):
        raise ConfigError(f"--from and --to name the same store ({source_at}); give two stores")
    try:
        source = Store(source_at, create=False)
    except StoreMissing:
        fix = "give the file or URL of the store to copy from"
        raise ConfigError(f"--from {source_at}: no such store; {fix}") from None
    with source, Store(target_at) as target:
        report = copy_runs(
            source,
            target,
            args.run_ids or None,
            replace=args.replace,
            progress=lambda run_id, n: print(f"copied run {run_id} ({n} {'result' if n == 1 else 'results'})"),
        )
    runs = len(report.copied)
    print(f"copied {runs} {'run' if runs == 1 else 'runs'} ({report.results} results) from {source_at} to {target_at}")
    if report.skipped:
        print(f"skipped {len(report.skipped)} the target already holds (--replace overwrites them)")
    if report.pins:
        print(f"baseline pins copied: {', '.join(report.pins)}")
    return 0


COMMANDS = {
    "runs": (
        add_runs,
        cmd_runs,
        "list stored runs, newest first (filter by suite, status, date, metadata)",
        "evalcore runs --suite intake --status completed --since 2026-11-01 --limit 5",
    ),
    "export": (
        add_export,
        cmd_export,
        "write a stored run as a run file (.json or .json.gz)",
        "evalcore export 3f2c... -o run.json.gz",
    ),
    "import": (
        add_import,
        cmd_import,
        "read run files, promptfoo result files, Inspect logs, lm-evaluation-harness output or OpenTelemetry traces "
        "(files or folders) into the store, each run atomically; --suite scores traced replies with a suite's judges",
        "evalcore import run.json.gz promptfoo-out.json logs/ --replace",
    ),
    "merge": (
        add_merge,
        cmd_merge,
        "combine runs over the same cases into one run: contenders from all; the cases not in every run are listed",
        "evalcore merge promptfoo-0c6d54 inspect-c76df0 --by-id -o merged.json --save",
    ),
    "delete": (add_delete, cmd_delete, "delete a stored run and its results", "evalcore delete 3f2c... --yes"),
    "copy": (
        add_copy,
        cmd_copy,
        "copy every run (or the runs named) from one store to another, e.g. SQLite to PostgreSQL; each run atomically",
        "evalcore copy --from sqlite:///data/evalcore.db --to postgresql://evalcore@db.example.com/evalcore",
    ),
}
