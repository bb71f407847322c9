"""The run history in SQLite: the :class:`Store`, its schema and migrations, and results as a columnar frame.

- :mod:`~evalcore.storage.store`: :class:`Store` (runs, contenders, cases, results, summaries), built on
  :mod:`~evalcore.storage.connection` (the connection, shared by threads, and its transactions), opened where
  :mod:`~evalcore.storage.location` says (a path or a URL).
- :mod:`~evalcore.storage.history`: a run in the store by id (:class:`~evalcore.storage.history.StoredRun`), and
  changes to a stored run's settings.
- :mod:`~evalcore.storage.runs`: the runs table: the run list and its filters, run ids from unique prefixes, how
  a status reads (:func:`~evalcore.storage.runs.status_label`: ``cancelled`` for a run the user stopped).
- :mod:`~evalcore.storage.migrations`: the tables, as numbered sqlite-utils migrations.
- :mod:`~evalcore.storage.spend`: what a stored run has spent, and the budget cap its settings record.
- :mod:`~evalcore.storage.replies`: the reply cache's table (models' replies by request, no run's).
- :mod:`~evalcore.storage.proposals`: the review queue of proposed cases (``evalcore generate``; no run's).
- :mod:`~evalcore.storage.rows`: records to rows and back (canonical JSON, packed numbers, batched INSERTs).
- :mod:`~evalcore.storage.packed`: a result's numbers as one packed row, and a stored run's rows read back in bulk.
- :mod:`~evalcore.storage.frames`: a run's results as columns: the results frame every leaderboard is computed
  from, and the same numbers as plain NumPy columns, what a comparison reads.
- :mod:`~evalcore.storage.postgres`: PostgreSQL behind the same store; :mod:`~evalcore.storage.dialects`: the
  store's queries that PostgreSQL needs written its own way, each beside its SQLite form.
- :mod:`~evalcore.storage.urls`: the passwords of a PostgreSQL URL, masked in messages and never quoted back.

May import :mod:`evalcore.core` and :mod:`evalcore._util` (and nothing that calls a model).
"""

from typing import TYPE_CHECKING

from evalcore._util.lazy import lazy_exports

if TYPE_CHECKING:
    from evalcore.storage.frames import results_frame
    from evalcore.storage.runs import status_label
    from evalcore.storage.store import Store, default_db_path


_EXPORTS = {"Store": "store", "default_db_path": "store", "results_frame": "frames", "status_label": "runs"}
__all__ = [
    "Store",
    "default_db_path",
    "results_frame",
    "status_label",
]
if not TYPE_CHECKING:  # hidden from mypy, which would otherwise type every unknown name as Any
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
