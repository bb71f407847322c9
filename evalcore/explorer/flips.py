"""What went wrong in a comparison's flipped cases: want vs got, or the error, for the first few of each
pair; read by key from the store, so a big run's other results are never read.

A case asked several times (samples) flips on the mean of its samples, so the sample shown is the one that
tells the change (:func:`telling_sample`): for a case that got worse, the candidate's worst sample.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalcore.analysis.decisions.compare import Comparison
    from evalcore.core.records import Result, Run
    from evalcore.storage.history import StoredRun

#: The kinds of flip where the candidate did worse than the base.
WORSE_KINDS = ("worse", "error appeared")


def flip_details(
    candidate: Run | StoredRun, comparison: Comparison, limit: int
) -> dict[tuple[str, str, str], list[str]]:
    """For the first ``limit`` flips of each pair: what the candidate got wrong (want vs got) or its error, by
    (candidate contender, dataset, case)."""
    from evalcore.storage.history import StoredRun

    details: dict[tuple[str, str, str], list[str]] = {}
    for pair in comparison.pairs:
        shown = pair.flips[:limit]
        if not shown:
            continue
        # A case can flip twice (worse, and an error appeared): its samples are read once.
        keys = list(dict.fromkeys((f.dataset, f.case) for f in shown))
        if isinstance(candidate, StoredRun):
            from evalcore.storage.lookup import load_case_results

            results = load_case_results(candidate.store, candidate.id, pair.candidate, keys)
        else:
            wanted = set(keys)
            results = [r for r in candidate.results if r.contender == pair.candidate and (r.dataset, r.case) in wanted]
        samples: dict[tuple[str, str], list[Result]] = {}
        for r in results:
            samples.setdefault((r.dataset, r.case), []).append(r)
        for flip in shown:
            key = (flip.dataset, flip.case)
            if key not in samples:
                continue
            r = telling_sample(samples[key], worst=flip.kind in WORSE_KINDS)
            lines = [f"sample {r.sample} of {len(samples[key])}"] if len(samples[key]) > 1 else []
            if r.error is not None and r.status == "error":
                lines.append(f"error ({r.error.kind}): {r.error.message}")
            else:
                lines += [_want_got(name, d) for name, d in list(r.diagnostics.items())[:5]]
            details[(pair.candidate, *key)] = lines
    return details


def telling_sample(samples: Sequence[Result], worst: bool) -> Result:
    """Of one contender's samples of one case, the one that shows a change: with ``worst``, a failed call if
    there is one, else the lowest score; otherwise the highest-scored answer (a failed call only when every
    sample failed). Ties go to the first sample."""

    def score(r: Result) -> float:
        return r.score if r.score is not None else float("-inf")

    if worst:
        return min(samples, key=lambda r: (r.status != "error", score(r), r.sample))
    return max(samples, key=lambda r: (r.status == "scored", score(r), -r.sample))


def _want_got(name: str, value: Any) -> str:
    if isinstance(value, dict) and {"want", "got"} <= set(value):
        return f"{name}: want {_short(value['want'])}, got {_short(value['got'])}"
    return f"{name}: {_short(value)}"


def _short(value: Any, width: int = 60) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"
