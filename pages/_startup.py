"""What the server does once as it starts, so that the first visitor does not wait for it.

``streamlit run app.py`` serves app.py's ``app``, an ``st.App`` whose lifespan starts :func:`warm_up` in a
thread of its own and returns at once: the server answers as soon as before. While a browser loads
Streamlit's frontend (most of a second on a small machine), the thread imports what the leaderboard page
imports (pandas, pyarrow, evalcore's explorer: half a second), opens the store, seeding it from the
bundled runs when empty, and ranks the default run into the caches the pages read (see
:func:`pages._shared.warm_up`); then it makes a chart once, for the parts of plotly a figure imports.
A page that gets there first waits for the same import or cache entry rather than doing the work twice.
Anything that fails is logged, and left for the page to meet and show.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

log = logging.getLogger("evalcore.app")


@asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    """The ``st.App`` lifespan: start warming up, and serve at once."""
    from streamlit import delta_generator
    from streamlit.runtime.pages_manager import PagesManager

    # What pages._shared.use_app_navigation does on a first page view (a rerun), done before there is one.
    PagesManager.uses_pages_directory = False
    # Streamlit checks once per process, at the first element a page draws, whether it runs in a Python
    # REPL, to warn that apps need `streamlit run`. The check calls inspect.stack(), which resolves the path
    # of every loaded module for each frame: after the warm-up has loaded pandas and plotly, 0.1-0.3 s of the
    # first page view, before anything is sent. A server started by `streamlit run` never needs the warning.
    delta_generator._use_warning_has_been_displayed = True
    threading.Thread(target=warm_up, name="evalcore-warm-up", daemon=True).start()
    yield


def warm_up() -> None:
    """Load, open and compute what the first page view needs (see the module's docstring); never raises."""
    started = time.perf_counter()
    try:
        import pyarrow  # noqa: F401 - what st.dataframe sends a table as

        from pages import _shared

        view = _shared.warm_up()
        if view is not None:  # last, as on the page: the charts come after the tables
            from evalcore import charts

            charts.score_vs(view.ranked, "cost")  # imports the parts of plotly a figure needs
    except Exception:  # noqa: BLE001 - the first page does the same work and shows what goes wrong
        log.exception("warming up failed; the first page will do this work itself")
        return
    log.info("warmed up in %.2f s", time.perf_counter() - started)
