"""Several workers, one run (``evalcore run --resume RUN --worker``): four worker processes against one, on the
fake models with latency, sharing a PostgreSQL store.

Run: ``python bench/bench_workers.py [--cases 200] [--latency 0.25] [--url postgresql://…]``. Without ``--url``
a throwaway PostgreSQL server is started from Debian's binaries (as the tests start one) and stopped at the end.

Each measurement creates a new run (2 contenders: fake/oracle and fake/guesser; ``--cases`` cases; 4 cases in
flight per contender per worker) and times, from launch to the last exit, one worker process, then four
(separate processes, as four machines would be). The time includes each process's start (imports, resuming
the run's plan) and the leaderboard each prints at the end; the ratio of four workers' time to one's should
be close to 1/4 when the model calls dominate.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _common import note, postgres_url  # noqa: E402

from evalcore.execution.plan import RunOptions, make_plan  # noqa: E402
from evalcore.execution.runner import start_run  # noqa: E402
from evalcore.storage.store import Store  # noqa: E402
from evalcore.suite.loader import Suite, load_suite  # noqa: E402
from tests.suites import CASES, write_suite  # noqa: E402


def bench_suite(folder: Path, n_cases: int) -> Suite:
    """A suite of ``n_cases`` cases, two fake contenders, four cases in flight per contender."""
    text, expected = CASES["complete/001"]
    cases = {f"complete/{i:04d}": (text, expected) for i in range(n_cases)}
    config = {
        "run": {"max_attempts": 1, "backoff_s": 0, "concurrency": 4, "parallelism": 2},
        "lineup": [{"model": "fake/oracle"}, {"model": "fake/guesser"}],
    }
    return load_suite(write_suite(folder, config, cases))


def workers_time(url: str, suite: Suite, calls: int, n_workers: int, latency: float) -> tuple[float, float]:
    """Seconds from launching ``n_workers`` worker processes on a new run (of ``calls`` calls) to the last one's
    exit, and of those the calling phase (the first call's start to the last call's end, from the stored
    results); checks that the run completed with every result stored."""
    with Store(url) as store:
        run_id = start_run(make_plan(suite, RunOptions()), store).info.id
    argv = [sys.executable, "-m", "evalcore", "run", "--resume", run_id, "--worker", "--db", url, "--quiet"]
    env = {**os.environ, "EVALCORE_FAKE_LATENCY_SCALE": str(latency), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    start = time.perf_counter()
    workers = [subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL) for _ in range(n_workers)]
    codes = [w.wait() for w in workers]
    seconds = time.perf_counter() - start
    if any(codes):
        sys.exit(f"a worker failed: exit codes {codes}")
    with Store(url) as store:
        run = store.load_run(run_id)
        stored = store.result_counts(run_id)
    if run.info.status != "completed" or sum(n for n, _ in stored.values()) != calls:
        sys.exit(f"run {run_id} ended {run.info.status} with {stored}: not every result stored")
    starts = [datetime.fromisoformat(r.started_at).timestamp() for r in run.results if r.started_at]
    ends = [datetime.fromisoformat(r.started_at).timestamp() + (r.latency_s or 0) for r in run.results if r.started_at]
    return seconds, max(ends) - min(starts)


def main() -> None:
    """Print one worker's time, four workers' time, and their ratio."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.25, help="EVALCORE_FAKE_LATENCY_SCALE (1 = realistic)")
    parser.add_argument("--url", help="a PostgreSQL store to use (runs are added to it); default: a throwaway one")
    args = parser.parse_args()
    with postgres_url(args.url) as url:
        with tempfile.TemporaryDirectory() as tmp:
            suite = bench_suite(Path(tmp) / "suite", args.cases)
            calls = 2 * args.cases
            one, one_calls = workers_time(url, suite, calls, 1, args.latency)
            note(
                "one worker", f"{one:.2f} s, calling {one_calls:.2f} s ({calls} calls, latency scale {args.latency:g})"
            )
            four, four_calls = workers_time(url, suite, calls, 4, args.latency)
            note(
                "four workers",
                f"{four:.2f} s, calling {four_calls:.2f} s; {four / one:.2f}× one worker's time, "
                f"{four_calls / one_calls:.2f}× its calling time (ideal 0.25)",
            )


if __name__ == "__main__":
    main()
