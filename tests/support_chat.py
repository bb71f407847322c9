"""A run of the bundled ``support-chat`` suite (two conversation judges) in a store, every conversation rated by one
person on the Rate page's rubric: one score per judge's dimension."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.cli import main
from evalcore.core.records import Rating, Run
from evalcore.explorer import rating
from evalcore.storage.ratings import add_ratings, load_ratings
from evalcore.storage.store import Store

SUITE = Path(__file__).resolve().parents[1] / "data" / "suites" / "support-chat"


def rated_support_chat(db: Path, scores: dict[str, float]) -> tuple[Run, list[Rating]]:
    """A support-chat run stored in ``db`` with ``ana``'s ``scores`` on every conversation, and its ratings as
    stored."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
        assert main(["run", str(SUITE), "--db", str(db), "--quiet"]) == 0
    with Store(db) as store:
        (run_id,) = [r["id"] for r in store.list_runs()]
        run = store.load_run(run_id)
        queue = rating.rating_queue(run, "ana", "single", size=500)
        add_ratings(store, run_id, [rating.single_rating(item, "ana", "", scores) for item in queue])
        return run, load_ratings(store, run_id)
