"""The reply cache's table: models' replies by request key, shared by everyone who uses the store.

One row per request key (:func:`evalcore.models.cache.request_key`): the model, when the reply was made, the
reply (its text and tool calls, as JSON), what the call that made it used and cost, and how often it was reused
(``hits``) and what the reuses did not pay (``saved_usd``). Errors are never stored. The same statements run on
SQLite and PostgreSQL (:mod:`evalcore.storage.postgres` translates them). What is read from and written to it
during a run is :mod:`evalcore.execution.reply_cache`'s.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

#: The table and its index (migration 0009).
SCHEMA = (
    """CREATE TABLE reply_cache (
        request_key TEXT PRIMARY KEY, model TEXT NOT NULL, created_at TEXT NOT NULL, reply TEXT NOT NULL,
        input_tokens INTEGER, output_tokens INTEGER, cost_usd REAL, latency_s REAL, attempts INTEGER NOT NULL,
        hits INTEGER NOT NULL DEFAULT 0, saved_usd REAL NOT NULL DEFAULT 0)""",
    "CREATE INDEX reply_cache_model ON reply_cache (model, created_at)",
)

_READ = """SELECT created_at, reply, input_tokens, output_tokens, cost_usd, latency_s, attempts FROM reply_cache
WHERE request_key = ? AND created_at >= ?"""
_WRITE = """INSERT OR REPLACE INTO reply_cache (request_key, model, created_at, reply, input_tokens, output_tokens,
cost_usd, latency_s, attempts, hits, saved_usd) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)"""
_HIT = "UPDATE reply_cache SET hits = hits + 1, saved_usd = saved_usd + ? WHERE request_key = ?"
_STATS = """SELECT model, COUNT(*), SUM(hits), SUM(saved_usd), SUM(cost_usd), MIN(created_at), MAX(created_at)
FROM reply_cache GROUP BY model ORDER BY model"""


@dataclass(frozen=True)
class StoredReply:
    """A row of the table, as a reply is rebuilt from it."""

    created_at: str
    text: str
    tool_calls: list[dict[str, Any]] | None
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    latency_s: float | None
    attempts: int


@dataclass(frozen=True)
class ModelStats:
    """What the cache holds of one model (``evalcore cache stats``)."""

    model: str
    entries: int
    hits: int
    saved_usd: float
    stored_usd: float
    oldest: str
    newest: str


def read_reply(conn: sqlite3.Connection, key: str, newer_than: str) -> StoredReply | None:
    """The stored reply of ``key`` made at ``newer_than`` or later (an RFC 3339 time; ``""`` for any age)."""
    row = conn.execute(_READ, (key, newer_than)).fetchone()
    if row is None:
        return None
    created_at, reply, tokens_in, tokens_out, cost, latency, attempts = row
    body = json.loads(reply)
    return StoredReply(created_at, body["text"], body.get("tool_calls"), tokens_in, tokens_out, cost, latency, attempts)


def count_hit(conn: sqlite3.Connection, key: str, saved_usd: float) -> None:
    """Count one reuse of ``key``'s reply, which did not pay ``saved_usd``."""
    conn.execute(_HIT, (saved_usd, key))


def write_reply(conn: sqlite3.Connection, key: str, model: str, reply: StoredReply) -> None:
    """Store (or replace, when it was too old to use) the reply of ``key``."""
    body = json.dumps({"text": reply.text, "tool_calls": reply.tool_calls}, ensure_ascii=False)
    values = (reply.input_tokens, reply.output_tokens, reply.cost_usd, reply.latency_s, reply.attempts)
    conn.execute(_WRITE, (key, model, reply.created_at, body, *values))


def reply_stats(conn: sqlite3.Connection) -> list[ModelStats]:
    """What the cache holds, per model."""
    return [
        ModelStats(model, int(n), int(hits or 0), float(saved or 0.0), float(stored or 0.0), oldest, newest)
        for model, n, hits, saved, stored, oldest, newest in conn.execute(_STATS).fetchall()
    ]


def clear_replies(conn: sqlite3.Connection, older_than: str | None = None, model: str | None = None) -> int:
    """Delete stored replies (those made before ``older_than``, of ``model``, when given); how many."""
    where, params = ["1 = 1"], []
    if older_than is not None:
        where.append("created_at < ?")
        params.append(older_than)
    if model is not None:
        where.append("model = ?")
        params.append(model)
    cursor = conn.execute(f"DELETE FROM reply_cache WHERE {' AND '.join(where)}", params)
    return int(cursor.rowcount)
