"""The explorer's shared frame: session-state keys, cached loaders, the sidebar, table and error display.

Every session-state key the app uses is a constant of :class:`Keys`, owned here. Pages import this
module, call one or two ``evalcore`` functions and render; nothing here computes a number.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import streamlit as st

from evalcore.analysis import summaries
from evalcore.analysis import view as explorer
from evalcore.core.errors import EvalcoreError
from evalcore.core.records import Case, Run
from evalcore.explorer import sharing
from evalcore.explorer.jobs import RunJob, build_plan, launch_run
from evalcore.storage.store import Store, default_db_path

log = logging.getLogger("evalcore.app")

UPLOAD_PREFIX = "upload:"
DEMO_SUITE = Path("data/suites/intake")
#: Bundled run files, imported into an empty store (a fresh deployment).
RUNS_DIR_ENV = "EVALCORE_RUNS_DIR"
MAX_UPLOADS = 8
LEADERBOARD, CASES, RUN, RUNS, UPLOAD = ("pages/leaderboard.py", "pages/cases.py", "pages/run.py",
                                         "pages/runs.py", "pages/upload.py")


class Keys:
    """Every session-state key, in one place."""

    RUN = "run"                      # the run picker: a store run id or "upload:<digest>"
    PENDING_RUN = "pending_run"      # a run to select on the next script run (set by pages)
    UPLOADS = "uploads"              # refs of runs uploaded in this session
    WEIGHTS_FOR = "weights_for"      # the run the weight sliders were last set for
    WEIGHT = "w_"                    # + weight name: one slider each
    WEIGHT_POSITIONS = "weight_positions"  # the sliders' last positions, kept apart from the widgets
    FILTERS_FOR = "filters_for"      # the run the leaderboard filters belong to
    FILTERS = "filters"              # the leaderboard's filters: dataset / variant / contender / meta_<key> → values
    FILTER = "f_"                    # + one of those names: its multiselect, drawn while the Filters are open
    FILTERS_OPEN = "filters_open"    # the leaderboard's Filters expander is open (its widgets are drawn)
    QUERY_READ = "query_read"        # the address bar was read into the session
    URL_WEIGHTS = "url_weights"      # weights from the address bar, for the sliders to take once
    CASE_CONTENDER = "case_contender"
    CASE_COMPARE = "case_compare"
    CASE_TABLE = "case_table"
    LEADERBOARD_TABLE = "leaderboard_table"
    DATASET_TAB = "dataset_tab"
    CHART_TAB = "chart_tab"
    CHARTS_NOW = "charts_now"        # this session's charts are drawn with its tables (see charts_now)
    TABLES_SHOWN = "tables_shown"    # the component that reports a table on screen
    JOB = "job"                      # the run launched or resumed from this session
    SO_FAR = "so_far"                # the leaderboard so far of that run: (run id, when, took, results, view)
    CONFIRM_DELETE = "confirm_delete"


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
    def frame(self) -> Any:
        """The run's results frame, read on first use: a whole run's leaderboard does without (see :func:`summary`)."""
        return _frame(db_path(), self.ref, self.version)[0]


def use_app_navigation() -> None:
    """Make sure this script run goes through app.py's ``st.navigation``.

    Streamlit takes a folder named ``pages/`` next to the entry point for its legacy multipage mode
    until the first ``st.navigation`` call: the first visitor of a fresh server who opens a deep link
    (``/cases?run=…``) would get that page alone, with no shared sidebar, and the whole server would
    stay in legacy mode. Every page calls this first; it turns the legacy mode off and reruns,
    which runs app.py, which routes to the same page by its URL path.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


# --- loaders --------------------------------------------------------------------------------------


def db_path() -> str:
    return str(default_db_path())


@st.cache_resource(show_spinner=False)
def _store(path: str) -> Store:
    store = Store(path)
    imported = sharing.seed_store_from_bundled(store, os.environ.get(RUNS_DIR_ENV) or "data/runs")
    if imported:
        log.info("seeded %s with bundled runs %s", path, imported)
    return store


def store() -> Store:
    """The store at ``$EVALCORE_DB`` (seeded from the bundled run files when empty)."""
    return _store(db_path())


@st.cache_resource(show_spinner=False)
def _uploads() -> OrderedDict[str, Run]:
    return OrderedDict()


def remember_upload(data: bytes, run: Run) -> str:
    """Keep an uploaded run for this session's picker; returns its ref."""
    ref = UPLOAD_PREFIX + hashlib.sha256(data).hexdigest()[:16]
    uploads = _uploads()
    uploads[ref] = run
    while len(uploads) > MAX_UPLOADS:
        uploads.popitem(last=False)
    mine = st.session_state.setdefault(Keys.UPLOADS, [])
    if ref not in mine:
        mine.append(ref)
    return ref


@st.cache_resource(show_spinner=False, max_entries=16)
def _load(path: str, ref: str, version: tuple) -> Run:
    """The run; a stored one without its cases and results (the leaderboard reads the frame or the summary)."""
    if ref.startswith(UPLOAD_PREFIX):
        return _uploads()[ref]
    return _store(path).load_run(ref, results=False)


@st.cache_resource(show_spinner=False, max_entries=4)
def _frame(path: str, ref: str, version: tuple) -> tuple[Any, int | None]:
    """The run's results frame, and the store's count of changes it reflects (None for an upload)."""
    if ref.startswith(UPLOAD_PREFIX):
        from evalcore.storage.frames import results_frame

        return results_frame(_uploads()[ref]), None
    return _store(path).load_results_frame_and_changes(ref)


#: Seconds a page waits for another writer to save a run's summary (it is saved by the next visitor else).
SUMMARY_WAIT_S = 0.2


@st.cache_resource(show_spinner=False, max_entries=16)
def _saved_summary(path: str, ref: str, version: tuple) -> summaries.Summary | None:
    """The store's saved summary of the run, when it has one that still holds."""
    return None if ref.startswith(UPLOAD_PREFIX) else summaries.read_summary(_store(path), ref)


@st.cache_resource(show_spinner=False, max_entries=16)
def _summary(path: str, ref: str, version: tuple) -> summaries.Summary:
    """The whole run's prepared leaderboard and filter values: the store's saved summary, else computed
    from the results (and saved, once the run is over, for the next server that opens it)."""
    saved = _saved_summary(path, ref, version)
    if saved is not None:
        return saved
    run = _load(path, ref, version)
    frame, changes = _frame(path, ref, version)
    summary = summaries.summarize(frame, run.metrics)
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
    return saved.options if saved is not None else explorer.filter_options(now.frame)


#: Past this many results the Cases page reads only the chosen contender's results, and lists "All
#: contenders" from the run's frame: every result of a run of a million, as records, took 42 s to read.
CASES_ONE_CONTENDER_ABOVE = 100_000
#: Rows the Cases page lists at most for "All contenders" of such a run (the first in the run's order).
CASES_LIST_AT_MOST = 10_000


@st.cache_resource(show_spinner="Reading the run's results…", max_entries=4)
def _load_with_results(path: str, ref: str, version: tuple, contender: str | None = None) -> Run:
    return _store(path).load_run(ref, contender=contender)


@st.cache_resource(show_spinner=False, max_entries=4)
def _cases_and_errors(path: str, ref: str, version: tuple) -> tuple[list[Case], dict]:
    s = _store(path)
    return s.load_cases(ref), s.error_messages(ref)


def cases_and_errors(now: Current) -> tuple[list[Case], dict]:
    """The current run's cases, and the message of each result with an error (see :meth:`Store.error_messages`)."""
    if now.ref.startswith(UPLOAD_PREFIX):
        errors = {(r.contender, r.dataset, r.case, r.sample): r.error.message for r in now.run.results if r.error}
        return now.run.cases, errors
    return _cases_and_errors(db_path(), now.ref, now.version)


def run_with_results(now: Current, contenders: Sequence[str] | None = None) -> Run:
    """The current run with every result, or with those of ``contenders`` only (the Cases page reads them;
    the leaderboard does not)."""
    if now.ref.startswith(UPLOAD_PREFIX):
        return now.run
    at = now.version
    if contenders is None:
        return _load_with_results(db_path(), now.ref, at)
    parts = [_load_with_results(db_path(), now.ref, at, c) for c in dict.fromkeys(contenders)]
    if len(parts) == 1:
        return parts[0]
    return dataclasses.replace(parts[0], results=[r for part in parts for r in part.results])


@st.cache_resource(show_spinner=False, max_entries=16)
def _prepared(path: str, ref: str, version: tuple, filters: tuple) -> explorer.PreparedView:
    """Aggregates and bootstrap resamples: they depend on the run and the filters, not on the weights."""
    if not any(filters):
        return _summary(path, ref, version).prepared
    f = explorer.Filters(list(filters[0]), list(filters[1]), list(filters[2]), {k: list(v) for k, v in filters[3]})
    return explorer.prepare_view(_frame(path, ref, version)[0], _load(path, ref, version).metrics, f)


@st.cache_data(show_spinner=False, max_entries=64)
def cached_view(path: str, ref: str, version: tuple, weights: tuple, filters: tuple) -> explorer.LeaderboardView:
    run = _load(path, ref, version)
    return explorer.view_of(_prepared(path, ref, version, filters), run.metrics, dict(weights), run.contenders)


@st.cache_resource(show_spinner=False)
def jobs() -> dict[str, RunJob]:
    """Runs working in this server process, by run id (they outlive any browser tab)."""
    return {}


def runs_index() -> dict[str, dict]:
    """Store runs by id, newest first, then this session's uploads."""
    index = {info["id"]: info for info in store().list_runs()}
    for ref in st.session_state.get(Keys.UPLOADS, []):
        run = _uploads().get(ref)
        if run is not None:
            index[ref] = {"id": ref, "suite": run.info.suite, "created_at": run.info.created_at,
                          "status": "uploaded", "results": len(run.results)}
    return index


#: While a run goes on, its leaderboard so far is redrawn at most this often, and at most every four
#: times what drawing it took: at a million results, reading and ranking them takes about a second.
SO_FAR_EVERY_S = 2.0


def leaderboard_so_far(run_id: str, job: RunJob) -> tuple[int, explorer.LeaderboardView | None]:
    """How many results a run has stored and their leaderboard (no intervals), for its progress panel.

    The panel polls twice a second; while the run is alive, the last leaderboard drawn is shown again
    until it is old enough (see :data:`SO_FAR_EVERY_S`). A finished run's is always read afresh.
    """
    kept = st.session_state.get(Keys.SO_FAR)
    now = time.monotonic()
    if job.alive and kept and kept[0] == run_id and now - kept[1] < max(SO_FAR_EVERY_S, 4 * kept[2]):
        return kept[3], kept[4]
    frame = store().load_results_frame(run_id)
    view = explorer.leaderboard_view(frame, job.run.metrics, job.run.info.weights, ci=False,
                                     contenders=job.run.contenders) if len(frame) else None
    st.session_state[Keys.SO_FAR] = (run_id, now, time.monotonic() - now, len(frame), view)
    return len(frame), view


def version(info: dict) -> tuple:
    return (info.get("status"), info.get("results"), info.get("finished_at"))


def current() -> Current | None:
    """The selected run; the newest run when none is picked; None when there is none."""
    index = runs_index()
    if not index:
        return None
    ref = st.session_state.get(Keys.RUN)
    if ref not in index:
        ref = sharing.default_run(list(index.values()))
    at = version(index[ref])
    try:
        run = _load(db_path(), ref, at)
    except (EvalcoreError, KeyError) as exc:
        log.warning("run %s cannot be shown: %s", ref, exc)
        return None
    return Current(ref, run, sharing.run_label(index[ref]), at, int(index[ref].get("results") or 0))


# --- the sidebar ----------------------------------------------------------------------------------


def read_address_bar() -> None:
    """Once per session: the run, filters and weights of a shared URL become the session's state."""
    if st.session_state.get(Keys.QUERY_READ):
        return
    st.session_state[Keys.QUERY_READ] = True
    state = sharing.decode_query({k: st.query_params.get_all(k) for k in st.query_params})
    if state.run:
        st.session_state[Keys.RUN] = state.run
    st.session_state[Keys.FILTERS_FOR] = state.run
    chosen = {name: list(getattr(state.filters, attr))
              for attr, name in (("datasets", "dataset"), ("variants", "variant"), ("contenders", "contender"))}
    chosen.update({f"meta_{key}": list(values) for key, values in state.filters.metadata.items()})
    st.session_state[Keys.FILTERS] = {name: values for name, values in chosen.items() if values}
    if state.weights is not None:
        st.session_state[Keys.URL_WEIGHTS] = state.weights


def sidebar() -> None:
    """The run picker and the weight sliders, shown on every page."""
    index = runs_index()
    if Keys.PENDING_RUN in st.session_state:
        st.session_state[Keys.RUN] = st.session_state.pop(Keys.PENDING_RUN)
    if not index:
        st.sidebar.caption("No runs yet.")
        return
    if st.session_state.get(Keys.RUN) not in index:
        st.session_state[Keys.RUN] = sharing.default_run(list(index.values()))
    st.sidebar.selectbox("Run", list(index), key=Keys.RUN, format_func=lambda ref: sharing.run_label(index[ref]),
                         help="A run from the history, or a file you uploaded")
    now = current()
    if now is not None:
        weight_sliders(now)


def run_weights(run: Run) -> dict[str, float]:
    """The run's own weights, when the explorer can use them (else none)."""
    return sharing.usable_weights(run.info.weights, run.metrics) or {}


def own_weights(run: Run) -> dict[str, float]:
    """The run's own weights as its sliders first show them (whole positions): what its first view ranks by."""
    return explorer.slider_weights(explorer.slider_values(run_weights(run)))


def weight_sliders(now: Current) -> None:
    names = explorer.weight_names(now.run.metrics)
    if Keys.URL_WEIGHTS in st.session_state:
        set_weights(sharing.usable_weights(st.session_state.pop(Keys.URL_WEIGHTS), now.run.metrics) or {}, names)
        st.session_state[Keys.WEIGHTS_FOR] = now.ref
    elif st.session_state.get(Keys.WEIGHTS_FOR) != now.ref:
        set_weights(run_weights(now.run), names)
        st.session_state[Keys.WEIGHTS_FOR] = now.ref
    elif any(Keys.WEIGHT + n not in st.session_state for n in names):
        # st.switch_page drops the sliders' state: the sliders would come back at -100 (their minimum) for
        # one script run, while the browser still showed the positions the user had set.
        kept = st.session_state.get(Keys.WEIGHT_POSITIONS, {})
        for name in names:
            st.session_state[Keys.WEIGHT + name] = kept.get(name, 0)
    st.sidebar.subheader("Weights")
    positions, captions = {}, {}
    for name in names:
        positions[name] = st.sidebar.slider(name, -explorer.SLIDER_MAX, explorer.SLIDER_MAX, step=1,
                                            key=Keys.WEIGHT + name, format="%+d",
                                            help=explorer.weight_hint(name, now.run.metrics))
        captions[name] = st.sidebar.empty()
    st.session_state[Keys.WEIGHT_POSITIONS] = positions
    shares = explorer.live_shares(explorer.slider_weights(positions))
    for name, caption in captions.items():
        share = shares.get(name, 0.0)
        direction = "lower is better" if positions[name] < 0 else "higher is better"
        caption.caption(f"{100 * share:.0f}% of the weighted score, {direction}" if share else "not weighted")
    st.sidebar.button("Reset to the run's weights", on_click=set_weights, args=(run_weights(now.run), names),
                      use_container_width=True)


def set_weights(values: dict[str, float], names: list[str]) -> None:
    positions = explorer.slider_values(values)
    for name in names:
        st.session_state[Keys.WEIGHT + name] = positions.get(name, 0)


def weights(now: Current) -> dict[str, float]:
    """The sliders' weights (non-zero ones) when the sliders are set for this run, else the run's own."""
    if st.session_state.get(Keys.WEIGHTS_FOR) != now.ref:
        return own_weights(now.run)
    names = explorer.weight_names(now.run.metrics)  # a stable order keeps the address stable
    return explorer.slider_weights({n: st.session_state.get(Keys.WEIGHT + n, 0) for n in names})


def filters() -> explorer.Filters:
    """The leaderboard's filters, kept apart from their widgets: Streamlit drops a widget's state on a page
    that does not draw it (another page, or the Filters closed), and the filters outlive both."""
    chosen = st.session_state.get(Keys.FILTERS, {})
    metadata = {name.removeprefix("meta_"): list(v) for name, v in chosen.items() if name.startswith("meta_") and v}
    return explorer.Filters(list(chosen.get("dataset", [])), list(chosen.get("variant", [])),
                            list(chosen.get("contender", [])), metadata)


def keep_filter(name: str) -> None:
    """A filter's multiselect changed: keep its values with the others."""
    chosen = {**st.session_state.get(Keys.FILTERS, {}), name: list(st.session_state[Keys.FILTER + name])}
    st.session_state[Keys.FILTERS] = {n: values for n, values in chosen.items() if values}


def write_address_bar() -> None:
    """Put the run, filters and weights in the address bar, so copying it shares this view."""
    now = current()
    if now is None or now.ref.startswith(UPLOAD_PREFIX):
        return
    chosen = weights(now)
    changed = chosen != own_weights(now.run)
    state = explorer.ViewState(now.ref, filters(), chosen if changed else None)
    wanted = sharing.encode_query(state)
    if {k: st.query_params.get_all(k) for k in st.query_params} != {
            k: v if isinstance(v, list) else [v] for k, v in wanted.items()}:
        st.query_params.from_dict(wanted)


def view_for(ref: str, chosen: dict[str, float], f: explorer.Filters | None = None) -> explorer.LeaderboardView:
    """The (cached) leaderboard of a run under these weights and filters."""
    info = runs_index().get(ref, {})
    return cached_view(db_path(), ref, version(info), tuple(sorted(chosen.items())), _filters_key(f))


def _filters_key(f: explorer.Filters | None) -> tuple:
    f = f or explorer.Filters()
    return (tuple(f.datasets), tuple(f.variants), tuple(f.contenders),
            tuple(sorted((k, tuple(v)) for k, v in f.metadata.items())))


def leaderboard_of(now: Current) -> explorer.LeaderboardView:
    """The selected run's leaderboard under the sliders' weights and the page's filters."""
    return cached_view(db_path(), now.ref, now.version, tuple(sorted(weights(now).items())), _filters_key(filters()))


def warm_up() -> explorer.LeaderboardView | None:
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
    return cached_view(path, ref, at, tuple(sorted(own_weights(run).items())), _filters_key(None))


# --- display helpers ------------------------------------------------------------------------------


def viewer() -> bool:
    """Viewer mode: ``EVALCORE_VIEWER`` in the environment or in ``st.secrets``."""
    return sharing.viewer_mode(os.environ, _viewer_secret())


def _viewer_secret() -> Any:
    try:
        return st.secrets.get(sharing.VIEWER_ENV)
    except Exception:  # noqa: BLE001 - no secrets.toml at all raises; that just means "not set"
        return None


def refuse_in_viewer_mode(action: str) -> None:
    """Every action that changes the store checks this, even where its button is hidden.

    Raises:
        EvalcoreError: viewer mode is on.
    """
    sharing.refuse_in_viewer_mode(action, os.environ, _viewer_secret())


def save_run(run: Run) -> None:
    """Store an uploaded run in the history (refused in viewer mode)."""
    refuse_in_viewer_mode("Saving a run")
    store().import_run(run)


def delete_run(run_id: str) -> None:
    """Delete a stored run (refused in viewer mode)."""
    refuse_in_viewer_mode("Deleting a run")
    store().delete_run(run_id)


def column_config(columns: list[explorer.Column]) -> dict[str, Any]:
    cc = st.column_config
    kinds = {
        explorer.PERCENT: lambda c: cc.ProgressColumn(c.name, help=c.help, min_value=0, max_value=100,
                                                      format="%.1f%%"),
        explorer.POINTS: lambda c: cc.NumberColumn(c.name, help=c.help, format="%.1f"),
        explorer.MONEY: lambda c: cc.NumberColumn(c.name, help=c.help, format=c.format or "$%.4f"),
        explorer.SECONDS: lambda c: cc.NumberColumn(c.name, help=c.help, format="%.2f s"),
        explorer.COUNT: lambda c: cc.NumberColumn(c.name, help=c.help, format="%.0f"),
        explorer.TEXT: lambda c: cc.TextColumn(c.name, help=c.help),
    }
    config = {c.name: kinds[c.kind](c) for c in columns}
    config["P(best)"] = cc.NumberColumn("P(best)", help="Share of bootstrap resamples in which the row ranks first",
                                        format="%.0f%%")
    config["rank"] = cc.NumberColumn("rank", pinned=True, format="%d", width=50)
    config["contender"] = cc.TextColumn("contender", pinned=True, help="Model and the settings it varied")
    return config


def show_table(table: Any, columns: list[explorer.Column], key: str | None = None) -> Any:
    """A leaderboard table, sortable, with progress bars for scores; clicking a row selects it."""
    height = min(38 + 35 * len(table), 600)
    if key is None:
        return st.dataframe(table, column_config=column_config(columns), hide_index=True, height=height)
    return st.dataframe(table, column_config=column_config(columns), hide_index=True, height=height,
                        on_select="rerun", selection_mode="single-row", key=key)


#: Reports once, as a trigger, that a table of the page is on screen: checked at every frame, and after 3 s
#: without one it reports anyway, so a page's charts never wait for a table that does not come.
_TABLES_SHOWN_JS = """
export default function ({ setTriggerValue }) {
  let done = false;
  const start = performance.now();
  const report = () => { if (!done) { done = true; setTriggerValue("shown", true); } };
  const check = () => {
    if (done) return;
    const table = document.querySelector('[data-testid="stDataFrame"]');
    if ((table !== null && table.getBoundingClientRect().height > 0) || performance.now() - start > 3000) {
      requestAnimationFrame(() => requestAnimationFrame(report));  // after the frame that paints it
    } else {
      requestAnimationFrame(check);
    }
  };
  requestAnimationFrame(check);
  return () => { done = true; };
}
"""
_tables_shown = st.components.v2.component("evalcore.tables_shown", js=_TABLES_SHOWN_JS)


def charts_now() -> bool:
    """Whether this script run draws its charts: every run but a session's first that asks.

    Plotly's script is 4.7 MB: in a fresh browser tab, a table sent with a chart came on screen in the
    same frame as the chart, after the browser had read that script, about a second later than without
    the chart (bench/RESULTS.md, stop 12). So the first run that would draw charts sends its tables, a placeholder
    and a few lines of JavaScript that report, once a table is on screen, as a widget trigger: the next
    script run draws the charts, whether that report or a click started it. A trigger carries every
    widget's state from the browser, like a click, so a slider moved meanwhile is kept.
    """
    if st.session_state.get(Keys.CHARTS_NOW):
        return True
    st.session_state[Keys.CHARTS_NOW] = True
    _tables_shown(key=Keys.TABLES_SHOWN, on_shown_change=_rerun_only)
    return False


def _rerun_only() -> None:
    """A trigger's callback: the rerun it starts is all it asks for."""


def plain(text: object) -> str:
    """Untrusted text made safe for a Markdown label (tabs, captions, metrics)."""
    return explorer.escape_markdown(str(text))


def fail(message: object) -> None:
    """An error in plain words."""
    st.error(plain(message), icon=":material/error:")


def open_cases(contender: str) -> None:
    st.session_state[Keys.CASE_CONTENDER] = contender
    st.switch_page(CASES)


def open_run(ref: str, page: str = LEADERBOARD) -> None:
    st.session_state[Keys.PENDING_RUN] = ref
    st.switch_page(page)


def launch_demo() -> None:
    """Start the demo suite with its fake lineup, and watch it on the Run page."""
    from evalcore.suite.loader import load_suite

    refuse_in_viewer_mode("Launching a run")
    job = launch_run(build_plan(load_suite(DEMO_SUITE)), db_path())
    jobs()[job.run_id] = job
    st.session_state[Keys.JOB] = job.run_id
    st.switch_page(RUN)


def empty_store() -> None:
    """What a page shows when there is no run yet."""
    st.info("No runs yet. Run the demo suite (fake models, offline, about half a minute), or upload a run file.")
    if not viewer() and st.button("Run the demo suite", type="primary", icon=":material/play_arrow:"):
        launch_demo()
    st.page_link(UPLOAD, label="Upload a run file", icon=":material/upload:")
