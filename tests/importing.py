"""Shared helpers for the import tests: where the fixtures live, and a leaderboard's counts of a run."""

from __future__ import annotations

from pathlib import Path

from evalcore.core import records

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PROMPTFOO = FIXTURES / "promptfoo"
INSPECT = FIXTURES / "inspect"
LM_EVAL = FIXTURES / "lm_eval"
OTLP = FIXTURES / "otlp"
EEE = FIXTURES / "eee"
#: Every file the tools wrote or the older layouts (hand-written) take, with the kind each one is.
PROMPTFOO_FILES = sorted(p for p in PROMPTFOO.rglob("*.json") if "make" not in p.parts)
INSPECT_FILES = sorted(p for p in INSPECT.rglob("*") if p.suffix in (".json", ".eval") and "make" not in p.parts)


def leaderboard_counts(run: records.Run) -> dict[str, int]:
    """Passes, failures and errors as the leaderboard of the run gives them (summed over its contenders):
    passes are the scored results counted by the mean of a 0/1 primary metric."""
    from evalcore.analysis.ranking.leaderboard import leaderboard
    from evalcore.storage.frames import results_frame

    table = leaderboard(results_frame(run), run.metrics, ci=False)
    scored = int(table["scored"].sum())
    passes = int(round(sum(row.score * row.scored for row in table.itertuples() if row.scored)))
    return {"passes": passes, "failures": scored - passes, "errors": int(table["errors"].sum()), "scored": scored}
