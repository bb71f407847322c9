"""A plain run (no trackers, budget, race, judges or agents) runs none of their code per case; a run of text
cases builds no image parts."""

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
#: What a case's images cost, paid only by a case that has some.
_IMAGES = (str(ROOT / "core/images.py"),)
_IMAGE_PARTS = frozenset({"image_parts", "data_url"})


def _calls_into(
    tmp_path: Path, n_cases: int, files: tuple[str, ...] = _OFF, names: frozenset[str] | None = None
) -> Counter[str]:
    """The calls into the functions of ``files`` (those named ``names``, when given) during a plain run of
    ``n_cases`` text cases, in every thread."""
    cases = {
        f"c/{i:03d}": (f"Ann wants kind a, {i} units.", {"name": "Ann", "kind": "a", "count": i, "amount": None,
                                                          "urgent": None, "tags": None})
        for i in range(n_cases)
    }  # fmt: skip
    root = write_suite(tmp_path / f"suite-{n_cases}", {"lineup": [{"model": "fake/oracle"}]}, cases)
    plan = make_plan(load_suite(root), RunOptions())
    calls: Counter[str] = Counter()

    def count(frame, event, arg):  # noqa: ANN001, ARG001 - the profiler's signature
        code = frame.f_code
        if event == "call" and code.co_filename.startswith(files) and (names is None or code.co_name in names):
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
    few, many = _calls_into(tmp_path, 4), _calls_into(tmp_path, 40)
    per_case = {name: (few[name], many[name]) for name in few.keys() | many.keys() if few[name] != many[name]}
    assert per_case == {}


def test_a_run_of_text_cases_builds_no_image_parts(tmp_path):
    assert _calls_into(tmp_path, 4, _IMAGES, _IMAGE_PARTS) == Counter()
