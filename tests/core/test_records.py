"""Records: the plain objects the engine passes around."""

from __future__ import annotations

import gc
from pathlib import Path

from evalcore.core.records import Usage
from evalcore.runfile.read import read_run_file

DEMO = Path(__file__).resolve().parents[2] / "data" / "runs" / "intake-demo.json"


def test_the_usage_of_each_result_read_from_a_run_file_is_left_out_of_the_garbage_collector():
    run = read_run_file(DEMO)
    assert run.results and not any(gc.is_tracked(r.usage) for r in run.results)


def test_a_usage_compares_and_changes_like_a_plain_record():
    usage = Usage(10, 5)
    usage.cost_usd = 0.25
    assert usage == Usage(input_tokens=10, output_tokens=5, cost_usd=0.25) and Usage().cost_usd is None
