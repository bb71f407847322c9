"""The reply cache's table, on SQLite and PostgreSQL: a reply stored and read back, its age, its reuses counted,
the stats per model, and clearing."""

from __future__ import annotations

from evalcore.storage.replies import StoredReply, clear_replies, count_hit, read_reply, reply_stats, write_reply
from evalcore.storage.store import Store

CALLS = [{"id": "c1", "name": "lookup", "arguments": '{"q": "ü"}'}]


def reply(created_at: str, cost: float | None = 0.002) -> StoredReply:
    return StoredReply(created_at, "Bonjour ✓", CALLS, 12, 3, cost, 0.5, 2)


def test_a_stored_reply_reads_back_whole_unless_it_is_too_old(store_location: str) -> None:
    with Store(store_location) as store:
        with store.transaction() as conn:
            write_reply(conn, "k.0", "openai/m", reply("2026-12-01T10:00:00.000Z"))
        with store.transaction("DEFERRED") as conn:
            assert read_reply(conn, "k.0", "") == reply("2026-12-01T10:00:00.000Z")
            assert read_reply(conn, "k.0", "2026-12-02T00:00:00.000Z") is None
            assert read_reply(conn, "k.1", "") is None


def test_reuses_are_counted_per_model_and_clear_deletes_by_age_and_model(store_location: str) -> None:
    with Store(store_location) as store:
        with store.transaction() as conn:
            write_reply(conn, "a.0", "openai/a", reply("2026-01-01T00:00:00.000Z"))
            write_reply(conn, "a.1", "openai/a", reply("2026-12-01T00:00:00.000Z", None))
            write_reply(conn, "b.0", "openai/b", reply("2026-12-01T00:00:00.000Z"))
            count_hit(conn, "a.0", 0.002)
            count_hit(conn, "a.0", 0.002)
        with store.transaction("DEFERRED") as conn:
            (a, b) = reply_stats(conn)
        assert (a.model, a.entries, a.hits, a.saved_usd, a.stored_usd) == ("openai/a", 2, 2, 0.004, 0.002)
        assert (b.model, b.entries, b.hits, a.oldest, a.newest) == ("openai/b", 1, 0, "2026-01-01T00:00:00.000Z",
                                                                    "2026-12-01T00:00:00.000Z")  # fmt: skip
        with store.transaction() as conn:
            assert clear_replies(conn, older_than="2026-06-01T00:00:00.000Z") == 1
            assert clear_replies(conn, model="openai/b") == 1
            assert clear_replies(conn) == 1
