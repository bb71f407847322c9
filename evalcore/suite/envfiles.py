"""A suite's ``env_files:``: files of ``KEY=VALUE`` lines read into the environment when the suite loads.

They are read before anything looks at the environment (API keys, ``${VAR}`` in adapter options), relative to
the suite's folder and in the order listed. A variable already set in the environment is kept: a key given by
the shell or a CI secret beats a stale file. A file that does not exist is skipped, so a suite can list a
``.env`` that only some machines have. Values are never printed (an error names the file and line only) and
never stored in a run.
"""

from __future__ import annotations

import os
import re
from collections.abc import MutableMapping, Sequence
from pathlib import Path

from evalcore.core.errors import ConfigError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def read_env_files(folder: Path, files: Sequence[str], environ: MutableMapping[str, str] | None = None) -> list[str]:
    """Set the variables of ``files`` (relative to ``folder``) that ``environ`` does not have yet.

    Args:
        folder: the suite's folder.
        files: the suite's ``env_files``.
        environ: where to set them (default: ``os.environ``).

    Returns:
        The names of the variables set.

    Raises:
        ConfigError: a line that is neither ``KEY=VALUE`` (``export`` allowed), a comment nor blank; an env file
            that is a folder or cannot be read.
    """
    env = os.environ if environ is None else environ
    set_names: list[str] = []
    for name in files:
        path = folder / name
        if not path.exists():
            continue
        for key, value in parse_env_file(path).items():
            if key not in env:
                env[key] = value
                set_names.append(key)
    return set_names


def parse_env_file(path: Path) -> dict[str, str]:
    """The ``KEY=VALUE`` pairs of an env file: ``#`` comments and blank lines skipped, an ``export`` prefix
    allowed, a value in single or double quotes taken inside them, an unquoted one up to a `` #`` comment.

    Raises:
        ConfigError: a malformed line (its number given, never its text: it may hold a secret), or a file that
            cannot be read.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise ConfigError(f"{path}: env file (env_files:) cannot be read: {why}") from None
    found: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.removeprefix("export ").partition("=")
        key = key.strip()
        if not sep or not _NAME.fullmatch(key):
            raise ConfigError(
                f"{path}: line {number}: not a KEY=VALUE line (KEY: letters, digits and _); fix or remove it"
            )
        found[key] = _value(value.strip())
    return found


def _value(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text.split(" #", 1)[0].rstrip()
