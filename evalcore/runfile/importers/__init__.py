"""Importers: files other tools write, read as evalcore runs (``docs/importing.md``).

- :mod:`~evalcore.runfile.importers.load`: :func:`read_import`, which tells a file's kind from its content
  (an evalcore run file, a promptfoo result file, an Inspect ``.json`` or ``.eval`` log, an lm-eval results
  file) and reads it.
- :mod:`~evalcore.runfile.importers.detect`: how the kind is told, and the line that refuses an unknown one.
- :mod:`~evalcore.runfile.importers.promptfoo`: promptfoo result files (``eval -o``, ``export``,
  ``evaluate()``; results versions 2 and 3).
- :mod:`~evalcore.runfile.importers.inspect_log`: Inspect AI logs (log format versions 1 and 2); ``_inspect_events``
  makes a sample's events a trace, ``_inspect_chat`` a multi-turn sample's dialogue a conversation's transcript.
- :mod:`~evalcore.runfile.importers.eee`: Every Eval Ever records (an aggregate ``<uuid>.json`` and the
  ``<uuid>_samples.jsonl`` beside it, or a zip of them); ``_eee_files`` pairs those files, ``_eee_items`` reads one line
  (:func:`records_claimed`: the samples files a folder's records read).
- :mod:`~evalcore.runfile.importers.lm_eval`: lm-evaluation-harness output (a results file and the
  ``--log_samples`` files beside it, or a zip of their folder); ``_lm_eval_files`` pairs those files.
- ``_lean``: a parse of promptfoo files and Inspect ``.json`` logs that builds only the parts imported.
- ``_source``: bytes, JSON and zip entries under caps (gzip and zip bombs, truncated zips, Zstandard), and
  :func:`iter_files`, the files of a folder to import.
- ``_common``: run ids from file hashes, provenance, metric names and values, notes.

May import :mod:`evalcore.runfile`, :mod:`evalcore.core` and :mod:`evalcore._util`.
"""

from typing import TYPE_CHECKING

from evalcore._util.lazy import lazy_exports

if TYPE_CHECKING:
    from evalcore.runfile.importers._eee_files import records_claimed
    from evalcore.runfile.importers._source import iter_files
    from evalcore.runfile.importers.load import import_notes, read_import, source_label


_EXPORTS = {
    "iter_files": "_source",
    "read_import": "load",
    "source_label": "load",
    "import_notes": "load",
    "records_claimed": "_eee_files",
}
__all__ = [
    "import_notes",
    "iter_files",
    "read_import",
    "records_claimed",
    "source_label",
]
if not TYPE_CHECKING:  # hidden from mypy, which would otherwise type every unknown name as Any
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
