"""This session's uploads, each run in its own store in a folder on disk that goes when the session does.

An upload is stored, not kept in memory (:func:`evalcore.runfile.uploads.store_upload`: a run file as it
streams), in a SQLite file of a temporary folder this session owns. The folder's holder lives in the
session's state and nowhere else: when Streamlit lets a session go (its tab closed, after the reconnect
grace), the holder is collected and a :func:`weakref.finalize` closes its stores, removes the folder and
clears the run caches that may hold its frames. The same finalizer runs when the server stops.

A ref (``upload:<digest>``) names an upload of this session: the digest is of a secret of the session and
the file, so two sessions uploading one file each get their own store, and one session's ref means nothing
in another.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import shutil
import tempfile
import threading
import weakref
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from evalcore.core.records import Run
from evalcore.runfile.uploads import store_upload
from evalcore.storage.store import Store
from pages._state import Keys

log = logging.getLogger("evalcore.app")

UPLOAD_PREFIX = "upload:"
#: Where each session's folder is made (the system's temporary folder by default).
UPLOADS_ROOT: str | None = None
#: Called, in no session, when a session's uploads are gone (the run caches that may hold their frames).
ENDED: list[Callable[[], None]] = []

#: Every live session's upload stores, by path: what the cached loaders open for an upload's path.
_OPEN: dict[str, Store] = {}
_LOCK = threading.Lock()


class SessionUploads:
    """One session's uploads: their folder, and for each ref its store and run id."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="evalcore-uploads-", dir=UPLOADS_ROOT))
        self.secret = secrets.token_bytes(16)
        self.runs: dict[str, tuple[str, str]] = {}  # ref → (store path, run id)
        paths: list[str] = []
        self._paths = paths
        weakref.finalize(self, _end, self.folder, paths)

    def ref_of(self, data: bytes) -> str:
        return UPLOAD_PREFIX + hashlib.sha256(self.secret + data).hexdigest()[:16]

    def add(self, data: bytes, name: str) -> str:
        """Store an upload (once per content) and return its ref.

        Raises:
            RunFileError: the upload is refused (:func:`~evalcore.runfile.uploads.store_upload`); nothing is kept.
        """
        ref = self.ref_of(data)
        return ref if ref in self.runs else self._stored(ref, lambda store: store_upload(data, store, name))

    def add_run(self, run: Run) -> str:
        """Store a run made on the page (a merge of uploads) as an upload; returns its ref."""
        ref = self.ref_of(b"merge:" + secrets.token_bytes(16))  # each merge its own: a cached view never goes stale

        def stored(store: Store) -> str:
            store.import_run(run, replace=True)
            return run.info.id

        return self._stored(ref, stored)

    def _stored(self, ref: str, put: Callable[[Store], str]) -> str:
        path = str(self.folder / f"{ref.removeprefix(UPLOAD_PREFIX)}.sqlite")
        store = Store(path)
        try:
            run_id = put(store)
        except BaseException:
            store.close()
            for leftover in self.folder.glob(f"{Path(path).name}*"):
                leftover.unlink(missing_ok=True)
            raise
        store.map_memory(False)  # an upload's pages are read once per view: they need not stay mapped
        with _LOCK:
            _OPEN[path] = store
        self._paths.append(path)
        self.runs[ref] = (path, run_id)
        return ref


def session_uploads() -> SessionUploads:
    """This session's uploads (made on first use)."""
    held = st.session_state.get(Keys.UPLOAD_STORES)
    if not isinstance(held, SessionUploads):
        held = st.session_state[Keys.UPLOAD_STORES] = SessionUploads()
    return held


def located(ref: str) -> tuple[str, str] | None:
    """An upload ref's store path and run id, in this session (None: not one of its uploads)."""
    held = st.session_state.get(Keys.UPLOAD_STORES)
    return held.runs.get(ref) if isinstance(held, SessionUploads) else None


def open_store(path: str) -> Store | None:
    """The open store of a live upload at ``path`` (None: not an upload's)."""
    with _LOCK:
        return _OPEN.get(path)


def _end(folder: Path, paths: list[str]) -> None:
    """A session's uploads are let go: close their stores, remove their folder, clear the caches."""
    with _LOCK:
        stores = [store for path in paths if (store := _OPEN.pop(path, None)) is not None]
    for store in stores:
        store.close()
    shutil.rmtree(folder, ignore_errors=True)
    for ended in ENDED:
        try:
            ended()
        except Exception:  # noqa: BLE001 - a finalizer must not raise; the caches are cleared next time
            log.exception("clearing the run caches after a session's uploads went")
    log.info("removed a session's uploads (%d runs) from %s", len(paths), folder)
