"""Run history and sharing: the run list with each run's winner, a suite's trend over its runs, the run a
page opens on, bundled run files and suites for a fresh deployment, and the query strings
that carry a view or a comparison in the address bar.

Nothing here imports streamlit or litellm.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from evalcore.analysis.decisions.compare import PairComparison
from evalcore.analysis.ranking.leaderboard import Prepared, finish, prepare
from evalcore.analysis.scores.results import Filters
from evalcore.analysis.scores.weights import fold_primary, validate_weights
from evalcore.analysis.tables.banner import flagged
from evalcore.analysis.tables.runs import metric_set_of, prepare_run, rank_basis_of, run_stops
from evalcore.analysis.tables.view import ViewState, weight_names
from evalcore.core.errors import EvalcoreError, WeightsError
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Run
from evalcore.storage.history import StoredRun, header_of

if TYPE_CHECKING:
    from evalcore.storage.store import Store

log = logging.getLogger(__name__)


# --- runs -----------------------------------------------------------------------------------------


def winner_of(run: Run, frame: pd.DataFrame | None = None) -> str | None:
    """The best contender of a run under its own weights (no intervals), or None."""
    from evalcore.storage.frames import results_frame

    frame = results_frame(run) if frame is None else frame
    if frame.empty:
        return None
    metric_set = metric_set_of(run)
    return _best_of(prepare(frame, metric_set, ci=False), run, metric_set)


def _best_of(prepared: Prepared, run: Run | StoredRun, metric_set: MetricSet) -> str | None:
    """The row flagged best when ``prepared`` is ranked under the run's weights (its own, when usable)."""
    return flagged(_ranked(prepared, run, metric_set), "best")


def _ranked(prepared: Prepared, run: Run | StoredRun, metric_set: MetricSet) -> pd.DataFrame:
    """``prepared`` ranked under the run's weights (its own, when usable), without intervals, by the judge's
    score corrected by people when the run's suite asks, as its leaderboard ranks."""
    try:
        weights = validate_weights(header_of(run).info.weights, metric_set)
    except WeightsError:
        weights = {}
    basis = rank_basis_of(run)
    if basis is not None:
        from evalcore.analysis.people.corrected import with_corrected

        prepared = with_corrected(prepared, basis, metric_set)
    return finish(prepared.without_intervals(), metric_set, weights, stops=run_stops(run))


#: Columns of :func:`run_trend`.
TREND_COLUMNS = ["id", "created", "contender", "winner", "score", "cost", "time"]


def run_trend(store: Any, suite: str) -> pd.DataFrame:
    """A suite's runs over time, oldest first: one row per run and contender with ``created`` (a UTC
    timestamp), ``winner`` (the run's best under its own weights), ``score``, ``cost`` and ``time`` (means
    per case). Read from each run's summary when it has one: no reply is read.
    """
    rows = []
    for info in store.list_runs():
        if info.get("suite") != suite or not info.get("results"):
            continue
        try:
            stored = StoredRun(store, info["id"])
            metric_set = metric_set_of(stored)
            table = _ranked(prepare_run(stored, metric_set, ci=False), stored, metric_set)
        except EvalcoreError as exc:
            log.warning("run %s: left out of the trend: %s", info["id"], exc)
            continue
        best = flagged(table, "best")
        for row in table.to_dict("records"):
            rows.append(
                {
                    "id": info["id"],
                    "created": pd.Timestamp(info["created_at"]),
                    "contender": str(row["contender"]),
                    "winner": row["contender"] == best,
                    **{name: row.get(name) for name in ("score", "cost", "time")},
                }
            )
    table = pd.DataFrame(rows, columns=TREND_COLUMNS)
    return table.sort_values(["created", "contender"], ignore_index=True) if len(table) else table


def trend_of(trend: pd.DataFrame, contender: str | None = None) -> pd.DataFrame:
    """One row per run of :func:`run_trend`: the ``contender``'s, or (None) each run's winner's."""
    chosen = trend["winner"] if contender is None else trend["contender"] == contender
    return trend[chosen.astype(bool).to_numpy()].reset_index(drop=True)


def trend_contenders(trend: pd.DataFrame) -> list[str]:
    """The contenders of :func:`run_trend`, the most recent run's first."""
    return list(dict.fromkeys(trend.iloc[::-1]["contender"]))


def run_summaries(store: Any) -> pd.DataFrame:
    """The run history, newest first: ``id, suite, created`` (UTC, to the second), ``launched by`` (who
    launched it signed in to the app, else None), ``status, contenders, cases, results, errors, cost, winner``
    (``–`` when no row qualifies), ``metadata`` (its labels as ``key=value key=value``, else None).
    """
    columns = [
        *("id", "suite", "created", "launched by", "status", "contenders", "cases", "results", "errors", "cost"),
        *("winner", "metadata"),
    ]
    rows = []
    for info in store.list_runs():
        try:
            winner = None
            if info.get("results"):
                # The run's summary when it has one, else its packed frame: never every reply.
                stored = StoredRun(store, info["id"])
                metric_set = metric_set_of(stored)
                winner = _best_of(prepare_run(stored, metric_set, ci=False), stored, metric_set)
        except EvalcoreError as exc:
            log.warning("run %s: no winner: %s", info["id"], exc)
            winner = None
        created = str(info.get("created_at") or "")[:19].replace("T", " ")
        rows.append(
            {
                "id": info["id"],
                "suite": info.get("suite"),
                "created": created,
                "status": info.get("status"),
                "contenders": info.get("contenders"),
                "cases": info.get("cases"),
                "results": info.get("results"),
                "errors": info.get("errors"),
                "cost": info.get("cost_usd"),
                "winner": winner or "–",
                "launched by": info.get("launched_by"),
                "metadata": " ".join(f"{k}={v}" for k, v in (info.get("metadata") or {}).items()) or None,
            }
        )
    table = pd.DataFrame(rows, columns=columns)
    return table.sort_values("created", ascending=False, ignore_index=True) if len(table) else table


#: How an uploaded run stands against the store (:func:`stored_as`).
NEW, SAME, DIFFERENT = "new", "same", "different"


def stored_as(store: Any, run: Run) -> str:
    """Whether a run (an upload) is in the store: :data:`NEW` (no run has its id), :data:`SAME` (stored
    with the same content), or :data:`DIFFERENT` (a different run is stored under its id)."""
    from evalcore.runfile.write import run_to_dict

    if not any(info["id"] == run.info.id for info in store.list_runs()):
        return NEW
    return SAME if _content(run_to_dict(store.load_run(run.info.id))) == _content(run_to_dict(run)) else DIFFERENT


def _content(data: dict[str, Any]) -> dict[str, Any]:
    """A run file's content less the time it was imported: the same file imported again is the same run."""
    provenance = data["run"]["provenance"]
    source = provenance.get("source")
    if isinstance(source, dict) and "imported_at" in source:
        source = {k: v for k, v in source.items() if k != "imported_at"}
        data["run"] = {**data["run"], "provenance": {**provenance, "source": source}}
    return data


def default_run(infos: Sequence[Mapping[str, Any]]) -> str | None:
    """The run to show when none is picked: the newest completed one, else the newest (``infos`` newest first)."""
    completed = [i for i in infos if i.get("status") == "completed"]
    chosen = completed[0] if completed else (infos[0] if infos else None)
    return None if chosen is None else str(chosen["id"])


def default_comparison(infos: Sequence[Mapping[str, Any]], pins: Mapping[str, str]) -> tuple[str, str] | None:
    """The two runs a comparison opens on, ``(base, candidate)``: the newest run (completed, when one is)
    against its suite's pinned baseline (``pins``: suite → run id), else against the suite's run before
    it, else against its suite's next run. When its suite has no other run, the run against itself: runs of
    two suites share no case, and one run's contenders (two prompts of one model, say) can be paired.
    None with fewer than two runs (``infos`` newest first)."""
    if len(infos) < 2:
        return None
    candidate = str(default_run(infos))
    suite = next(i.get("suite") for i in infos if i["id"] == candidate)
    same_suite = [str(i["id"]) for i in infos if i["id"] != candidate and i.get("suite") == suite]
    pinned = pins.get(str(suite))
    if pinned in same_suite:
        return str(pinned), candidate
    if not same_suite:
        return candidate, candidate
    ids = [str(i["id"]) for i in infos]
    after = [i for i in same_suite if ids.index(i) > ids.index(candidate)]
    return (after or same_suite)[0], candidate


def missing_run_note(asked: str, shown: Mapping[str, Any]) -> str:
    """What a page says when an address names a run this store does not hold and ``shown`` stands in for it."""
    return (
        f"Run {asked} is not in this store; showing {run_label(shown)} instead, with the address's filters and "
        "weights that apply to it. To see that run, import its file here (evalcore import FILE) or open the "
        "address on the store that holds it."
    )


def run_label(info: Mapping[str, Any]) -> str:
    """How a run picker names a run: ``intake · 2026-11-29 18:04 · completed · 3f2c9a1b``."""
    created = str(info.get("created_at") or "")[:16].replace("T", " ")
    return f"{info.get('suite')} · {created} · {info.get('status')} · {str(info.get('id'))[:8]}"


def bundled_run_files(folder: str | Path) -> list[Path]:
    """The run files (``*.json``, ``*.json.gz``) in ``folder``, by name."""
    root = Path(folder)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_file() and p.name.endswith((".json", ".json.gz")))


def bundled_suites(folder: str | Path) -> dict[str, Path]:
    """Suite folders just under ``folder`` (each holding ``evalcore.yaml``), by folder name (the app lists
    deeper ones under several roots with :func:`evalcore.explorer.suite_roots.suites_under`)."""
    from evalcore.explorer.suite_roots import suites_under

    return suites_under([folder], depth=1)


def open_app_store(path: str) -> Store:
    """The store the app serves: the default one (the project's ``data/evalcore.db``, by the rule of
    :func:`~evalcore.storage.location.nearest_store`, as the commands find it) is created when missing, as are a
    database server's tables; a SQLite file that ``EVALCORE_DB`` or the app's secret names must exist, so a
    mistyped path is said on the page instead of becoming an empty store.

    Raises:
        StoreMissing: ``path`` names a SQLite file other than the default that does not exist; the message says
            where the path came from and how to make the store.
        ConfigError: the URL's scheme is not one a store can have.
        StoreError: the store cannot be opened or reached.
    """
    from evalcore.core.errors import StoreMissing
    from evalcore.storage.location import nearest_store, parse_location
    from evalcore.storage.store import Store

    location = parse_location(path, "EVALCORE_DB")
    default = nearest_store()
    create = location.is_server or (location.path is not None and location.path.absolute() == default)
    try:
        return Store(location, create=create)
    except StoreMissing as e:
        fix = (
            "(EVALCORE_DB, else the [connections.evalcore] secret): check the path, or store runs there with "
            f"evalcore import FILE --db {e.location} (or evalcore run); with neither set, the app keeps its runs "
            f"in {default}"
        )
        raise StoreMissing(e.location, fix) from None


def seed_store_from_bundled(store: Any, folder: str | Path) -> list[str]:
    """Import every bundled run file when the store holds no run; returns the imported ids.

    A file that does not validate is skipped with a warning in the log: one bad file must not keep
    a fresh deployment from showing the others.
    """
    from evalcore.runfile.read import read_run_file

    if store.list_runs():
        return []
    imported = []
    for path in bundled_run_files(folder):
        try:
            run = read_run_file(path)
            store.import_run(run)
        except EvalcoreError as exc:
            log.warning("bundled run file %s skipped: %s", path, exc)
            continue
        imported.append(run.info.id)
    return imported


# --- the address bar ------------------------------------------------------------------------------

_LIST_KEYS = {"dataset": "datasets", "variant": "variants", "contender": "contenders"}


def encode_query(state: ViewState) -> dict[str, str | list[str]]:
    """The query string of a view: ``run``, repeated ``dataset``/``variant``/``contender``,
    ``meta`` as ``key:value`` items and ``w`` as ``name:weight,...``."""
    params: dict[str, str | list[str]] = {}
    if state.run:
        params["run"] = state.run
    for key, attr in _LIST_KEYS.items():
        values = getattr(state.filters, attr)
        if values:
            params[key] = list(values)
    meta = [f"{k}:{v}" for k, values in state.filters.metadata.items() for v in values]
    if meta:
        params["meta"] = meta
    if state.weights is not None:
        params["w"] = ",".join(f"{name}:{_number(w)}" for name, w in state.weights.items()) or "none"
    return params


def _number(value: float) -> str:
    return f"{value:g}"


def decode_query(params: Mapping[str, str | Sequence[str]]) -> ViewState:
    """Read a view back from a query string; a malformed item is skipped (and logged), never fatal."""

    def listed(key: str) -> list[str]:
        value = params.get(key)
        return [] if value is None else [value] if isinstance(value, str) else [str(v) for v in value]

    filters = Filters(datasets=listed("dataset"), variants=listed("variant"), contenders=listed("contender"))
    for item in listed("meta"):
        key, sep, value = item.partition(":")
        if sep and key:
            filters.metadata.setdefault(key, []).append(value)
    run = listed("run")
    weights_text = listed("w")
    return ViewState(
        run=run[-1] if run else None,
        filters=filters,
        weights=_decode_weights(weights_text[-1]) if weights_text else None,
    )


def _decode_weights(text: str) -> dict[str, float] | None:
    if text == "none":
        return {}
    weights: dict[str, float] = {}
    for item in text.split(","):
        name, sep, number = item.partition(":")
        try:
            value = float(number)
        except ValueError:
            value = float("nan")
        if not sep or not name or not math.isfinite(value):
            log.warning("query string: weight %r skipped; write name:number", item)
            continue
        weights[name.strip()] = value
    return weights or None


def usable_weights(weights: Mapping[str, float] | None, metric_set: MetricSet) -> dict[str, float] | None:
    """Keep only weights this metric set's sliders allow (a shared URL may name another suite's metric), the
    primary metric's on ``score`` (:func:`evalcore.analysis.scores.weights.fold_primary`)."""
    if weights is None:
        return None
    allowed = set(weight_names(metric_set))
    return {k: v for k, v in fold_primary(weights, metric_set).items() if k in allowed}


@dataclass(frozen=True)
class ComparisonState:
    """The Compare page's choice as the address bar carries it: two run ids and explicit contender pairs
    (``BASE_ID=CANDIDATE_ID``, as ``evalcore compare --pair`` takes them; none: paired by id)."""

    base: str | None = None
    candidate: str | None = None
    pairs: tuple[str, ...] = ()


#: The query keys of a comparison.
COMPARISON_KEYS = ("base", "candidate", "pair")


def encode_comparison(state: ComparisonState) -> dict[str, str | list[str]]:
    """The query string of a comparison: ``base``, ``candidate`` and repeated ``pair``."""
    params: dict[str, str | list[str]] = {}
    if state.base:
        params["base"] = state.base
    if state.candidate:
        params["candidate"] = state.candidate
    if state.pairs:
        params["pair"] = list(state.pairs)
    return params


#: The shortest run-id prefix an address may use (the app shows 8 characters).
MIN_PREFIX = 4


def resolve_ref(ref: str | None, refs: Sequence[str]) -> str | None:
    """A run ref as an address gives it, made whole: itself when known, else the one ref it is a unique
    prefix of (at least :data:`MIN_PREFIX` characters, as ``evalcore`` takes them); else unchanged."""
    if not ref or ref in refs or len(ref) < MIN_PREFIX:
        return ref
    matches = [r for r in refs if r.startswith(ref)]
    return matches[0] if len(matches) == 1 else ref


def decode_comparison(params: Mapping[str, str | Sequence[str]]) -> ComparisonState:
    """Read a comparison back from a query string (the last ``base`` and ``candidate`` count)."""

    def listed(key: str) -> list[str]:
        value = params.get(key)
        return [] if value is None else [value] if isinstance(value, str) else [str(v) for v in value]

    base, candidate = listed("base"), listed("candidate")
    return ComparisonState(
        base[-1] if base else None, candidate[-1] if candidate else None, tuple(p for p in listed("pair") if "=" in p)
    )


def pair_options(base: Sequence[str], candidate: Sequence[str], same_run: bool = False) -> list[str]:
    """Every ``BASE_ID=CANDIDATE_ID`` pair two runs' contenders can make, the same ids first.

    Within one run (``same_run``) a contender is never paired with itself, and the pairs that differ only
    in their prompt (one model asked two ways) come first.
    """
    if same_run:
        pairs = [(b, c) for b in base for c in candidate if b != c]
        prompts_only = [p for p in pairs if _without_prompt(p[0]) == _without_prompt(p[1])]
        return [f"{b}={c}" for b, c in prompts_only + [p for p in pairs if p not in prompts_only]]
    same = [f"{b}={b}" for b in base if b in candidate]
    return same + [f"{b}={c}" for b in base for c in candidate if b != c]


def _without_prompt(contender_id: str) -> str:
    """A contender id without its ``prompt=…`` part: two ids alike but for it are one model asked two ways."""
    return " · ".join(part for part in contender_id.split(" · ") if not part.startswith("prompt="))


def change_table(pair: PairComparison) -> pd.DataFrame:
    """A pair's changes as the Compare page lists them: ``measure, base, candidate, difference [95%
    interval], p, change`` (text, as ``evalcore compare`` prints them)."""
    from evalcore.analysis.decisions.compare_text import CHANGE_HEADER, change_cells

    return pd.DataFrame([change_cells(c) for c in pair.changes], columns=["measure", *CHANGE_HEADER[1:]])


def flip_table(pair: PairComparison, limit: int | None = None) -> pd.DataFrame:
    """A pair's flipped cases, regressions first (the first ``limit``): ``dataset, case, change, base,
    candidate`` (scores in %), and ``flaky`` (whether the case is known to flip across runs) when any case of the
    pair is (:func:`evalcore.analysis.decisions.flaky.mark_flaky`)."""
    flips = pair.flips if limit is None else pair.flips[:limit]
    rows = [(f.dataset, f.case, f.kind, 100 * f.base_score, 100 * f.candidate_score) for f in flips]
    table = pd.DataFrame(rows, columns=["dataset", "case", "change", "base", "candidate"])
    if pair.flaky:
        table["flaky"] = [(f.dataset, f.case) in pair.flaky for f in flips]
    return table
