"""What changes the store from a page (save an upload, delete a run, pin a baseline, launch the demo), and
viewer mode, which refuses all of them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import streamlit as st

from evalcore.core.records import Run
from evalcore.explorer import sharing
from evalcore.explorer.jobs import build_plan, launch_run
from pages import _loaders as loaders
from pages._state import RUN, Keys

DEMO_SUITE = Path("data/suites/intake")


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


def save_run(run: Run, replace: bool = False) -> None:
    """Store an uploaded run in the history, or in place of a stored run with its id (refused in viewer mode)."""
    refuse_in_viewer_mode("Saving a run")
    loaders.store().import_run(run, replace=replace)
    if replace:
        loaders.forget_run_caches()


def delete_run(run_id: str) -> None:
    """Delete a stored run (refused in viewer mode)."""
    refuse_in_viewer_mode("Deleting a run")
    loaders.store().delete_run(run_id)


def pin_baseline(suite: str, run_id: str, contender: str) -> None:
    """Pin a run's contender as its suite's baseline, the one ``evalcore gate`` compares with (refused in
    viewer mode)."""
    from evalcore.storage import baselines

    refuse_in_viewer_mode("Pinning a baseline")
    baselines.pin_baseline(loaders.store(), suite, run_id, contender)


def launch_demo() -> None:
    """Start the demo suite with its fake lineup, and watch it on the Run page (refused in viewer mode)."""
    from evalcore.suite.loader import load_suite

    refuse_in_viewer_mode("Launching a run")
    job = launch_run(build_plan(load_suite(DEMO_SUITE)), loaders.db_path())
    loaders.jobs()[job.run_id] = job
    st.session_state[Keys.JOB] = job.run_id
    st.switch_page(RUN)
