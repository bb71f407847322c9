"""What a run id may be, and the file name a writer makes from one.

A run id names files (``<run id>.jsonl`` in an outbox folder, ``<run id>.json.gz`` sent to MLflow) and travels
in run files from anyone, so it is never a path: letters, digits and ``. _ - : + @ =``, starting with a letter
or a digit (so neither ``..``, ``/abs`` nor ``-flag``), at most 200 characters. A UUID, evalcore's own ids and
the importers' ``inspect-<hash>`` all are. The run-file reader refuses any other id; a writer still makes its
file name with :func:`run_file_stem`, which never holds a path whatever the id (a store written by an older
version, or by hand, may hold one).
"""

from __future__ import annotations

import hashlib
import re

#: The whole of a valid run id.
RUN_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:+@=-]{0,199}$"
_RUN_ID = re.compile(RUN_ID_PATTERN)


def run_id_problem(value: str) -> str | None:
    """Why ``value`` is not a run id (quoting it), or None when it is one."""
    if _RUN_ID.match(value) and "\n" not in value:
        return None
    return (
        f"{value!r} is not a run id: use letters, digits and . _ - : + @ = (at most 200, starting with a letter or "
        "a digit), e.g. a UUID; a run id names files, so it is never a path"
    )


def run_file_stem(run_id: str) -> str:
    """The stem of a file named for a run: the id itself when it is a valid run id, else ``run-`` and a hash of
    it (the same id always gives the same name), so a file named for a run stays in the folder it is put in."""
    if run_id_problem(run_id) is None:
        return run_id
    return "run-" + hashlib.sha256(run_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]
