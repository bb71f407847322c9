"""Cases: every answer of a contender, and for one case the input, the expected answer and the output side
by side, the wrong fields want vs got, an agent's trace as a timeline, the raw reply and its usage; another
contender's answer beside it."""

from __future__ import annotations

import streamlit as st

from evalcore.analysis.tables import view
from evalcore.explorer import case_pages, cases_address, drilldown
from evalcore.explorer.case_images import case_images
from pages import _actions, _address, _chat, _filters, _frame, _loaders, _samples, _trace, _widgets
from pages._state import Keys
from pages._widgets import plain

ALL = "All contenders"

_frame.use_app_frame(__file__)
st.title("Cases")
now = _loaders.current()
if now is None:
    _widgets.empty_store()
    st.stop()
options = _loaders.filter_options(now)  # from the run's summary: a contender's cases need no other result read
chosen = _filters.run_filters(now, options)  # the leaderboard's filters narrow this list too
contenders = [c.id for c in now.run.contenders if not chosen.contenders or c.id in chosen.contenders]
if st.session_state.get(Keys.CASE_CONTENDER) not in [ALL, *contenders]:
    st.session_state[Keys.CASE_CONTENDER] = ALL

left, middle, right, search = st.columns([3, 2, 2, 3])
contender = left.selectbox("Contender", [ALL, *contenders], key=Keys.CASE_CONTENDER)
datasets = _filters.filter_widget(middle, "Datasets", "dataset", options["datasets"])
variants = _filters.filter_widget(right, "Variants", "variant", options["variants"])
text = search.text_input("Search the inputs", placeholder="words in the input text", key=Keys.CASE_SEARCH)
_filters.filters_caption(leave_out=("dataset", "variant"), where=" (under Filters on the Leaderboard)")
checks = st.columns(4)
failures = checks[0].toggle("Failures only", help="Errors and scores below 100%", key=Keys.CASE_ONLY + "failures")
errors = checks[1].toggle("Errors only", help="Failed calls and unusable replies", key=Keys.CASE_ONLY + "errors")
metrics = now.run.metrics
has_hallucinations = any(m.name in drilldown.HALLUCINATION_METRICS for m in metrics)
hallucinations = checks[2].toggle(
    "Hallucinations only",
    disabled=not has_hallucinations,
    help="Answers that filled in a field the text leaves open, or called a function where no call was right",
    key=Keys.CASE_ONLY + "hallucinations",
)
disagree = checks[3].toggle(
    "Samples disagree",
    disabled=now.samples < 2,
    help="Cases whose samples (tries at the same case) got different outcomes",
    key=Keys.CASE_ONLY + "disagree",
)
toggled = (failures, errors, hallucinations, disagree)
filters = drilldown.CaseFilters(
    None if contender == ALL else contender,
    datasets,
    variants,
    failures,
    errors,
    hallucinations,
    disagree,
    text,
    chosen,
)
# The list comes from the run's frame (numbers and names); a page reads its own rows' inputs and errors only.
size = st.session_state.get(Keys.CASE_PAGE_SIZE, case_pages.PAGE_SIZES[0])
listing = (filters.contender, *map(tuple, (datasets, variants)), *toggled, text, repr(chosen), size)
listed_before, page = st.session_state.get(Keys.CASE_PAGE, (None, 0))
opened = st.session_state.get(Keys.CASE_OPEN)  # a case another page opened, shown until a row is clicked
texts = _loaders.case_texts(now)
listed = case_pages.case_page(
    now.frame,
    metrics,
    texts,
    filters,
    page=page if listed_before == listing else 0,
    size=size,
    matching=_loaders.cases_matching(now, text) if text.strip() else None,
    showing=opened,
)
st.session_state[Keys.CASE_PAGE] = (listing, listed.page)
table, total, first = listed.table, listed.total, listed.page * listed.size
shown = f"; rows {first + 1:,}–{first + len(table):,} are listed" if total > len(table) else ""
st.caption(f"{view.count(total, 'result')}{shown}. Click a row to see the case.")
percent = {
    name: st.column_config.ProgressColumn(name, min_value=0, max_value=100, format="%.0f%%")
    for name in ["score", *(m.name for m in metrics)]
}
event = st.dataframe(
    table,
    hide_index=True,
    on_select="rerun",
    selection_mode=_widgets.PICK_ROW,
    key=Keys.CASE_TABLE,
    height=_widgets.table_height(len(table)),
    column_config={**percent, "input": st.column_config.TextColumn("input", width="large")},
)


def _turn(to: int) -> None:
    st.session_state[Keys.CASE_PAGE] = (listing, to)
    st.session_state.pop(Keys.CASE_OPEN, None)
    st.session_state.pop(Keys.CASE_TABLE, None)  # a row picked on one page is not the same row on another


back, where, ahead, rows = st.columns([1, 2, 1, 2], vertical_alignment="center")
back.button(
    "Previous", key=Keys.CASE_PAGE + "_previous", disabled=listed.page == 0, on_click=_turn, args=(listed.page - 1,)
)
where.caption(f"Page {listed.page + 1:,} of {listed.pages:,}")
ahead.button(
    "Next",
    key=Keys.CASE_PAGE + "_next",
    disabled=listed.page + 1 >= listed.pages,
    on_click=_turn,
    args=(listed.page + 1,),
)
rows.selectbox(
    "Rows per page",
    case_pages.PAGE_SIZES,
    format_func=lambda n: f"{n:,} rows a page",
    key=Keys.CASE_PAGE_SIZE,
    label_visibility="collapsed",
)
picked = _widgets.picked_row(event, len(table))
if picked is not None or opened is None:
    st.session_state.pop(Keys.CASE_OPEN, None)
else:
    keys = zip(table["contender"], table["dataset"], table["case"], table["sample"], strict=True)
    picked = next((i for i, key in enumerate(keys) if key == opened), None)
row = None if picked is None else table.iloc[picked]
_address.share_cases_view(
    cases_address.CasesState(
        None if contender == ALL else contender,
        None if row is None else (row["contender"], row["dataset"], row["case"], int(row["sample"])),
        tuple(name for name, on in zip(cases_address.CASES_ONLY, toggled, strict=True) if on),
        text,
    )
)
if row is None:
    st.info("Click a row to see its input, expected answer and output side by side.", icon=":material/touch_app:")
    st.stop()

run = texts.case_run(now.run, [row["contender"]], row["dataset"], row["case"])
detail = drilldown.case_detail(run, row["contender"], row["dataset"], row["case"], int(row["sample"]))
st.subheader(plain(f"{row['dataset']} / {row['case']}"))
st.caption(plain(f"{row['contender']} · variant {detail['variant']} · sample {row['sample']}"))
numbers = st.columns(6)
if detail["scored"]:
    numbers[0].metric("Score", "–" if detail["score"] != detail["score"] else f"{detail['score']:.0f}%")
    numbers[1].metric("Wrong fields", detail["wrong"])
else:
    numbers[0].metric("Score", "–", help="Not scored: the call failed, and a failed call is never scored")
    numbers[1].metric("Wrong fields", "–", help="Not scored: a failed call has no answer to compare")
numbers[2].metric("Latency", "–" if detail["latency_s"] is None else f"{detail['latency_s']:.2f} s")
numbers[3].metric("Attempts", detail["attempts"])
usage = detail["usage"]
numbers[4].metric("Tokens in / out", f"{usage['input tokens'] or '–'} / {usage['output tokens'] or '–'}")
cost = usage["cost (USD)"]
numbers[5].metric("Cost", "–" if cost is None else plain(view.money_format([cost]) % cost))
if not detail["scored"]:
    _widgets.fail(f"{detail['not_scored'].capitalize()}. {detail['error'] or 'No error was recorded.'}")
elif detail["error"]:
    _widgets.fail(detail["error"])

inputs, expected, output = st.columns(3)
inputs.markdown("**Input**")
inputs.code(detail["input"], language=None, wrap_lines=True)
if detail["images"]:
    for image in case_images(detail["images"], run.info.settings.get("suite_path"), _actions.suite_roots()):
        about = f"{image.label} · {image.media_type} · {image.size:,} bytes · {image.sha256}"
        if image.data is not None:
            inputs.image(image.data, caption=plain(about))
        else:
            inputs.caption(plain(f"{about}: {image.why}"))
expected.markdown("**Expected**")
expected.code(detail["expected"], language="json", wrap_lines=True)
output.markdown("**Output**")
output.code(detail["output"], language="json", wrap_lines=True)

if detail["scored"]:
    st.markdown("**Want vs got**")
    fields = detail["fields"]
    styled = fields.style.apply(
        lambda r: [("" if r["right"] else "background-color: rgba(255, 75, 75, 0.25)")] * len(r), axis=1
    )
    st.dataframe(styled, hide_index=True, column_config={"right": st.column_config.CheckboxColumn("right")})
_samples.show_flaky(now, row["contender"], row["dataset"], row["case"])
_samples.show_samples(run, row["contender"], row["dataset"], row["case"])
picked = drilldown.find_result(run, row["contender"], row["dataset"], row["case"], int(row["sample"]))
if not _chat.show_chat(picked):  # a conversation shows as a chat, any other trace as a timeline
    _trace.show_trace(run, row["contender"], row["dataset"], row["case"], int(row["sample"]))
with st.expander("Raw reply"):
    st.code(detail["raw"] if detail["raw"] is not None else "(no reply)", language=None, wrap_lines=True)
asked = [p for p in drilldown.prompts_asked(run) if row["contender"] in p["contenders"]]
for prompt in asked:
    with st.expander(plain(f"Prompt: {prompt['name']}")):
        st.caption(
            plain(f"{prompt['file'] or 'file not recorded'}: the template this contender's messages were made from")
        )
        st.code(prompt["text"] or "(the run file does not hold this prompt's text)", language=None, wrap_lines=True)

others = [c for c in contenders if c != row["contender"]]
if others:
    st.markdown("**Compare with another contender**")
    other = st.selectbox("Contender to compare", others, key=Keys.CASE_COMPARE, label_visibility="collapsed")
    pair = texts.case_run(now.run, [row["contender"], other], row["dataset"], row["case"])
    st.dataframe(
        drilldown.compare_answers(pair, [row["contender"], other], row["dataset"], row["case"], int(row["sample"])),
        hide_index=True,
    )
