"""The store's schema, as numbered sqlite-utils migrations.

Tables (deleting a run cascades to the rest)::

    runs        id, suite, created_at, finished_at, status, weights, settings, provenance, metrics, refused
    run_totals  run_id, results, errors, costs, cost_usd, changes (kept by triggers on results)
    summaries   (run_id, kind), changes, data
    baselines   suite, run_id, contender, pinned_at (the run a suite's gate compares with)
    pairwise    UNIQUE (run_id, dataset, case, sample, a, b), outcome, judge, orders, calls, … (evalcore.storage.pairs)
    ratings     UNIQUE (run_id, dataset, case, sample, a, b, rater), verdict, scores, … (evalcore.storage.ratings)
    reply_cache request_key, model, created_at, reply, tokens, cost_usd, … (evalcore.storage.replies; no run's)
    proposals   id, suite, dataset, source, case, generator, status, … (evalcore.storage.proposals; no run's)
    contenders  (run_id, id), model, settings, position
    cases       (run_id, dataset, id), variant, input, expected, metadata, position
    results     UNIQUE (run_id, contender, dataset, case, sample), contender_pos, case_pos, status,
                score, …, numbers, metrics, …, output, raw, trace

JSON columns hold canonical JSON text; ``position`` keeps the run's order of contenders and cases,
and each result repeats its contender's and case's (``contender_pos``, ``case_pos``). ``numbers``
packs a result's row of the results frame (:func:`evalcore.storage.packed.row_dtype`): a copy of the
columns beside it, written with them, read in bulk by :func:`evalcore.storage.packed.read_frame_parts`.

sqlite-utils imports pandas and numpy as soon as it is imported, when they are installed, so
:func:`migrations` imports it only when called: a store whose schema is current never calls it.
"""

from __future__ import annotations

import json
import sqlite3
from functools import cache
from typing import TYPE_CHECKING

from evalcore.core import records
from evalcore.storage import pairs, proposals, ratings, replies
from evalcore.storage.rows import RESULT_FIELDS, numbers, numbers_struct

if TYPE_CHECKING:
    import sqlite_utils

MIGRATION_SET = "evalcore"
#: The migrations in order; :func:`migrations` registers one function per name.
MIGRATION_NAMES = (
    "0001_initial",
    "0002_position_indexes",
    "0003_result_numbers",
    "0004_summaries",
    "0005_baselines",
    "0006_pairwise",
    "0007_ratings",
    "0008_result_trace",
    "0009_reply_cache",
    "0010_proposals",
)


@cache
def migrations() -> sqlite_utils.Migrations:
    """The store's schema as numbered sqlite-utils migrations (imports sqlite-utils, hence pandas)."""
    import sqlite_utils

    steps = sqlite_utils.Migrations(MIGRATION_SET)

    @steps(name="0001_initial")
    def _m0001_initial(db: sqlite_utils.Database) -> None:
        for statement in SCHEMA_V1:
            db.execute(statement)

    @steps(name="0002_position_indexes")
    def _m0002_position_indexes(db: sqlite_utils.Database) -> None:
        # Covering indexes: the frame query turns each result's names into positions without
        # a second lookup into the contenders and cases tables.
        db.execute("CREATE INDEX contenders_position ON contenders (run_id, id, position)")
        db.execute("CREATE INDEX cases_position ON cases (run_id, dataset, id, position)")

    @steps(name="0003_result_numbers")
    def _m0003_result_numbers(db: sqlite_utils.Database) -> None:
        # Each result carries its contender's and case's positions, and its numbers packed as one
        # blob (see rows.numbers): the frame is then read with no join and no Python object per value,
        # and the covering indexes of 0002 have nothing left to cover. SQLite adds columns only at
        # the end of a row, after the big text; a rebuild puts them up front. run_totals (kept by
        # triggers) lets list_runs skip scanning every result.
        db.execute(SCHEMA_V3_RESULTS.replace("CREATE TABLE results", "CREATE TABLE results_v3"))
        moved = [f for f in RESULT_FIELDS if f not in ("contender_pos", "case_pos", "numbers", "trace")]  # trace: 0008
        db.execute(f"""INSERT INTO results_v3 ({", ".join(moved)}, contender_pos, case_pos, numbers)
            SELECT {", ".join("r." + f for f in moved)}, ct.position, c.position, x''
            FROM results r JOIN contenders ct ON ct.run_id = r.run_id AND ct.id = r.contender
            JOIN cases c ON c.run_id = r.run_id AND c.dataset = r.dataset AND c.id = r."case" """)
        db.execute("DROP TABLE results")
        db.execute("ALTER TABLE results_v3 RENAME TO results")
        db.execute("DROP INDEX contenders_position")
        db.execute("DROP INDEX cases_position")
        for statement in SCHEMA_RUN_TOTALS:
            db.execute(statement)
        for run_id, metrics in db.execute("SELECT id, metrics FROM runs").fetchall():
            _backfill_numbers(db.conn, run_id, [m["name"] for m in json.loads(metrics)])

    @steps(name="0004_summaries")
    def _m0004_summaries(db: sqlite_utils.Database) -> None:
        # run_totals.changes counts every insert and delete of a run's results (a REPLACE is both), so
        # a summary computed from the results as they were at one count is valid while it holds.
        db.execute("ALTER TABLE run_totals ADD COLUMN changes INTEGER NOT NULL DEFAULT 0")
        db.execute("DROP TRIGGER results_totals_insert")
        db.execute("DROP TRIGGER results_totals_delete")
        for statement in _SUMMARIES:
            db.execute(statement)

    @steps(name="0005_baselines")
    def _m0005_baselines(db: sqlite_utils.Database) -> None:
        # The run (and contender) a suite's gate compares with; unpinned when the run is deleted.
        db.execute(SCHEMA_BASELINES)

    @steps(name="0006_pairwise")
    def _m0006_pairwise(db: sqlite_utils.Database) -> None:
        # A suite's pairwise judge compares two contenders' results: its verdicts belong to no one result.
        for statement in pairs.SCHEMA:
            db.execute(statement)

    @steps(name="0007_ratings")
    def _m0007_ratings(db: sqlite_utils.Database) -> None:
        # People's ratings, like the pairwise verdicts, belong to a run's replies and to no one result.
        for statement in ratings.SCHEMA:
            db.execute(statement)

    @steps(name="0008_result_trace")
    def _m0008_result_trace(db: sqlite_utils.Database) -> None:
        # An agent's steps; at the row's end, after the other big text, where SQLite adds a column anyway.
        db.execute(SCHEMA_TRACE)

    @steps(name="0009_reply_cache")
    def _m0009_reply_cache(db: sqlite_utils.Database) -> None:
        # Models' replies by request, reused across runs and suites (evalcore run --cache); no run owns them.
        for statement in replies.SCHEMA:
            db.execute(statement)

    @steps(name="0010_proposals")
    def _m0010_proposals(db: sqlite_utils.Database) -> None:
        # Cases a model proposed for a dataset, waiting for a person; they belong to a suite, not to a run.
        for statement in proposals.SCHEMA:
            db.execute(statement)

    return steps


def applied_names(conn: sqlite3.Connection) -> list[str]:
    """The names of the migrations applied to the database, in order; read without sqlite-utils."""
    try:
        rows = conn.execute(
            "SELECT name FROM _sqlite_migrations WHERE migration_set = ? ORDER BY rowid", (MIGRATION_SET,)
        )
    except sqlite3.OperationalError:  # a new file: no migrations table yet
        return []
    return [row[0] for row in rows]


def _backfill_numbers(conn: sqlite3.Connection, run_id: str, metrics: list[str]) -> None:
    """Pack the numbers of a run's results stored before migration 0003."""
    pack = numbers_struct(len(metrics)).pack
    rows = conn.execute(
        "SELECT rowid, contender_pos, case_pos, sample, status, error_kind, score, metrics, cost_usd, latency_s, "
        "input_tokens, output_tokens FROM results WHERE run_id = ?",
        (run_id,),
    ).fetchall()
    updates = []
    for rowid, contender, case, sample, status, kind, score, values, cost, latency, tokens_in, tokens_out in rows:
        usage = records.Usage(tokens_in, tokens_out, cost)
        result = records.Result(
            "",
            "",
            "",
            sample,
            status,
            score,
            json.loads(values),
            latency_s=latency,
            usage=usage,
            error=records.ErrorInfo(kind, "") if kind is not None else None,
        )
        updates.append((numbers(pack, contender, case, result, metrics), rowid))
    conn.executemany("UPDATE results SET numbers = ? WHERE rowid = ?", updates)


# In results, keys and numbers come first and the big text (output, raw) last: the frame query
# then reads each row's head without touching its overflow pages.
SCHEMA_V1 = (
    """CREATE TABLE runs (
        id TEXT PRIMARY KEY, suite TEXT NOT NULL, created_at TEXT NOT NULL, finished_at TEXT,
        status TEXT NOT NULL, weights TEXT NOT NULL, settings TEXT NOT NULL, provenance TEXT NOT NULL,
        metrics TEXT NOT NULL, refused TEXT NOT NULL)""",
    "CREATE INDEX runs_created_at ON runs (created_at)",
    """CREATE TABLE contenders (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, id TEXT NOT NULL,
        model TEXT NOT NULL, settings TEXT NOT NULL, position INTEGER NOT NULL,
        PRIMARY KEY (run_id, id))""",
    """CREATE TABLE cases (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, dataset TEXT NOT NULL,
        id TEXT NOT NULL, variant TEXT NOT NULL, input TEXT NOT NULL, expected TEXT,
        metadata TEXT NOT NULL, position INTEGER NOT NULL,
        PRIMARY KEY (run_id, dataset, id))""",
    """CREATE TABLE results (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, contender TEXT NOT NULL,
        dataset TEXT NOT NULL, "case" TEXT NOT NULL, sample INTEGER NOT NULL, status TEXT NOT NULL,
        score REAL, error_kind TEXT, cost_usd REAL, latency_s REAL, input_tokens INTEGER,
        output_tokens INTEGER, attempts INTEGER NOT NULL, started_at TEXT, metrics TEXT NOT NULL,
        error_message TEXT, diagnostics TEXT NOT NULL, output TEXT, raw TEXT,
        UNIQUE (run_id, contender, dataset, "case", sample))""",
)

#: results since migration 0003: positions after the key, ``numbers`` (see :func:`~evalcore.storage.rows.numbers`)
#: before the text.
SCHEMA_V3_RESULTS = """CREATE TABLE results (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, contender TEXT NOT NULL,
    dataset TEXT NOT NULL, "case" TEXT NOT NULL, sample INTEGER NOT NULL, contender_pos INTEGER NOT NULL,
    case_pos INTEGER NOT NULL, status TEXT NOT NULL, score REAL, error_kind TEXT, cost_usd REAL, latency_s REAL,
    input_tokens INTEGER, output_tokens INTEGER, attempts INTEGER NOT NULL, started_at TEXT,
    numbers BLOB NOT NULL, metrics TEXT NOT NULL, error_message TEXT, diagnostics TEXT NOT NULL, output TEXT,
    raw TEXT, UNIQUE (run_id, contender, dataset, "case", sample))"""

#: Per-run totals of results, kept by triggers on every insert and delete (a REPLACE is both, with
#: ``recursive_triggers`` on), so listing the runs never scans the results.
SCHEMA_RUN_TOTALS = (
    """CREATE TABLE run_totals (
        run_id TEXT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE, results INTEGER NOT NULL,
        errors INTEGER NOT NULL, costs INTEGER NOT NULL, cost_usd REAL NOT NULL)""",
    """INSERT INTO run_totals SELECT run_id, COUNT(*), SUM(status = 'error'), COUNT(cost_usd),
        COALESCE(SUM(cost_usd), 0) FROM results GROUP BY run_id""",
    """CREATE TRIGGER results_totals_insert AFTER INSERT ON results BEGIN
        INSERT INTO run_totals VALUES (NEW.run_id, 1, NEW.status = 'error', NEW.cost_usd IS NOT NULL,
            COALESCE(NEW.cost_usd, 0))
        ON CONFLICT (run_id) DO UPDATE SET results = results + 1, errors = errors + excluded.errors,
            costs = costs + excluded.costs, cost_usd = cost_usd + excluded.cost_usd;
    END""",
    """CREATE TRIGGER results_totals_delete AFTER DELETE ON results BEGIN
        UPDATE run_totals SET results = results - 1, errors = errors - (OLD.status = 'error'),
            costs = costs - (OLD.cost_usd IS NOT NULL), cost_usd = cost_usd - COALESCE(OLD.cost_usd, 0)
        WHERE run_id = OLD.run_id;
    END""",
)

#: Migration 0004's summaries table.
SCHEMA_SUMMARIES = """CREATE TABLE summaries (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, kind TEXT NOT NULL,
    changes INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (run_id, kind))"""

#: Migration 0008's column of an agent's steps.
SCHEMA_TRACE = "ALTER TABLE results ADD COLUMN trace TEXT"

#: Migration 0005's baselines table.
SCHEMA_BASELINES = (
    "CREATE TABLE baselines (suite TEXT PRIMARY KEY, run_id TEXT NOT NULL REFERENCES runs(id) "
    "ON DELETE CASCADE, contender TEXT NOT NULL, pinned_at TEXT NOT NULL)"
)

#: Since migration 0004: run_totals counts its run's changes, and summaries keep what a page computes
#: from a run's results (a leaderboard's aggregates and bootstrap resamples), with the count it saw.
_SUMMARIES = (
    """CREATE TRIGGER results_totals_insert AFTER INSERT ON results BEGIN
        INSERT INTO run_totals VALUES (NEW.run_id, 1, NEW.status = 'error', NEW.cost_usd IS NOT NULL,
            COALESCE(NEW.cost_usd, 0), 1)
        ON CONFLICT (run_id) DO UPDATE SET results = results + 1, errors = errors + excluded.errors,
            costs = costs + excluded.costs, cost_usd = cost_usd + excluded.cost_usd, changes = changes + 1;
    END""",
    """CREATE TRIGGER results_totals_delete AFTER DELETE ON results BEGIN
        UPDATE run_totals SET results = results - 1, errors = errors - (OLD.status = 'error'),
            costs = costs - (OLD.cost_usd IS NOT NULL), cost_usd = cost_usd - COALESCE(OLD.cost_usd, 0),
            changes = changes + 1
        WHERE run_id = OLD.run_id;
    END""",
    SCHEMA_SUMMARIES,
)
