"""When a browser session has ended: the one place the app reads Streamlit internals.

Streamlit 1.67 has no public session id and no hook for a session's end, and a session's state is collected
only when Python's garbage collector gets to it (the app runs with ``postScriptGC`` off, so an idle server
may hold a closed tab's state for minutes). An upload's folder must not wait for that, so this module asks
the runtime directly whether a session is still active. These are internals: ``tests/app/test_session_ends.py``
fails loudly when a Streamlit release moves them, and everything here degrades to "unknown" (nothing is
reaped early) rather than raising.
"""

from __future__ import annotations

import logging

log = logging.getLogger("evalcore.app")


def session_id() -> str | None:
    """The id of the browser session running this script; None outside a served session (AppTest, bare mode)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx
    except ImportError:  # pragma: no cover - a Streamlit release that moved it; the test names it
        log.warning("streamlit.runtime.scriptrunner.get_script_run_ctx is gone: uploads wait for the collector")
        return None
    ctx = get_script_run_ctx(suppress_warning=True)
    return None if ctx is None else str(ctx.session_id)


def is_active(session: str) -> bool | None:
    """Whether the served session ``session`` is still active (a tab open, or within its reconnect grace);
    None when it cannot be told (no runtime: AppTest or bare mode)."""
    try:
        from streamlit.runtime import Runtime
    except ImportError:  # pragma: no cover - a Streamlit release that moved it; the test names it
        return None
    if not Runtime.exists():
        return None
    try:
        return bool(Runtime.instance().is_active_session(session))
    except Exception:  # noqa: BLE001 - an internal that changed shape: unknown, never a crash of the reaper
        log.exception("asking Streamlit whether session %s is active", session)
        return None
