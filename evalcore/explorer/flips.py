"""What went wrong in a comparison's flipped cases: want vs got, or the error, for the first few of each
pair; read by key from the store, so a big run's other results are never read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalcore.analysis.compare import Comparison
    from evalcore.analysis.stored import StoredRun
    from evalcore.core.records import Run


def flip_details(candidate: Run | StoredRun, comparison: Comparison, limit: int) -> dict[tuple[str, str], list[str]]:
    """For the first ``limit`` flips of each pair: what the candidate got wrong (want vs got) or its error."""
    from evalcore.analysis.stored import StoredRun

    details: dict[tuple[str, str], list[str]] = {}
    for pair in comparison.pairs:
        wanted = {(f.dataset, f.case) for f in pair.flips[:limit]}
        if not wanted:
            continue
        if isinstance(candidate, StoredRun):
            from evalcore.storage.lookup import load_results

            keys = [(f.dataset, f.case) for f in pair.flips[:limit]]
            results = load_results(candidate.store, candidate.id, pair.candidate, keys)
        else:
            results = [r for r in candidate.results if r.contender == pair.candidate]
        for r in results:
            key = (r.dataset, r.case)
            if key not in wanted or r.sample != 0:
                continue
            if r.error is not None and r.status == "error":
                details[key] = [f"error ({r.error.kind}): {r.error.message}"]
            else:
                details[key] = [_want_got(name, d) for name, d in list(r.diagnostics.items())[:5]]
    return details


def _want_got(name: str, value: Any) -> str:
    if isinstance(value, dict) and {"want", "got"} <= set(value):
        return f"{name}: want {_short(value['want'])}, got {_short(value['got'])}"
    return f"{name}: {_short(value)}"


def _short(value: Any, width: int = 60) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"
