"""What the pages read, cached: the store, runs, their frames and summaries, leaderboards, running jobs.

Every cached loader takes the store's path, the run's ref and its version (status, result count, end
time), so a run that changes is read again. Nothing here computes a number: each loader calls one
``evalcore`` function.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import streamlit as st

from evalcore.analysis.people import corrected
from evalcore.analysis.ranking import outcomes
from evalcore.analysis.stats.racing import SETTING as RACE
from evalcore.analysis.tables import completeness, summaries, view
from evalcore.analysis.tables.runs import metric_set_of, run_stops, samples_of
from evalcore.core.errors import EvalcoreError
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Run
from evalcore.explorer import case_pages, sharing
from evalcore.explorer.jobs import RunJob
from evalcore.storage import baselines
from evalcore.storage.history import StoredRun
from evalcore.storage.location import ENV as STORE_ENV
from evalcore.storage.lookup import cases_whose_input
from evalcore.storage.ratings import load_ratings, ratings_version
from evalcore.storage.store import Store, default_db_path
from pages import _uploads
from pages._state import Keys

if TYPE_CHECKING:
    from evalcore.analysis.decisions.compare import Comparison
    from evalcore.storage.frames import ResultColumns

log = logging.getLogger("evalcore.app")

UPLOAD_PREFIX = _uploads.UPLOAD_PREFIX
#: Bundled run files, imported into an empty store (a fresh deployment).
RUNS_DIR_ENV = "EVALCORE_RUNS_DIR"
#: Seconds a page waits for another writer to save a run's summary (it is saved by the next visitor else).
SUMMARY_WAIT_S = 0.2
#: While a run goes on, its leaderboard so far is redrawn at most this often, and at most every four
#: times what drawing it took: ranking a big run's results is work the panel should not repeat each poll.
SO_FAR_EVERY_S = 2.0


@dataclasses.dataclass(frozen=True)
class Current:
    """The selected run: its ref, header (no cases or results) and label."""

    ref: str
    run: Run
    label: str
    version: tuple
    #: How many results the run has (from the run index: no result is read to know it).
    results: int

    @property
    def samples(self) -> int:
        """How many samples of each case the run took (:func:`evalcore.analysis.tables.runs.samples_of`)."""
        return samples_of(self.run)

    @functools.cached_property
    def metric_set(self) -> MetricSet:
        """The run's metric set (:func:`evalcore.analysis.tables.runs.metric_set_of`), built once per selected run."""
        return metric_set_of(self.run)

    @property
    def frame(self) -> Any:
        """The run's results frame, read on first use: a whole run's leaderboard does without (see :func:`summary`)."""
        return _results_frame(db_path(), self.ref, self.version)[0]


#: The secret that puts the store on a database server, read the way ``st.connection(STORE_CONNECTION)`` reads
#: its connection: ``[connections.evalcore]`` with ``url = "postgresql://USER:PASSWORD@HOST/DB"`` in secrets.toml.
STORE_CONNECTION = "evalcore"


def db_path() -> str:
    """The store: ``$EVALCORE_DB``, else the ``[connections.evalcore]`` secret's url, else the project's
    ``data/evalcore.db``, the store the commands use there (:func:`evalcore.storage.location.nearest_store`)."""
    return os.environ.get(STORE_ENV) or _secret_store_url() or str(default_db_path())


def _secret_store_url() -> str | None:
    try:
        connection = st.secrets.get("connections", {}).get(STORE_CONNECTION, {})
    except Exception:  # noqa: BLE001 - no secrets.toml at all raises; that just means "not set"
        return None
    url = connection.get("url")
    return str(url) if url else None


def _store(path: str) -> Store:
    """The store at ``path``: one of this server's uploads', or the app's."""
    return _uploads.open_store(path) or _app_store(path)


def _at(path: str, ref: str) -> tuple[str, str]:
    """Where a run is read: an upload of this session, from its own store by its run id; a stored run as is.

    Raises:
        EvalcoreError: an upload ref this session does not hold (its session ended).
    """
    if not ref.startswith(UPLOAD_PREFIX):
        return path, ref
    found = _uploads.located(ref)
    if found is None:
        raise EvalcoreError(f"the upload {ref} is gone with the session that uploaded it: upload the file again")
    return found


@st.cache_resource(show_spinner=False)
def _app_store(path: str) -> Store:
    store = sharing.open_app_store(path)
    imported = sharing.seed_store_from_bundled(store, os.environ.get(RUNS_DIR_ENV) or "data/runs")
    if imported:
        log.info("seeded %s with bundled runs %s", store.path, imported)  # a URL without its password
    return store


def store() -> Store:
    """The store at ``$EVALCORE_DB`` (seeded from the bundled run files when empty)."""
    return _store(db_path())


def upload_ref(data: bytes, name: str) -> str:
    """Store an upload in this session's own store on disk (:mod:`pages._uploads`) and list it in the picker;
    returns its ref.

    Raises:
        RunFileError: the upload is refused; nothing is kept.
    """
    ref = _uploads.session_uploads().add(data, name)
    mine = st.session_state.setdefault(Keys.UPLOADS, [])
    if ref not in mine:
        mine.append(ref)
    return ref


def keep_merged(run: Run) -> str:
    """Store a run merged from uploads as one more upload of this session; returns its ref."""
    ref = _uploads.session_uploads().add_run(run)
    mine = st.session_state.setdefault(Keys.UPLOADS, [])
    if ref not in mine:
        mine.append(ref)
    return ref


def upload_header(ref: str) -> Run | None:
    """An upload of this session without its results; None when the session no longer holds it."""
    return header(ref) if _uploads.located(ref) is not None else None


def upload_notes(ref: str) -> tuple[int, list[str]]:
    """An upload's count of results, and why it did not complete and what it lacks."""
    info = runs_index().get(ref, {})
    return info.get("results", 0), _run_notes(db_path(), ref, version(info))


def run_cases(ref: str) -> int:
    """How many cases a run of :func:`runs_index` names (counted in its store)."""
    from evalcore.storage.history import case_and_sample_counts

    path, run_id = _at(db_path(), ref)
    return case_and_sample_counts(_store(path), run_id)[0]


def where(ref: str) -> tuple[str, str]:
    """The store path and run id a run of :func:`runs_index` is read from (an upload: its own store)."""
    return _at(db_path(), ref)


def upload_run(ref: str) -> Run:
    """An upload of this session with every result (to save or merge it)."""
    path, run_id = _at(db_path(), ref)
    return _store(path).load_run(run_id)


@st.cache_resource(show_spinner=False, max_entries=16)
def _load(path: str, ref: str, version: tuple) -> Run:
    """The run without its cases and results (the leaderboard reads the frame or the summary)."""
    path, ref = _at(path, ref)
    return _store(path).load_run(ref, results=False)


@st.cache_resource(show_spinner=False, max_entries=4)
def _results_frame(path: str, ref: str, version: tuple) -> tuple[Any, int | None]:
    """The run's results frame, and the store's count of changes it reflects."""
    path, ref = _at(path, ref)
    return _store(path).load_results_frame_and_changes(ref)


@st.cache_resource(show_spinner=False, max_entries=16)
def _saved_summary(path: str, ref: str, version: tuple) -> summaries.Summary | None:
    """The store's saved summary of the run, when it has one that still holds."""
    path, ref = _at(path, ref)
    return summaries.read_summary(_store(path), ref)


@st.cache_resource(show_spinner=False, max_entries=16)
def _summary(path: str, ref: str, version: tuple) -> summaries.Summary:
    """The whole run's prepared leaderboard and filter values: the store's saved summary, else computed
    from the results (and saved, once the run is over, for the next server that opens it)."""
    path, ref = _at(path, ref)
    saved = _saved_summary(path, ref, version)
    if saved is not None:
        return saved
    run = _load(path, ref, version)
    if _uploads.open_store(path) is not None:  # an upload's frame is read for its summary, never kept for it
        frame, changes = _store(path).load_results_frame_and_changes(ref)
    else:
        frame, changes = _results_frame(path, ref, version)
    summary = summaries.summarize(frame, metric_set_of(run))
    if changes is not None and run.info.status != "running" and len(frame):
        summaries.save_summary(_store(path), ref, changes, summary, wait=SUMMARY_WAIT_S)
    return summary


def summary(now: Current) -> summaries.Summary:
    """The current run's :func:`_summary`."""
    return _summary(db_path(), now.ref, now.version)


def filter_options(now: Current) -> dict[str, Any]:
    """The values each filter offers for the current run: from its saved summary, else from its frame
    (computing a whole summary, bootstrap included, for a list of values would cost more than the frame)."""
    saved = _saved_summary(db_path(), now.ref, now.version)
    return saved.options if saved is not None else view.filter_options(now.frame)


@st.cache_resource(show_spinner="Reading the run's results…", max_entries=4)
def _load_with_results(path: str, ref: str, version: tuple, contender: str | None = None) -> Run:
    path, ref = _at(path, ref)
    return _store(path).load_run(ref, contender=contender)


def case_texts(now: Current) -> case_pages.CaseTexts:
    """Where the Cases page reads the current run's texts, a page or a case at a time (an upload: from this
    session's store of it)."""
    path, ref = _at(db_path(), now.ref)
    return case_pages.StoredTexts(_store(path), ref)


@st.cache_data(show_spinner="Searching the inputs…", max_entries=16)
def _cases_matching(path: str, ref: str, version: tuple, needle: str) -> list[tuple[str, str]]:
    path, ref = _at(path, ref)
    return cases_whose_input(_store(path), ref, case_pages.input_matches(needle))


def cases_matching(now: Current, needle: str) -> list[tuple[str, str]]:
    """(dataset, case id) of the current run's cases whose input holds ``needle`` (case-insensitive)."""
    return _cases_matching(db_path(), now.ref, now.version, needle)


def stored_run(ref: str) -> Run:
    """A stored run with every result (the Rate page's base run), read again when it changes."""
    return _load_with_results(db_path(), ref, version(runs_index()[ref]))


def run_with_results(now: Current, contenders: Sequence[str] | None = None) -> Run:
    """The current run with every result, or with those of ``contenders`` only (the Cases page reads them;
    the leaderboard does not)."""
    at = now.version
    if contenders is None:
        return _load_with_results(db_path(), now.ref, at)
    parts = [_load_with_results(db_path(), now.ref, at, c) for c in dict.fromkeys(contenders)]
    if len(parts) == 1:
        return parts[0]
    return dataclasses.replace(parts[0], results=[r for part in parts for r in part.results])


@st.cache_resource(show_spinner=False, max_entries=16)
def _prepared(path: str, ref: str, version: tuple, filters: tuple) -> view.PreparedView:
    """Aggregates and bootstrap resamples: they depend on the run and the filters, not on the weights."""
    path, ref = _at(path, ref)
    if not any(filters):
        return _summary(path, ref, version).prepared
    f = _filters_of(filters)
    return view.prepare_view(_results_frame(path, ref, version)[0], metric_set_of(_load(path, ref, version)), f)


@st.cache_resource(show_spinner=False, max_entries=16)
def _pass_rates(path: str, ref: str, version: tuple, filters: tuple) -> outcomes.PassRates | None:
    """The run's pass rates under the filters (only the cases that declare minimum scores are read)."""
    path, ref = _at(path, ref)
    return outcomes.pass_rates_of(_side(path, ref), _filters_of(filters))


def _filters_of(key: tuple) -> view.Filters:
    """The filters a :func:`filters_key` stands for."""
    return view.Filters(list(key[0]), list(key[1]), list(key[2]), {k: list(v) for k, v in key[3]})


@st.cache_data(show_spinner=False, max_entries=64)
def cached_view(
    path: str, ref: str, version: tuple, weights: tuple, filters: tuple, rated: tuple = ()
) -> view.LeaderboardView:
    """The leaderboard; ``rated`` (:func:`rated_key`) non-empty: ranked by the judge's score corrected by people."""
    path, ref = _at(path, ref)
    run = _load(path, ref, version)
    metric_set = metric_set_of(run)
    prepared = _prepared(path, ref, version, filters)
    if rated:
        prepared = corrected.with_corrected_view(prepared, _rank_basis(path, ref, version, rated), metric_set)
    rates = _pass_rates(path, ref, version, filters)
    return view.view_of(prepared, metric_set, dict(weights), run.contenders, run_stops(run), rates)


@st.cache_resource(show_spinner=False, max_entries=8)
def _rank_basis(path: str, ref: str, version: tuple, rated: tuple) -> corrected.RankBasis:
    path, ref = _at(path, ref)
    return corrected.rank_basis(_load_with_results(path, ref, version), load_ratings(_store(path), ref))


def rated_key(now: Current) -> tuple:
    """For a run whose suite ranks by the corrected score, what changes when its ratings do; else ``()``."""
    if not corrected.asks_corrected(now.run):
        return ()
    path, ref = _at(db_path(), now.ref)
    return ratings_version(_store(path), ref)


def rank_basis(now: Current) -> corrected.RankBasis | None:
    """What the leaderboard ranks the judged metric by, when the run's suite asked for the corrected score."""
    rated = rated_key(now)
    return _rank_basis(db_path(), now.ref, now.version, rated) if rated else None


def filters_key(f: view.Filters | None) -> tuple:
    """Filters as a hashable cache key for :func:`cached_view`."""
    f = f or view.Filters()
    return (
        tuple(f.datasets),
        tuple(f.variants),
        tuple(f.contenders),
        tuple(sorted((k, tuple(v)) for k, v in f.metadata.items())),
    )


def view_for(ref: str, chosen: dict[str, float], f: view.Filters | None = None) -> view.LeaderboardView:
    """The (cached) leaderboard of a run under these weights and filters."""
    info = runs_index().get(ref, {})
    return cached_view(db_path(), ref, version(info), tuple(sorted(chosen.items())), filters_key(f))


def header(ref: str) -> Run:
    """A run of :func:`runs_index` without its results."""
    return _load(db_path(), ref, version(runs_index().get(ref, {})))


@st.cache_data(show_spinner=False, max_entries=16)
def _run_notes(path: str, ref: str, version: tuple) -> list[str]:
    path, ref = _at(path, ref)
    run = _load(path, ref, version)
    return completeness.run_notes(run, completeness.stored_completeness(_store(path), run))


def run_notes(now: Current) -> list[str]:
    """Why the run did not complete and what results it lacks
    (:func:`evalcore.analysis.tables.completeness.run_notes`)."""
    return _run_notes(db_path(), now.ref, now.version)


# A resource, not data: the page only reads it, and a big comparison's flips cost more to copy out of a
# data cache on every rerun than the page takes to draw.
@st.cache_resource(show_spinner=False, max_entries=8)  # the page shows its own: a prefetch runs outside any page
def _comparison(
    path: str, base: str, base_version: tuple, candidate: str, candidate_version: tuple, pairs: tuple[str, ...]
) -> Comparison:
    from evalcore.analysis.decisions.compare import compare

    columns = _result_columns(path, base, base_version), _result_columns(path, candidate, candidate_version)
    side = _side(path, candidate)
    compared = compare(_side(path, base), side, list(pairs) or None, frames=columns)
    if isinstance(side, StoredRun):  # the store's history says which flips are on known-flaky cases
        from evalcore.analysis.decisions.flaky import mark_flaky

        compared = mark_flaky(compared, side, side.store)
    return compared


# The runs' results as plain columns (evalcore.storage.frames), not through the frames' cache: a leaderboard
# mostly reads a saved summary, so a frame is seldom there to reuse, and two big runs' columns cost about half
# of building their frames. Kept per run: another pair of the same runs (the two swapped, a third run against
# one of them) reads only what it has not read yet.
@st.cache_resource(show_spinner=False, max_entries=4)
def _result_columns(path: str, ref: str, version: tuple) -> ResultColumns:
    from evalcore.storage.history import columns_of

    path, ref = _at(path, ref)
    return columns_of(_side(path, ref))


def _side(path: str, ref: str) -> Run | StoredRun:
    path, ref = _at(path, ref)
    return StoredRun(_store(path), ref)


def comparison(base: str, candidate: str, pairs: Sequence[str] = ()) -> Comparison:
    """:func:`evalcore.analysis.decisions.compare.compare` of two runs of :func:`runs_index`, cached by their ids and
    versions and the pairs.

    Raises:
        CompareError: nothing to compare as asked.
    """
    index = runs_index()
    at = (version(index.get(base, {})), version(index.get(candidate, {})))
    return _comparison(db_path(), base, at[0], candidate, at[1], tuple(pairs))


def default_comparison(index: dict[str, dict]) -> tuple[str, str]:
    """The two runs of ``index`` (two at least) the Compare page opens on when none is asked for, ``(base,
    candidate)`` (:func:`evalcore.explorer.sharing.default_comparison`)."""
    pinned = {pin["suite"]: pin["run_id"] for pin in baselines.baselines(store())}
    refs = list(index)
    return sharing.default_comparison(list(index.values()), pinned) or (refs[-1], refs[0])


def prefetch_comparison(query: dict[str, list[str]]) -> None:
    """Compute, into :func:`comparison`'s cache, the comparison the Compare page at an address with this
    query will show, before a session asks (see ``pages/_prefetch.py``): stored runs only, as no session's
    uploads are known here. Anything that fails is left for the page to meet and show."""
    path = db_path()
    index = {info["id"]: info for info in _store(path).list_runs()}
    if len(index) < 2:
        return
    asked = sharing.decode_comparison(query)
    refs = list(index)
    base, candidate = (sharing.resolve_ref(ref, refs) for ref in (asked.base, asked.candidate))
    default = default_comparison(index)
    base = base if base in index else default[0]
    candidate = candidate if candidate in index else default[1]
    if base == candidate:
        return
    try:
        _comparison(path, base, version(index[base]), candidate, version(index[candidate]), tuple(asked.pairs))
    except EvalcoreError as exc:
        log.info("no comparison to prefetch for %s → %s: %s", base, candidate, exc)


def contender_results(ref: str, contender: str) -> Run:
    """A run of :func:`runs_index` with one contender's results."""
    return _load_with_results(db_path(), ref, version(runs_index().get(ref, {})), contender)


def pins() -> dict[str, dict]:
    """Every suite's pinned baseline (:func:`evalcore.storage.baselines.baselines`), by suite: read afresh
    each time (one small query), so a pin made in another tab shows."""
    return {pin["suite"]: pin for pin in baselines.baselines(store())}


def stored_as(ref: str) -> str:
    """How an uploaded run stands against the store: new, the same as a stored run, or a different run
    stored under its id (:func:`evalcore.explorer.sharing.stored_as`)."""
    run_id = _at(db_path(), ref)[1]
    info = next((i for i in store().list_runs() if i["id"] == run_id), None)
    return sharing.NEW if info is None else _stored_as(db_path(), ref, version(info))


@st.cache_resource(show_spinner=False, max_entries=16)
def _stored_as(path: str, ref: str, version: tuple | None) -> str:
    # only for a run id the store holds: the upload is read whole to be compared
    return sharing.stored_as(_store(path), upload_run(ref))


def forget_run_caches() -> None:
    """Drop every cached run, frame, summary and view: a run replaced in place may keep its version."""
    for cached in (_load, _results_frame, _saved_summary, _summary, _load_with_results, _cases_matching):
        cached.clear()
    for cached in (_prepared, _stored_as, cached_view, _comparison, _result_columns, _rank_basis, _pass_rates):
        cached.clear()


_uploads.ENDED.append(forget_run_caches)


@st.cache_resource(show_spinner=False)
def jobs() -> dict[str, RunJob]:
    """Runs working in this server process, by run id (they outlive any browser tab)."""
    return {}


def runs_index() -> dict[str, dict]:
    """Store runs by id, newest first, then this session's uploads."""
    index = {info["id"]: info for info in store().list_runs()}
    for ref in st.session_state.get(Keys.UPLOADS, []):
        found = _uploads.located(ref)
        held = _uploads.open_store(found[0]) if found is not None else None
        if held is not None:
            info = next(i for i in held.list_runs() if i["id"] == found[1])  # type: ignore[index]
            index[ref] = {**info, "id": ref, "status": "uploaded"}
    return index


def leaderboard_so_far(run_id: str, job: RunJob) -> tuple[int, view.LeaderboardView | None]:
    """How many results a run has stored and their leaderboard (no intervals), for its progress panel.

    The panel polls twice a second; while the run is alive, the last leaderboard drawn is shown again
    until it is old enough (see :data:`SO_FAR_EVERY_S`). A finished run's is always read afresh.
    """
    kept = st.session_state.get(Keys.SO_FAR)
    now = time.monotonic()
    if job.alive and kept and kept[0] == run_id and now - kept[1] < max(SO_FAR_EVERY_S, 4 * kept[2]):
        return kept[3], kept[4]
    frame = store().load_results_frame(run_id)
    # The race's stops are in the stored run's settings, written as the race makes them.
    stops = run_stops(store().load_run(run_id, results=False)) if RACE in job.run.info.settings else {}
    board = (
        view.leaderboard_view(
            frame, metric_set_of(job.run), job.run.info.weights, ci=False, contenders=job.run.contenders, stops=stops
        )
        if len(frame)
        else None
    )
    st.session_state[Keys.SO_FAR] = (run_id, now, time.monotonic() - now, len(frame), board)
    return len(frame), board


def version(info: dict) -> tuple:
    """What changes when a run does: the part of its cache keys that makes a changed run read again."""
    return (info.get("status"), info.get("results"), info.get("finished_at"))


def current() -> Current | None:
    """The selected run; the newest run when none is picked; None when there is none."""
    index = runs_index()
    ref = _selected(index)
    if ref is None:
        return None
    at = version(index[ref])
    try:
        run = _load(db_path(), ref, at)
    except (EvalcoreError, KeyError) as exc:
        log.warning("run %s cannot be shown: %s", ref, exc)
        return None
    return Current(ref, run, sharing.run_label(index[ref]), at, int(index[ref].get("results") or 0))


def current_suite() -> str | None:
    """The suite name of the selected run (the newest when none is picked), from the index: no run is read."""
    index = runs_index()
    ref = _selected(index)
    return None if ref is None else index[ref].get("suite")


def _selected(index: dict[str, dict]) -> str | None:
    """The id of the selected run in ``index``; the newest when none (or one no longer stored) is picked."""
    ref = st.session_state.get(Keys.RUN)
    return ref if ref in index else sharing.default_run(list(index.values()))


def run_weights(run: Run) -> dict[str, float]:
    """The run's own weights, when the explorer can use them (else none)."""
    return sharing.usable_weights(run.info.weights, metric_set_of(run)) or {}


def own_weights(run: Run) -> dict[str, float]:
    """The run's own weights as its sliders first show them (whole positions): what its first view ranks by."""
    return view.slider_weights(view.slider_values(run_weights(run)))


def warm_up() -> view.LeaderboardView | None:
    """Compute what the first view of the leaderboard needs, into the caches the pages read: the store
    (opened, and seeded from the bundled runs when empty), the default run's summary, and its leaderboard
    under the run's own weights, which it returns (None: no run). The server does it once as it starts
    (see ``pages/_startup.py``)."""
    path = db_path()
    index = {info["id"]: info for info in _store(path).list_runs()}
    ref = sharing.default_run(list(index.values()))
    if ref is None:
        return None
    at = version(index[ref])
    run = _load(path, ref, at)
    _summary(path, ref, at)
    return cached_view(path, ref, at, tuple(sorted(own_weights(run).items())), filters_key(None))
