"""This session's uploads, each run in its own store in a folder on disk that goes when the session does.

An upload is stored, not kept in memory (:func:`evalcore.runfile.uploads.store_upload`: a run file as it
streams), in a SQLite file of a temporary folder this session owns. The folder's holder lives in the
session's state and nowhere else: when Streamlit lets a session go (its tab closed, after the reconnect
grace), the holder is collected and a :func:`weakref.finalize` closes its stores, removes the folder and
clears the run caches that may hold its frames. The same finalizer runs when the server stops.

Collection can wait for minutes on an idle server, so a reaper thread also asks every
:data:`REAP_EVERY_S` whether each holder's session is still active (:mod:`pages._session_ends`) and ends
the uploads of one found inactive twice in a row. A server killed outright leaves its folders behind: each
holds its server's process id, and the first upload of a later server removes the folders of processes that
are gone.

A ref (``upload:<digest>``) names an upload of this session: the digest is of a secret of the session and
the file, so two sessions uploading one file each get their own store, and one session's ref means nothing
in another.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from evalcore.core.records import Run
from evalcore.runfile.uploads import store_upload
from evalcore.storage.store import Store
from pages import _session_ends
from pages._state import Keys

log = logging.getLogger("evalcore.app")

UPLOAD_PREFIX = "upload:"
#: Where each session's folder is made (the system's temporary folder by default).
UPLOADS_ROOT: str | None = None
#: Called, in no session, when a session's uploads are gone (the run caches that may hold their frames).
ENDED: list[Callable[[], None]] = []

#: How often the reaper asks whether the sessions holding uploads are still active.
REAP_EVERY_S = 30.0
#: The file in a session's folder that names the server process owning it.
OWNER = "owner.pid"
#: A folder that names no owner (an older layout) is a leftover once untouched this long.
UNOWNED_AFTER_S = 24 * 3600.0

#: Every live session's upload stores, by path: what the cached loaders open for an upload's path.
_OPEN: dict[str, Store] = {}
_LOCK = threading.Lock()
#: Every session's holder not yet ended, for the reaper (weakly: the session's state owns it).
_LIVE: weakref.WeakSet[SessionUploads] = weakref.WeakSet()
_REAPER: list[threading.Thread] = []


class SessionUploads:
    """One session's uploads: their folder, and for each ref its store and run id."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="evalcore-uploads-", dir=UPLOADS_ROOT))
        self.secret = secrets.token_bytes(16)
        self.runs: dict[str, tuple[str, str]] = {}  # ref → (store path, run id)
        (self.folder / OWNER).write_text(str(os.getpid()))
        paths: list[str] = []
        self._paths = paths
        self._end = weakref.finalize(self, _end, self.folder, paths)
        self.session = _session_ends.session_id()
        self.inactive = 0  # the reaper's checks in a row that found the session inactive
        if self.session is not None:
            _LIVE.add(self)
            _start_reaper()

    def end(self) -> None:
        """Let this session's uploads go now (closed, removed); their refs then say they are gone."""
        self.runs.clear()
        _LIVE.discard(self)
        self._end()

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
        sweep_leftovers()
        held = st.session_state[Keys.UPLOAD_STORES] = SessionUploads()
    return held


def reap_once() -> int:
    """End the uploads of every session found inactive at two checks in a row; returns how many were ended.
    A session whose state cannot be told is never ended here (the collector still ends it)."""
    ended = 0
    for held in list(_LIVE):
        active = _session_ends.is_active(held.session) if held.session is not None else None
        held.inactive = held.inactive + 1 if active is False else 0
        if held.inactive >= 2:
            held.end()
            ended += 1
    return ended


def _start_reaper() -> None:
    with _LOCK:
        if _REAPER and _REAPER[0].is_alive():
            return
        thread = threading.Thread(target=_reap_forever, name="evalcore-upload-reaper", daemon=True)
        _REAPER[:] = [thread]
    thread.start()


def _reap_forever() -> None:
    while True:
        time.sleep(REAP_EVERY_S)
        try:
            reap_once()
        except Exception:  # noqa: BLE001 - the reaper must outlive one bad check; the collector remains
            log.exception("reaping ended sessions' uploads")


def sweep_leftovers(root: str | None = None) -> list[Path]:
    """Remove the upload folders a server that is gone left behind (killed before its finalizers ran):
    those whose owner process no longer runs, and unowned ones untouched for :data:`UNOWNED_AFTER_S`."""
    removed = []
    for folder in Path(root or UPLOADS_ROOT or tempfile.gettempdir()).glob("evalcore-uploads-*"):
        try:
            owner = int((folder / OWNER).read_text())
        except (OSError, ValueError):
            owner = None
        try:
            stale = not _running(owner) if owner is not None else time.time() - folder.stat().st_mtime > UNOWNED_AFTER_S
        except OSError:
            continue
        if stale and folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    if removed:
        log.info("removed %d upload folders left by servers that are gone", len(removed))
    return removed


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: running
        return True
    return True


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
