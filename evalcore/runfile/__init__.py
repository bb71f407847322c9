"""Run files (``docs/run-file.md``): one JSON document (optionally gzipped) that holds a whole run.

- :mod:`~evalcore.runfile.read`: :func:`read_run_file`, strict reading with every problem named.
- :mod:`~evalcore.runfile.write`: :func:`write_run_file`, :func:`dump_run` (the canonical bytes) and
  :func:`export_run` (a stored run, a part of its results at a time).
- :mod:`~evalcore.runfile.models`: the pydantic models of the format, strict (``extra="forbid"``).
- :mod:`~evalcore.runfile.fast`: the fast reader for large, well-formed files (checked against the models).
- :mod:`~evalcore.runfile.jsonschema`: the format's JSON Schema, made from the models.
- :mod:`~evalcore.runfile.uploads`: reading a file a browser uploaded, with its size caps.
- :mod:`~evalcore.runfile.importers`: promptfoo result files and Inspect AI logs read as runs
  (:func:`~evalcore.runfile.importers.read_import` tells a file's kind from its content).
- :mod:`~evalcore.runfile.merge`: :func:`~evalcore.runfile.merge.merge_runs`, runs over the same cases as one.

May import :mod:`evalcore.storage`, :mod:`evalcore.core` and :mod:`evalcore._util`.
"""

from typing import TYPE_CHECKING

from evalcore._util.lazy import lazy_exports

if TYPE_CHECKING:
    from evalcore.runfile.read import read_run_file
    from evalcore.runfile.uploads import read_upload
    from evalcore.runfile.write import dump_run, export_run, write_run_file


_EXPORTS = {
    "read_run_file": "read",
    "write_run_file": "write",
    "export_run": "write",
    "dump_run": "write",
    "read_upload": "uploads",
}
__all__ = [
    "dump_run",
    "export_run",
    "read_run_file",
    "read_upload",
    "write_run_file",
]
if not TYPE_CHECKING:  # hidden from mypy, which would otherwise type every unknown name as Any
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
