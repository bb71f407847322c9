"""What changes the store from a page (save an upload, delete a run, pin a baseline, launch the demo), each
under the visitor's :class:`~evalcore.explorer.access.Access`: the deployment's roles refuse it in the engine
call, not only by hiding its button."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import streamlit as st

from evalcore.core.records import Run
from evalcore.explorer import changes
from evalcore.explorer import suite_roots as roots
from evalcore.explorer.access import DEPLOYED_ENV, VIEWER_ENV, Access, Policy, Visitor
from evalcore.explorer.jobs import build_plan, launch_run
from pages import _loaders as loaders
from pages._state import RUN, Keys

DEMO_SUITE = Path("data/suites/intake")


def access() -> Access:
    """The visitor of this session under the deployment's roles (``st.secrets`` and the environment)."""
    return Access(Policy.from_settings(_settings(), os.environ), _visitor())


def may_change() -> bool:
    """Whether this visitor may launch, resume and delete runs, save uploads and pin baselines."""
    return access().may_change()


def _settings() -> dict[str, Any]:
    try:
        return {key: st.secrets.get(key) for key in ("auth", "evalcore", VIEWER_ENV, DEPLOYED_ENV)}
    except Exception:  # noqa: BLE001 - no secrets.toml at all raises; that just means "nothing set"
        return {}


def suite_roots() -> list[Path]:
    """The suite folders this app may run: ``data/suites`` and ``EVALCORE_SUITE_ROOTS`` (``st.secrets``, else
    the environment)."""
    try:
        secret = st.secrets.get(roots.ROOTS_ENV)
    except Exception:  # noqa: BLE001 - no secrets.toml at all raises; that just means "not set"
        secret = None
    return roots.suite_roots(os.environ, secret)


def _visitor() -> Visitor:
    try:
        user = st.user.to_dict()
    except Exception:  # noqa: BLE001 - st.user without sign-in configured: an anonymous visitor
        user = {}
    address = st.context.ip_address
    if not isinstance(address, str):  # documented as str | None; AppTest runs pages with no real connection
        address = None
    return Visitor.from_user(user, address, dict(st.context.headers or {}))


def save_run(run: Run, replace: bool = False) -> None:
    """Store an uploaded run in the history, or in place of a stored run with its id (if the roles allow)."""
    changes.save_run(loaders.store(), run, access(), replace=replace)
    if replace:
        loaders.forget_run_caches()


def delete_run(run_id: str) -> None:
    """Delete a stored run (if the roles allow)."""
    changes.delete_run(loaders.store(), run_id, access())


def pin_baseline(suite: str, run_id: str, contender: str) -> None:
    """Pin a run's contender as its suite's baseline, the one ``evalcore gate`` compares with (if the roles
    allow)."""
    changes.pin_baseline(loaders.store(), suite, run_id, contender, access())


def launch_demo() -> None:
    """Start the demo suite with its fake lineup, and watch it on the Run page (if the roles allow)."""
    from evalcore.suite.loader import load_suite

    who = access()
    who.require("launch")  # before reading the suite: a visitor who may not launch learns that first
    job = launch_run(build_plan(load_suite(DEMO_SUITE)), loaders.db_path(), who, suite_roots())
    loaders.jobs()[job.run_id] = job
    st.session_state[Keys.JOB] = job.run_id
    st.switch_page(RUN)
