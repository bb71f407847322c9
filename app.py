"""evalcore explorer: which contender wins, why, at what cost, and how sure we are.

Run with ``streamlit run app.py``. This file only routes: page config, the page list, navigation and
the shared sidebar (run picker and weight sliders). Pages live in ``pages/``; every number they show
comes from an ``evalcore`` function. Opening the app never imports litellm.

``streamlit run`` first imports this file to look for a server: it finds ``app``, an ``st.App`` that
warms up as it starts (``pages/_startup.py``: the first visitor finds the modules loaded and the
default leaderboard computed). Every page view then runs this file as its script, as ``__main__``.
"""

from __future__ import annotations

import logging

import streamlit as st

log = logging.getLogger("evalcore.app")


def main() -> None:
    """One script run: route to the page, inside the shared frame."""
    from evalcore.core.errors import EvalcoreError
    from pages import _account, _actions, _address, _frame, _prefetch, _sidebar, _widgets
    from pages._state import CASES, COMPARE, COMPARE_URL, LEADERBOARD, RATE, RUN, RUNS, UNWEIGHTED_URLS, UPLOAD, Keys

    st.set_page_config(
        page_title="evalcore", page_icon=_widgets.APP_ICON, layout="wide", initial_sidebar_state="expanded"
    )
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    try:
        access = _actions.access()
    except EvalcoreError as exc:  # a misconfigured [evalcore.access]: say so, and show nothing it guards
        _widgets.fail(exc)
        return
    if not access.may_view():
        _account.sign_in_wall(access)
        return
    changing = access.may_change()
    pages = [
        st.Page(LEADERBOARD, title="Leaderboard", icon=":material/leaderboard:", default=True),
        st.Page(CASES, title="Cases", icon=":material/list_alt:", url_path="cases"),
        st.Page(
            RUN,
            title="Run",
            icon=":material/play_circle:",
            url_path="run",
            visibility="visible" if changing else "hidden",
        ),
        st.Page(RUNS, title="Runs", icon=":material/history:", url_path="runs"),
        st.Page(COMPARE, title="Compare", icon=":material/compare_arrows:", url_path=COMPARE_URL),
        st.Page(UPLOAD, title="Upload", icon=":material/upload_file:", url_path="upload"),
        st.Page(
            RATE,
            title="Rate",
            icon=":material/thumbs_up_down:",
            url_path="rate",
            visibility="visible" if access.may_rate() else "hidden",
        ),
    ]
    page = st.navigation(pages)

    try:
        _address.read_address_bar()
        _account.sidebar_account(access)  # first under the page list, where a visitor looks for it
        _sidebar.sidebar(weighted=page.url_path not in UNWEIGHTED_URLS)
        # Before the page: a page may stop early, and widget state is already current.
        _address.write_address_bar(page.url_path)
        with _frame.framed():
            _address.say_missing_run()
            page.run()
        if st.session_state.get(Keys.DRAWN_ONCE):  # a first view is on screen: Compare's default comparison next
            _prefetch.prepare_default_comparison()
        st.session_state[Keys.DRAWN_ONCE] = True
    except EvalcoreError as exc:
        log.warning("%s: %s", page.title, exc)
        _widgets.fail(exc)
    except Exception:
        # A traceback helps a developer in the log, never a reader on the page.
        log.exception("the %s page failed", page.title)
        _widgets.fail("Something went wrong on this page. The details are in the server log; reload to try again.")


if __name__ == "__main__":  # Streamlit runs this file as the script of every page view
    main()
else:  # `streamlit run app.py` first imports it to find the server to serve: this one, warmed up as it starts
    from starlette.middleware import Middleware

    from pages._prefetch import ComparePrefetch
    from pages._startup import lifespan

    app = st.App(__file__, lifespan=lifespan, middleware=[Middleware(ComparePrefetch)])
