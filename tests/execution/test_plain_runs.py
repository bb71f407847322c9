"""A plain run (no trackers, budget, race, judges or agents) runs none of their code per case."""

import sys
import threading
from collections import Counter
from pathlib import Path

from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import run_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import write_suite

ROOT = Path(__file__).resolve().parents[2] / "evalcore"
#: The code of the features a plain run leaves off: none of it may run once per case.
OFF_FEATURES = (
    "trackers/",
    "execution/budget.py",
    "models/metering.py",
    "execution/adaptive.py",
    "analysis/stats/racing.py",
    "execution/judge_calls.py",
    "execution/pairwise.py",
    "scoring/judge.py",
    "scoring/judge_prompt.py",
    "scoring/agent_adapter.py",
    "scoring/agent_tools.py",
)
_OFF = tuple(str(ROOT / part) for part in OFF_FEATURES)


def _calls_into_off_features(tmp_path: Path, n_cases: int) -> Counter[str]:
    """The calls into each off feature's functions during a plain run of ``n_cases`` cases, in every thread."""
    cases = {
        f"c/{i:03d}": (f"Ann wants kind a, {i} units.", {"name": "Ann", "kind": "a", "count": i, "amount": None,
                                                          "urgent": None, "tags": None})
        for i in range(n_cases)
    }  # fmt: skip
    root = write_suite(tmp_path / f"suite-{n_cases}", {"lineup": [{"model": "fake/oracle"}]}, cases)
    plan = make_plan(load_suite(root), RunOptions())
    calls: Counter[str] = Counter()

    def count(frame, event, arg):  # noqa: ANN001, ARG001 - the profiler's signature
        if event == "call" and frame.f_code.co_filename.startswith(_OFF):
            calls[f"{frame.f_code.co_filename[len(str(ROOT)) + 1 :]}:{frame.f_code.co_name}"] += 1

    with Store(tmp_path / f"db-{n_cases}.sqlite") as store:
        threading.setprofile(count)
        sys.setprofile(count)
        try:
            _, status = run_suite(plan, store)
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]
    assert status == "completed"
    return calls


def test_a_plain_run_calls_no_tracker_race_budget_judge_or_agent_code_per_case(tmp_path):
    few, many = _calls_into_off_features(tmp_path, 4), _calls_into_off_features(tmp_path, 40)
    per_case = {name: (few[name], many[name]) for name in few.keys() | many.keys() if few[name] != many[name]}
    assert per_case == {}
