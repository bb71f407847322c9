"""What the server does once as it starts, so that the first visitor does not wait for it.

``streamlit run app.py`` serves app.py's ``app``, an ``st.App`` whose lifespan starts :func:`warm_up` in a
thread of its own and returns at once: the server answers as soon as it would without it. While a
browser loads Streamlit's frontend, the thread imports what the leaderboard page imports (pandas,
pyarrow, evalcore's explorer), opens the store, seeding it from the bundled runs when empty, and ranks
the default run into the caches the pages read (see :func:`pages._loaders.warm_up`); then it makes a
chart once, for the parts of plotly a figure imports. A page that gets there first waits for the same
import or cache entry rather than doing the work twice. Anything that fails is logged, and left for the
page to meet and show. (The Compare page's default comparison is prepared after the first page view, not
here: see :func:`pages._prefetch.prepare_default_comparison`.)
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
    threading.Thread(target=warm_up, name="evalcore-warm-up", daemon=True).start()
    yield


def warm_up() -> None:
    """Load, open and compute what the first page view needs (see the module's docstring); never raises."""
    from evalcore.core.errors import EvalcoreError

    started = time.perf_counter()
    try:
        import pyarrow  # noqa: F401 - what st.dataframe sends a table as

        from pages import _loaders

        view = _loaders.warm_up()
        if view is not None:  # last, as on the page: the charts come after the tables
            from evalcore.analysis.tables import charts

            charts.score_vs(view.ranked, "cost")  # imports the parts of plotly a figure needs
    except EvalcoreError as exc:  # a setting to fix (a store that does not exist): the first page says it too
        log.warning("warming up stopped: %s", exc)
        return
    except Exception:  # noqa: BLE001 - the first page does the same work and shows what goes wrong
        log.exception("warming up failed; the first page will do this work itself")
        return
    log.info("warmed up in %.2f s", time.perf_counter() - started)
