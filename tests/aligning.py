"""A judged, rated run to align a judge on, made offline: a suite of two kinds of questions, a run of it, people's
ratings that disagree with the judge on one kind.

The contender (``fake/oracle``) answers every case with its expected answer, so a word-overlap judge passes every
reply. People fail every reply to a *returns* question (the reference states an old policy) and pass every
*shipping* one: the judge is wrong on exactly the returns half. The returns questions share most of their words
(a template), so ``fake/judge-learner`` shown a returns example grades a held-out returns question like it.
"""

from __future__ import annotations

import json
from pathlib import Path

from evalcore.core.records import Rating
from evalcore.storage.ratings import add_ratings
from evalcore.storage.store import Store

ITEMS = ["shoes", "jacket", "blender", "lamp", "kettle", "mirror", "chair", "tent", "radio", "clock"]
PLACES = ["Spain", "Norway", "Japan", "Chile", "Kenya", "Canada", "Peru", "India", "Italy", "Egypt"]

SUITE = """\
suite: align-demo
description: Two kinds of customer questions; people disagree with the judge on one kind.
adapter: chat
instructions: Answer the customer in one sentence.
scorers:
  - name: llm_judge
    options:
      model: {judge}
      rubric: Is the answer right for the customer?
      dimensions: [correct]
      reference: expected
{extra}datasets:
  tickets:
    description: Returns and shipping questions.
defaults:
  temperature: 0
run:
  samples: 1
  concurrency: 4
  max_attempts: 2
  timeout_s: 5
lineup:
  - model: fake/oracle
"""


def cases() -> list[dict[str, object]]:
    """10 returns questions (people fail their answers) and 10 shipping ones (people pass them)."""
    found: list[dict[str, object]] = []
    for i, item in enumerate(ITEMS):
        found.append(
            {
                "id": f"ret{i:02d}",
                "input": f"Can I return my {item} after {i + 20} days for a refund?",
                "expected": f"Yes, the {item} can be returned within 60 days for a full refund.",
                "metadata": {"kind": "returns"},
            }
        )
    for i, place in enumerate(PLACES):
        found.append(
            {
                "id": f"shp{i:02d}",
                "input": f"How long does delivery of parcel {i} to {place} take by express mail?",
                "expected": f"Express delivery to {place} takes three to five working days.",
                "metadata": {"kind": "shipping"},
            }
        )
    return found


def write_suite(folder: Path, judge: str = "fake/judge-learner", extra: str = "") -> Path:
    """The suite folder, judged by ``judge`` (``extra``: more YAML after the scorers, e.g. ``prices:``)."""
    (folder / "datasets" / "tickets").mkdir(parents=True, exist_ok=True)
    (folder / "evalcore.yaml").write_text(SUITE.format(judge=judge, extra=extra), encoding="utf-8")
    lines = "".join(json.dumps(c) + "\n" for c in cases())
    (folder / "datasets" / "tickets" / "cases.jsonl").write_text(lines, encoding="utf-8")
    return folder


def rate(db: Path, run_id: str, every: int = 1) -> None:
    """Store one person's rating of every reply of the run (or of every ``every``-th case): fail on returns, pass
    on shipping."""
    with Store(db) as store:
        contender = store.load_run(run_id, results=False).contenders[0].id
        kinds = {str(c["id"]): c["metadata"]["kind"] for c in cases()}  # type: ignore[index]
        ratings = [
            Rating("tickets", case, 0, contender, None, "ana", "fail" if kind == "returns" else "pass")
            for i, (case, kind) in enumerate(kinds.items())
            if i % every == 0
        ]
        add_ratings(store, run_id, ratings)


def only_run(db: Path) -> str:
    """The id of the one run in the store."""
    with Store(db) as store:
        (run,) = store.list_runs()
        return str(run["id"])


def rated_suite_run(
    folder: Path, judge: str = "fake/judge-learner", rated: bool = True, every: int = 1
) -> tuple[Path, Path, str]:
    """Write the suite, run it in this process into ``folder/evalcore.db`` and rate it (unless not ``rated``; every
    ``every``-th case): (suite, db, run id). Set ``EVALCORE_FAKE_LATENCY_SCALE=0`` first."""
    from evalcore.cli import main

    suite, db = write_suite(folder / "suite", judge), folder / "evalcore.db"
    assert main(["run", str(suite), "--db", str(db)]) == 0
    run_id = only_run(db)
    if rated:
        rate(db, run_id, every)
    return suite, db, run_id
