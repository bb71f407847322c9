"""``evalcore cache``: what the store's reply cache holds, and clearing it; the cache flags of ``evalcore run``.

- ``evalcore cache stats``: per model, the replies stored, how often they were reused and what the reuses did
  not pay, and the oldest and newest.
- ``evalcore cache clear [--older-than AGE] [--model MODEL]``: delete stored replies.

Exit 0 on success, 2 on a user error (an unknown action, a bad age, no store there).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from evalcore.cli._shared import add_db, open_store, table

if TYPE_CHECKING:
    from evalcore.storage.store import Store


def cache_age(text: str) -> float:
    """An argparse type: seconds of ``90s``, ``15m``, ``12h``, ``7d``, ``2w`` or a plain number of seconds."""
    from evalcore.execution.reply_cache import parse_age

    try:
        return parse_age(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_run_cache(p: argparse.ArgumentParser) -> None:
    """``--cache/--no-cache`` and ``--cache-max-age`` of ``evalcore run`` (``docs/cache.md``)."""
    p.add_argument(
        "--cache",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="reuse the store's reply cache: a call identical to a stored one (model, settings, messages, tools, "
        "sample) takes its reply and pays nothing; new replies are stored (default: the suite's run.cache, "
        "else off; --no-cache asks every model)",
    )
    p.add_argument(
        "--cache-max-age",
        type=cache_age,
        metavar="AGE",
        help="with --cache: reuse no reply older than this (90s, 15m, 12h, 7d, 2w); an older one is asked again "
        "and replaced",
    )


def add_cache(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["stats", "clear"], help="stats: what the cache holds; clear: delete replies")
    p.add_argument("--older-than", type=cache_age, metavar="AGE", help="clear: only replies older than this (7d …)")
    p.add_argument("--model", help="clear: only this model's replies")
    add_db(p)


def cmd_cache(args: argparse.Namespace) -> int:
    from evalcore.core.errors import ConfigError

    store = open_store(args)
    try:
        if args.action == "stats":
            if args.older_than is not None or args.model is not None:
                raise ConfigError("--older-than and --model choose what `evalcore cache clear` deletes; drop them")
            return _stats(store)
        return _clear(store, args.older_than, args.model)
    finally:
        store.close()


def _stats(store: Store) -> int:
    from evalcore.storage.replies import reply_stats

    with store.transaction("DEFERRED") as conn:
        found = reply_stats(conn)
    if not found:
        print(f"the reply cache of {store.location} is empty (evalcore run --cache fills it)")
        return 0
    rows = [
        [s.model, s.entries, s.hits, f"${s.saved_usd:.6f}", f"${s.stored_usd:.6f}", s.oldest[:19], s.newest[:19]]
        for s in found
    ]
    print(table(rows, ["model", "replies", "reused", "not paid", "stored cost", "oldest", "newest"]))
    return 0


def _clear(store: Store, older_than: float | None, model: str | None) -> int:
    from evalcore.execution.reply_cache import ago
    from evalcore.storage.replies import clear_replies

    with store.transaction() as conn:
        gone = clear_replies(conn, None if older_than is None else ago(older_than), model)
    print(f"deleted {gone} cached repl{'y' if gone == 1 else 'ies'} from {store.location}", file=sys.stderr)
    return 0


COMMANDS = {
    "cache": (
        add_cache,
        cmd_cache,
        "the reply cache in the store (evalcore run --cache): what it holds per model, or clear it",
        "evalcore cache stats",
    ),
}
