"""Run files (``docs/run-file.md``): one JSON document (optionally gzipped) that holds a whole run.

- :mod:`~evalcore.runfile.io`: :func:`read_run_file`, :func:`write_run_file`, export of a stored run.
- :mod:`~evalcore.runfile.models`: the pydantic models of the format, strict (``extra="forbid"``).
- :mod:`~evalcore.runfile.fast`: the fast reader for large, well-formed files (checked against the models).
- :mod:`~evalcore.runfile.uploads`: reading a file a browser uploaded, with its size caps.

May import :mod:`evalcore.storage`, :mod:`evalcore.core` and :mod:`evalcore._util`.
"""

from evalcore._util.lazy import lazy_exports

_EXPORTS = {"read_run_file": "io", "write_run_file": "io", "export_run": "io", "dump_run": "io",
            "read_upload": "uploads"}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
