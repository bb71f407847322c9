"""Writing a file whole or not at all, with the permissions any new file of the user gets."""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

#: The mode a new file asks for; the kernel takes the user's umask off it, as it does for ``open(path, "w")``.
NEW_FILE_MODE = 0o666


@contextmanager
def atomic_file(path: Path) -> Iterator[BinaryIO]:
    """A new file beside ``path``, renamed over it when the block ends well, removed when it does not.

    The file gets the mode ``open(path, "w")`` would give it: 0o666 less the umask for a new file (not
    ``tempfile.mkstemp``'s 0o600, which would hide an export from the group it was written for), the old
    file's mode when it replaces one. The folder must exist.
    """
    fd, tmp = _new_beside(path)
    try:
        if path.is_file():
            os.fchmod(fd, stat.S_IMODE(path.stat().st_mode))
        with os.fdopen(fd, "wb") as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _new_beside(path: Path) -> tuple[int, Path]:
    """A file of a name no one else uses, in ``path``'s folder, opened for writing."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, flags, NEW_FILE_MODE), tmp
        except FileExistsError:
            continue
