"""The run history in SQLite: the :class:`Store`, its schema and migrations, and results as a columnar frame.

- :mod:`~evalcore.storage.store`: :class:`Store` (runs, contenders, cases, results, summaries).
- :mod:`~evalcore.storage.history`: the run list, run ids from unique prefixes, how a status reads
  (:func:`~evalcore.storage.history.status_label`: ``cancelled`` for a run the user stopped).
- :mod:`~evalcore.storage.migrations`: the tables, as numbered sqlite-utils migrations.
- :mod:`~evalcore.storage.spend`: what a stored run has spent, and the budget cap its settings record.
- :mod:`~evalcore.storage.rows`: records to rows and back (canonical JSON, packed numbers, batched INSERTs).
- :mod:`~evalcore.storage.frames`: the results frame that every leaderboard is computed from.
- :mod:`~evalcore.storage.frame_read`: a stored run's frame, read from its packed numbers in bulk.
- :mod:`~evalcore.storage.columns`: results as plain NumPy columns (who, which case, failed or not, the
  numbers), from a store, a run or a frame, without pandas: what a comparison reads.

May import :mod:`evalcore.core` and :mod:`evalcore._util` (and nothing that calls a model).
"""

from evalcore._util.lazy import lazy_exports

_EXPORTS = {"Store": "store", "default_db_path": "store", "results_frame": "frames", "status_label": "history"}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
