"""What the command groups share: common arguments, opening the store or a run, filters, plain tables.

Heavy modules (pandas, litellm) are imported inside the functions that need them, so ``evalcore --help``
and the light commands start fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalcore.analysis.scores.results import Filters
    from evalcore.core.metric_set import MetricSet
    from evalcore.core.records import Run
    from evalcore.execution.plan import Plan, RunOptions
    from evalcore.storage.history import StoredRun
    from evalcore.storage.location import Location
    from evalcore.storage.store import Store
    from evalcore.suite.loader import Suite


# --- arguments -------------------------------------------------------------------------------------


def add_db(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        help="the store: a SQLite file, sqlite:///PATH or postgresql://USER@HOST/DB (its password in "
        "PGPASSWORD or ~/.pgpass, never on the command line; default: $EVALCORE_DB, else data/evalcore.db of "
        "the nearest project folder up from here, else ~/.local/share/evalcore/evalcore.db)",
    )


def add_suite(p: argparse.ArgumentParser) -> None:
    p.add_argument("suite", nargs="?", help=SUITE_HELP)


#: How a command finds its suite when none is named (:func:`suite_folder`).
SUITE_HELP = (
    "suite folder (holding evalcore.yaml); default: $EVALCORE_SUITE, else the nearest evalcore.yaml from the "
    "current folder upward"
)


def add_selection(p: argparse.ArgumentParser) -> None:
    """What a plan or a run covers: datasets, variants, cases, models and their settings."""
    p.add_argument(
        "-d", "--dataset", action="append", default=[], help="only these datasets (repeat or comma-separate)"
    )
    p.add_argument("--variant", action="append", default=[], help="only these variants (repeat or comma-separate)")
    p.add_argument("--limit", type=int, help="at most N cases per dataset")
    p.add_argument(
        "-m",
        "--model",
        action="append",
        default=[],
        help="replace the lineup with these models (repeat or comma-separate)",
    )
    p.add_argument(
        "-p",
        "--prompt",
        action="append",
        default=[],
        help="the suite's prompts (prompts/<name>.*) to ask with, e.g. default,terse (one contender each)",
    )
    p.add_argument("-e", "--effort", help="reasoning_effort values, e.g. low,high (one contender each)")
    p.add_argument("-t", "--temperature", help="temperature values, e.g. 0,0.7 (one contender each)")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=V1,V2",
        help="any other setting, e.g. --set max_tokens=300 (never a key or token: see docs/suites.md)",
    )
    p.add_argument("--api-base", help="send every real model's calls to this endpoint (local servers)")
    p.add_argument("--samples", type=int, help="repetitions per case")


def add_run_metadata(p: argparse.ArgumentParser, help_text: str) -> None:
    """``--metadata KEY=VALUE``, repeatable: a run's labels (read back by :func:`run_metadata`)."""
    p.add_argument("--metadata", action="append", default=[], metavar="KEY=VALUE", help=help_text)


def add_trackers(p: argparse.ArgumentParser) -> None:
    """``--tracker NAME``, repeatable: where the run is also sent (read back by :func:`run_options`)."""
    p.add_argument(
        "--tracker",
        action="append",
        default=[],
        metavar="NAME",
        help="also send the run to a tracker (repeat): otel (OTLP, set OTEL_EXPORTER_OTLP_ENDPOINT), mlflow "
        "(set MLFLOW_TRACKING_URI), outbox (JSON Lines, $EVALCORE_OUTBOX), or an installed package's; "
        "added to the suite's trackers: (docs/trackers.md)",
    )


def run_metadata(items: list[str]) -> dict[str, str]:
    """``--metadata`` arguments as a dict; a key given twice keeps its last value.

    Raises:
        ConfigError: an item that is not ``KEY=VALUE``, or a key with a double quote.
    """
    from evalcore.core.errors import ConfigError

    found = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key or '"' in key:
            raise ConfigError(f"--metadata {item!r}: write KEY=VALUE (a key without double quotes), e.g. branch=main")
        found[key] = value.strip()
    return found


def add_filters(p: argparse.ArgumentParser) -> None:
    """Which results of a run count (read back by :func:`filters_of`)."""
    p.add_argument("-d", "--dataset", action="append", default=[], help="only these datasets")
    p.add_argument("--variant", action="append", default=[], help="only these variants")
    p.add_argument("-c", "--contender", action="append", default=[], help="only these contenders (exact ids)")
    p.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="only cases whose metadata KEY equals VALUE, e.g. --where difficulty=hard",
    )


# --- reading arguments -----------------------------------------------------------------------------


def split(values: list[str] | str | None) -> list[str]:
    """Repeated and comma-separated values as one list: ``["a,b", "c"]`` → ``["a", "b", "c"]``."""
    if not values:
        return []
    items = [values] if isinstance(values, str) else values
    return [v.strip() for item in items for v in item.split(",") if v.strip()]


def setting_value(text: str) -> Any:
    """A setting's value as JSON when it reads as JSON (``0.7``, ``true``), else as text."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def run_options(args: argparse.Namespace, suite: Suite | None = None) -> RunOptions:
    """The run options of :func:`add_selection`'s arguments (and ``run``'s, when present); with the ``suite``,
    its ``run.adaptive`` under the race flags (``--adaptive``, ``--confidence``…)."""
    from evalcore.cli.batch import batch_settings
    from evalcore.core.errors import ConfigError
    from evalcore.execution.plan import RunOptions
    from evalcore.execution.race_settings import race_settings
    from evalcore.suite.lineup import Overrides

    settings: dict[str, list[Any]] = {}
    if args.prompt:
        settings["prompt"] = split(args.prompt)
    if args.effort:
        settings["reasoning_effort"] = split(args.effort)
    if args.temperature:
        settings["temperature"] = _checked("-t/--temperature", "temperature", split(args.temperature))
    for item in args.set:
        key, sep, values = item.partition("=")
        if not sep or not key:
            # Not quoted: a key pasted without its name would be shown.
            raise ConfigError("--set: write KEY=VALUE or KEY=V1,V2 (e.g. --set max_tokens=300)")
        settings[key.strip()] = _checked(f"--set {key.strip()}", key.strip(), split(values))
    if args.samples is not None:
        _checked("--samples", "samples", [str(args.samples)])
    return RunOptions(
        datasets=split(args.dataset),
        variants=split(args.variant),
        limit=args.limit,
        samples=args.samples,
        parallelism=getattr(args, "parallelism", None),
        concurrency=getattr(args, "concurrency", None),
        max_attempts=getattr(args, "max_attempts", None),
        timeout_s=getattr(args, "timeout", None),
        revision=getattr(args, "revision", None),
        max_cost_usd=getattr(args, "max_cost", None),
        metadata=run_metadata(getattr(args, "metadata", [])),
        trackers=list(getattr(args, "tracker", None) or []),
        cache=getattr(args, "cache", None),
        cache_max_age_s=getattr(args, "cache_max_age", None),
        batch=batch_settings(args),
        overrides=Overrides(models=split(args.model), settings=settings, api_base=args.api_base),
        adaptive=race_settings(
            suite.config.run.adaptive if suite is not None else None,
            getattr(args, "adaptive", None),
            getattr(args, "confidence", None),
            getattr(args, "margin", None),
            getattr(args, "race_seed", None),
            getattr(args, "round", None),
        ),
    )


def add_race(p: argparse.ArgumentParser) -> None:
    """The flags of an adaptive run (``docs/adaptive.md``)."""
    p.add_argument(
        "--adaptive",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="race the contenders: call the cases in a random order, in rounds, and stop calling a contender once "
        "it cannot be the best (default: the suite's run.adaptive; --no-adaptive calls every contender on every case)",
    )
    p.add_argument(
        "--confidence",
        type=float,
        help="with --adaptive: the chance that the best contender is never stopped, however often the race looks "
        "(default 0.95)",
    )
    p.add_argument(
        "--margin",
        type=float,
        metavar="POINTS",
        help="with --adaptive: end the race when no contender still in can be this many points of score ahead of "
        "the leader (tied for practical purposes; default 0: never)",
    )
    p.add_argument(
        "--seed",
        dest="race_seed",
        type=int,
        help="with --adaptive: the seed of the order the cases are called in (default: a fresh one, recorded)",
    )
    p.add_argument("--round", type=int, metavar="CASES", help="with --adaptive: cases per round (default: N/25, 10-50)")


def _checked(flag: str, key: str, texts: list[str]) -> list[Any]:
    """A flag's values read as settings, refused (naming the flag) when one is out of its range."""
    from evalcore.core.errors import ConfigError
    from evalcore.suite.settings import setting_problem

    values = [setting_value(v) for v in texts]
    for value in values:
        problem = setting_problem(key, value)
        if problem:
            raise ConfigError(f"{flag}: {problem}")
    return values


def suite_folder(given: str | None) -> str:
    """The suite a command works on: the one named, else the one :func:`~evalcore.suite.loader.find_suite` finds
    (said on stderr).

    Raises:
        ConfigError: none named and none found.
    """
    if given:
        return given
    import sys

    from evalcore.suite.loader import find_suite

    found = str(find_suite(Path.cwd()))
    print(f"suite: {found}", file=sys.stderr)
    return found


def plan_of(args: argparse.Namespace) -> Plan:
    """The plan of the suite and selection the arguments name."""
    from evalcore.execution.plan import make_plan
    from evalcore.suite.loader import load_suite

    suite = load_suite(suite_folder(args.suite))
    return make_plan(suite, run_options(args, suite))


def filters_of(args: argparse.Namespace) -> Filters:
    """The filters of :func:`add_filters`' arguments.

    Raises:
        ConfigError: a ``--where`` that is not ``KEY=VALUE``.
    """
    from evalcore.analysis.scores.results import Filters
    from evalcore.core.errors import ConfigError

    metadata: dict[str, list[str]] = {}
    for item in args.where:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--where {item!r}: write KEY=VALUE, e.g. difficulty=hard")
        metadata.setdefault(key.strip(), []).append(value.strip())
    return Filters(
        datasets=split(args.dataset), variants=split(args.variant), contenders=list(args.contender), metadata=metadata
    )


# --- the store and its runs ------------------------------------------------------------------------


def open_store(args: argparse.Namespace, *, create: bool = False) -> Store:
    """The store ``--db`` names (a path or a URL), else the default one.

    A command that only reads opens the store only if it exists: a mistyped ``--db`` is reported, never created
    as an empty store. A command that writes runs into the store passes ``create=True``.

    Raises:
        ConfigError: ``--db`` names a folder, or a URL of a scheme a store cannot have.
        StoreMissing: unless ``create``, there is no store there (no file, or a server without evalcore's tables).
        StoreError: the store cannot be opened (a PostgreSQL server that cannot be reached).
    """
    from evalcore.core.errors import ConfigError, StoreMissing
    from evalcore.storage.store import Store

    location = store_location(args)
    path = location.path
    if path is not None and path.is_dir():
        raise ConfigError(f"--db {path}: is a folder; give the store's file, e.g. {path / 'evalcore.db'}")
    try:
        return Store(location, create=create)
    except StoreMissing as e:
        fix = "(EVALCORE_DB / --db); runs are stored by evalcore run or evalcore import"
        raise StoreMissing(e.location, fix) from None


def store_holding(ref: str, args: argparse.Namespace) -> Store:
    """The store to look up ``ref`` in, once it is known to be no file: when there is no store either, the error
    says both, so a mistyped file name is not reported as a missing store alone.

    Raises:
        ConfigError: as :func:`open_store`; and ``ref`` is no file while there is no store.
    """
    from evalcore.core.errors import ConfigError, StoreMissing

    try:
        return open_store(args)
    except StoreMissing as e:
        raise ConfigError(f"{ref}: no such file, and {e}") from None


def store_location(args: argparse.Namespace) -> Location:
    """Where the store ``--db`` names is, else the default one (:func:`~evalcore.storage.location.default_location`:
    ``$EVALCORE_DB``, else the nearest project's, walking up from the suite's folder for a command on a suite and
    from the working folder for the others, else the per-user store).

    Raises:
        ConfigError: the URL's scheme is not one a store can have.
    """
    from evalcore.storage.location import default_location, parse_location

    db = getattr(args, "db", None)
    if db:
        return parse_location(db)
    suite = getattr(args, "suite", None)
    start = Path(suite) if isinstance(suite, str | Path) and Path(suite).exists() else None
    return default_location(start.parent if start is not None and start.is_file() else start)


def open_run(ref: str, args: argparse.Namespace) -> Run | StoredRun:
    """A file read whole (a run file, a promptfoo result file or an Inspect log), or a run in the store by id
    or unique id prefix (its results, or summary, read when needed)."""
    path = Path(ref)
    if path.is_file():
        from evalcore.runfile.importers import read_import

        return read_import(path)
    from evalcore.storage.history import StoredRun

    store = store_holding(ref, args)
    return StoredRun(store, store.resolve_run_id(ref))


def read_header(ref: str, args: argparse.Namespace) -> Run:
    """A file read whole (as :func:`open_run` reads it), or a stored run's header by id or unique id prefix
    (no results, no frame: pandas stays unloaded)."""
    path = Path(ref)
    if path.is_file():
        from evalcore.runfile.importers import read_import

        return read_import(path)
    store = store_holding(ref, args)
    return store.load_run(store.resolve_run_id(ref), results=False)


# --- output ----------------------------------------------------------------------------------------


#: The width of a line when stdout is no terminal and ``COLUMNS`` is not set.
DEFAULT_WIDTH = 100


def terminal_width() -> int:
    """Characters a line may have: ``COLUMNS``, else the terminal's width, else :data:`DEFAULT_WIDTH`."""
    import shutil

    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns


def table(rows: list[list[Any]], header: list[str]) -> str:
    """Rows as aligned plain-text columns under a header and a rule."""
    cells = [header] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def warn_directions(weights: dict[str, float] | None, metric_set: MetricSet) -> None:
    """On stderr, once: each weight whose sign ranks the worse contenders first (``score=-1``)."""
    from evalcore.analysis.scores.weights import direction_warnings

    for line in direction_warnings(weights, metric_set).values():
        print(f"warning: {line}", file=sys.stderr)


def print_refused(plan: Plan) -> None:
    """One line per lineup entry the suite cannot ask, with the reason."""
    for r in plan.refused:
        print(f"refused: {r.text}")


def print_messages(title: str, messages: list[dict[str, Any]]) -> None:
    """Chat messages for a person under ``=== title``: each role, then its text, with an image as one line
    (``[image image/png, 3,246 bytes]``) instead of its base64; a blank line after them."""
    from evalcore.core.images import shown_content

    print(f"=== {title}")
    for message in messages:
        print(f"--- {message['role']}\n{shown_content(message['content'])}")
    print()


def print_errors(failed: list[tuple[str, str, str]]) -> None:
    """Why calls failed, per contender, on stderr: counts by kind and the first message (a failed call is never
    scored). ``evalcore run`` prints it after its leaderboard, ``evalcore leaderboard`` after any run's.

    Args:
        failed: (contender, kind, message) of each failed call, in the run's order (:meth:`Store.failed_calls`).
    """
    import sys
    from collections import Counter

    kinds: dict[str, Counter[str]] = {}
    first: dict[str, str] = {}
    for contender, kind, message in failed:
        kinds.setdefault(contender, Counter())[kind] += 1
        first.setdefault(contender, message)
    for contender, counts in kinds.items():
        summary = ", ".join(f"{n} {kind}" for kind, n in counts.most_common())
        print(f"errors: {contender}: {summary}; first: {first[contender]}", file=sys.stderr)


def said_store_lost(progress: Any) -> bool:
    """Whether the run ended without its store (it went away and stayed away); then its one line is said on stderr,
    and nothing more can be read from the store."""
    lost = getattr(progress, "store_lost", None)
    if lost:
        print(lost, file=sys.stderr)
    return bool(lost)


class Watch:
    """A progress callback that keeps the last progress and passes it on to the bars, if any."""

    def __init__(self, bars: Any):
        self.bars = bars
        self.last: Any = None

    def __call__(self, progress: Any) -> None:
        self.last = progress
        if self.bars is not None:
            self.bars(progress)
