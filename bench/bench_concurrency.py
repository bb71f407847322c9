"""2. Concurrency efficiency: 2,000 cases at 50 ms simulated latency, concurrency 50.

Run: ``python bench/bench_concurrency.py``.

Every call sleeps exactly 50 ms (``asyncio.sleep``), so 2,000 calls 50 at a time take 2.0 s at best.
evalcore: ``run_suite`` of a loaded and planned suite (header stored, every call made, every result
scored and stored). Baseline: that ideal wall time, and a bare ``asyncio`` run of the same sleeps
(50 workers over 2,000 items) for how close Python itself gets. Target: ideal / evalcore >= 0.93.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import arguments, note, report, write_suite

LATENCY_S = 0.05
TARGET = 0.93


class SleepProvider:
    """A fake model that takes exactly ``LATENCY_S`` per call and answers the expected answer."""

    def refusal(self, model: str, settings: dict[str, Any]) -> str | None:
        return None

    def missing_keys(self, model: str, api_base: str | None) -> list[str]:
        return []

    async def complete(self, request: Any) -> Any:
        from evalcore.core.records import Usage
        from evalcore.models.types import Reply

        await asyncio.sleep(LATENCY_S)
        return Reply(text=json.dumps(request.case.expected), usage=Usage(120, 40, 0.0002), latency_s=LATENCY_S)


def bare(n: int, concurrency: int) -> float:
    async def worker(items) -> None:  # noqa: ANN001
        for _ in items:
            await asyncio.sleep(LATENCY_S)

    async def main() -> None:
        items = iter(range(n))
        await asyncio.gather(*(worker(items) for _ in range(concurrency)))

    start = time.perf_counter()
    asyncio.run(main())
    return time.perf_counter() - start


def main() -> None:
    args = arguments(__doc__, cases=2000, concurrency=50)

    from evalcore.execution.plan import RunOptions, make_plan
    from evalcore.execution.runner import run_suite
    from evalcore.models.registry import register_provider
    from evalcore.storage.store import Store
    from evalcore.suite.lineup import Overrides
    from evalcore.suite.loader import load_suite

    register_provider("bench/", SleepProvider())
    n, c = args.cases, args.concurrency
    ideal = n / c * LATENCY_S
    with tempfile.TemporaryDirectory() as tmp:
        suite = load_suite(write_suite(Path(tmp) / "suite", n))
        plan = make_plan(suite, RunOptions(concurrency=c, overrides=Overrides(models=["bench/sleep50"])))
        Store(Path(tmp) / "warm.db").close()  # the first store of a process applies migrations: not timed
        best = float("inf")
        for i in range(3):
            with Store(Path(tmp) / f"db-{i}.db") as store:
                start = time.perf_counter()
                _, status = run_suite(plan, store)
                best = min(best, time.perf_counter() - start)
                assert status == "completed", status
    floor = min(bare(n, c) for _ in range(3))
    report(
        f"concurrency ({n:,} cases x {LATENCY_S * 1000:.0f} ms, concurrency {c})",
        f"evalcore {best:.3f} s = {ideal / best:.3f} of ideal",
        f"ideal {ideal:.3f} s",
        ideal / best,
        f">= {TARGET}",
        ideal / best >= TARGET,
    )
    note("concurrency floor", f"bare asyncio of the same sleeps {floor:.3f} s = {ideal / floor:.3f} of ideal")


if __name__ == "__main__":
    main()
