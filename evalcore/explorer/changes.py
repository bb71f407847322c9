"""What the app changes in the store besides runs it launches: uploads saved, runs deleted, baselines pinned.

Each call takes the visitor's :class:`~evalcore.explorer.access.Access` and refuses what the deployment's roles
forbid, whatever the page showed. Nothing here imports streamlit.
"""

from __future__ import annotations

from evalcore.core.records import Run
from evalcore.explorer.access import Access
from evalcore.storage.store import Store


def save_run(store: Store, run: Run, access: Access, replace: bool = False) -> None:
    """Store an uploaded run in the history, or in place of the stored run with its id.

    Raises:
        AccessDenied: the roles forbid ``access.visitor`` to change the store; nothing was stored.
    """
    access.require("save")
    store.import_run(run, replace=replace)


def delete_run(store: Store, run_id: str, access: Access) -> None:
    """Delete a stored run and its results.

    Raises:
        AccessDenied: the roles forbid ``access.visitor`` to delete; nothing was deleted.
    """
    access.require("delete")
    store.delete_run(run_id)


def pin_baseline(store: Store, suite: str, run_id: str, contender: str, access: Access) -> None:
    """Pin a run's contender as its suite's baseline, the one ``evalcore gate`` compares with.

    Raises:
        AccessDenied: the roles forbid ``access.visitor`` to change the store; nothing was pinned.
    """
    from evalcore.storage import baselines

    access.require("pin")
    baselines.pin_baseline(store, suite, run_id, contender)
