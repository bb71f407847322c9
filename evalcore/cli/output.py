"""The files the commands write: an output path checked before any work, and writes that are whole or nothing,
with one line for the user when they fail."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def output_path(value: str, option: str = "-o", example: str = "run.json.gz") -> Path:
    """The file an output option names, checked before any work is done: not a folder, in a folder that
    exists and that the user may write in. Every command that writes a file checks its path here.

    Args:
        value: the path given.
        option: the option that gave it, for the message.
        example: a file name to suggest when the path is a folder.

    Raises:
        ConfigError: the path cannot be written, saying why and what to give instead.
    """
    from evalcore.core.errors import ConfigError

    path = Path(value)
    folder = path.parent
    if path.is_dir():
        raise ConfigError(f"{option} {value}: is a folder; give a file name, e.g. {option} {path / example}")
    if not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "does not exist; create it first or"
        raise ConfigError(f"{option} {value}: the folder {folder} {what} write elsewhere")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"{option} {value}: the folder {folder} is not writable by you; write elsewhere")
    return path


@contextmanager
def writing(path: Path | str, option: str = "-o") -> Iterator[None]:
    """Turn a failure to write ``path`` (a full disk, a read-only file system …) into one line for the user.

    Raises:
        ConfigError: writing failed; nothing was left at ``path`` (files are written whole or not at all).
    """
    from evalcore.core.errors import ConfigError

    try:
        yield
    except OSError as e:
        raise ConfigError(f"{option} {path}: cannot write it: {e.strerror or e}") from None


def write_output(path: Path, text: str | bytes) -> None:
    """Write a file whole (a temporary file renamed into place) with the user's umask; text as UTF-8."""
    from evalcore._util.files import atomic_file

    with writing(path), atomic_file(path) as f:
        f.write(text.encode("utf-8") if isinstance(text, str) else text)
