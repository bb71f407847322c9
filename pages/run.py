"""Run: pick a suite, datasets and contenders, read the plan, launch it and watch it work in the background."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from evalcore.analysis.tables import view
from evalcore.analysis.tables.text import format_cost
from evalcore.core.errors import EvalcoreError
from evalcore.explorer import jobs, suite_roots
from pages import _actions, _frame, _loaders, _widgets
from pages._state import Keys
from pages._widgets import plain

OTHER = "another folder…"

_frame.use_app_frame(__file__)
st.title("Run")
_access = _actions.access()
if _access.policy.viewer:
    st.info("Launching runs is turned off in this deployment (viewer mode).", icon=":material/lock:")
    st.stop()
if (_why_not := _access.why_not()) is not None:
    st.info(plain(f"Launching runs is not open to you here: {_why_not}."), icon=":material/lock:")
    st.stop()


@st.cache_resource(show_spinner="Reading the suite…", ttl=30)
def load_suite(path: str):  # noqa: ANN201
    from evalcore.suite.loader import load_suite as load

    return load(path)


def progress_panel(run_id: str, polling: bool) -> None:
    job = _loaders.jobs().get(run_id)
    if job is None:
        return
    title, cancel = st.columns([4, 1], vertical_alignment="bottom")
    title.subheader("Progress" if job.alive else f"Run {job.status}")
    if job.alive:
        cancel.button(
            "Cancel",
            on_click=job.cancel,
            icon=":material/stop:",
            key=Keys.CANCEL + run_id,
            help="Stop after the calls in flight; finished results stay stored and the run can be resumed",
        )
    if race := jobs.race_text(job.progress):
        st.caption(plain(race.capitalize()))
    for r in job.rows().itertuples():
        errors = view.count(int(r.errors), "error")
        waiting = f" · {r.waiting}" if r.waiting else ""  # a rate limit of the suite holds calls back
        stopped = f" · {r.stopped}" if r.stopped else ""  # the race no longer calls it
        st.progress(float(r.share), text=plain(f"{r.contender}: {r.done}/{r.total} · {errors}{waiting}{stopped}"))
    if spend := jobs.spend_text(job.progress):
        st.caption(plain(spend))
    count, board = _loaders.leaderboard_so_far(run_id, job)
    if board is not None:
        st.caption(f"Leaderboard so far ({view.count(count, 'result')})" if job.alive else "Leaderboard")
        _widgets.show_table(board.overall, board.columns)
    if job.alive:
        return
    if polling:
        st.rerun(scope="app")  # stop polling: the panel is drawn once more, without run_every
    if job.error:
        _widgets.fail(job.error)
    elif job.status == "completed":
        st.success("The run is complete.", icon=":material/check_circle:")
    else:
        why = f" ({job.message})" if job.message else ""
        st.warning(plain(f"The run stopped ({job.status}){why}: finished results are stored; resume it from Runs."))
    if st.button("Open the leaderboard", type="primary", icon=":material/leaderboard:"):
        _frame.open_run(run_id)


active = st.session_state.get(Keys.JOB)
if active in _loaders.jobs():
    alive = _loaders.jobs()[active].alive
    st.fragment(progress_panel, run_every="500ms" if alive else None)(active, alive)
    st.divider()

roots = _actions.suite_roots()
where = ", ".join(str(root) for root in roots)
suites = {name: str(path) for name, path in suite_roots.suites_under(roots).items()}
# The run this session launched or resumed, when there is one, else the run the sidebar shows.
job = _loaders.jobs().get(active) if active else None
looked_at = job.run.info.suite if job is not None else _loaders.current_suite()
recorded = job.run.info.settings.get("suite_path") if job is not None else None
choice = st.selectbox(
    "Suite",
    [*suites, OTHER],
    index=suite_roots.suite_of_run({k: Path(v) for k, v in suites.items()}, looked_at, recorded),
    help=plain(f"The suites under this app's suite folders: {where}"),
)
path = suites.get(choice) or st.text_input("Suite folder", placeholder="path/to/suite", help=plain(f"Under {where}"))
if not path:
    st.stop()
try:
    # A typed folder is read only under a root: running a suite imports its own scorer and adapter modules.
    suite = load_suite(path if choice in suites else str(suite_roots.confine(path, roots)))
except EvalcoreError as exc:
    _widgets.fail(exc)
    st.stop()

lineup = [c.id for c in jobs.build_plan(suite).contenders]
left, right = st.columns(2)
datasets = left.multiselect("Datasets", list(suite.datasets), placeholder="all")
contenders = right.multiselect("Contenders", lineup, placeholder="the whole lineup")
a, b, c, d = st.columns(4)
samples = a.number_input("Samples per case", 1, 20, suite.config.run.samples)
parallelism = b.number_input("Contenders at once", 1, 32, suite.config.run.parallelism)
limit = c.number_input("Cases per dataset (0: all)", 0, 10_000, 0)
cap = d.number_input(
    "Budget cap (USD, 0: none)",
    0.0,
    1_000_000.0,
    float(suite.config.run.max_cost_usd or 0.0),
    step=0.5,
    format="%.4f",
    help="No call starts that would take the run's cost past this; the rest stay unrun, to resume with a higher cap",
)

asked = jobs.race_defaults(suite)
race = jobs.Race(on=False)
if st.toggle(
    "Adaptive: stop contenders that cannot win",
    value=bool(asked.on),
    help="Call the cases in a random order, in rounds, and stop calling a contender once it cannot be the best "
    "with the chosen confidence (docs/adaptive.md). Stopped contenders keep what they answered.",
):
    r1, r2 = st.columns(2)
    confidence = r1.number_input(
        "Confidence",
        0.5,
        0.999,
        float(asked.confidence or 0.95),
        step=0.01,
        format="%.3f",
        help="The chance that the best contender is never stopped, however often the race looks",
    )
    margin = r2.number_input(
        "Margin (points, 0: none)",
        0.0,
        100.0,
        float(asked.margin or 0.0),
        step=0.5,
        help="End the race when the leaders are surely within this many points: tied for practical purposes",
    )
    race = jobs.Race(True, float(confidence), float(margin))

plan = jobs.build_plan(
    suite, datasets, contenders, int(samples), int(parallelism), int(limit) or None, float(cap), race=race
)
summary = jobs.plan_summary(plan, _loaders.db_path())
st.subheader("Plan")
m1, m2, m3 = st.columns(3)
m1.metric(
    "Results",
    summary["results"],
    border=True,
    help="Contenders × cases × samples. Each is one model call (before retries) for a prompt, or one call per step "
    "for an agent (its model calls are estimated below); a judge's calls come on top.",
)
m2.metric(
    "Estimated cost",
    "unknown"
    if summary["cost"] is None
    else ("≥ " if summary["cost_floor"] else "") + plain(format_cost(summary["cost"])),
    border=True,
    help="From the suite's prices, litellm's price map or the fake models' own; unknown when a model has none. "
    "Output tokens come from past runs of the same contender in the store, else from the suite's schema.",
)
m3.metric("Refused", len(summary["refused"]), border=True)
if summary.get("calls_text"):
    st.caption(plain(f"Model calls: {summary['calls_text']}"))
if summary.get("cost_text"):
    st.caption(plain(summary["cost_text"]))
st.dataframe(summary["matrix"], hide_index=True)
if len(summary["refused"]):
    st.caption("Refused lineup entries (never called):")
    st.dataframe(summary["refused"], hide_index=True)
for model, keys in summary["missing_keys"].items():
    _widgets.fail(f"{model} needs {', '.join(keys)} in the environment (or in st.secrets). Set it and reload.")

if plan.options.adaptive is not None:
    st.caption(
        plain(
            f"Adaptive: at most {summary['results']:,} calls; a contender that cannot win stops being called "
            f"(confidence {plan.options.adaptive.confidence:g}; the order of the cases is drawn afresh and recorded)."
        )
    )
for error in (summary["budget_error"], summary["race_error"]):
    if error:
        _widgets.fail(error)
detect = st.number_input(
    "Difference to detect (points, 0: skip)",
    0.0,
    100.0,
    0.0,
    step=0.5,
    help="How many cases tell two contenders this far apart with 80% power (alpha 0.05): from the spread of "
    "this suite's past scores, or a pilot to run first (docs/planning.md)",
)
if detect:
    st.caption(
        plain(
            "  \n".join(
                line[0].upper() + line[1:]
                for line in jobs.size_lines(plan, _loaders.db_path(), detect / 100, summary["cost"])
            )
        )
    )
ready = summary["results"] > 0 and not summary["missing_keys"] and not summary["budget_error"]
ready = ready and not summary["race_error"]
if st.button("Launch", type="primary", icon=":material/play_arrow:", disabled=not ready):
    job = jobs.launch_run(plan, _loaders.db_path(), _actions.access(), roots)
    _loaders.jobs()[job.run_id] = job
    st.session_state[Keys.JOB] = job.run_id
    st.rerun()
