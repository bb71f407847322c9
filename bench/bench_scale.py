"""7. Scale: how the runner's cost per case and its memory grow from 1x to 10x and 100x the work.

Run: ``python bench/bench_scale.py [--skip-largest]``.

Each size runs in a fresh process, the same end-to-end path as ``bench_runner.py`` (load a
``cases.jsonl`` suite, plan, run at concurrency 50, store every result), after a 10-case run that
imports everything and migrates a first store; it measures microseconds per result and the
process's peak memory. Cases: 2,000, 20,000 and 200,000 with one contender; contenders: 1, 10 and
100 over 2,000 cases. Baseline: the 1x run of each series. Targets: cost per result flat (each
ratio to 1x near 1), memory growth at most 5 KB per result between 1x and 100x.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import note, peak_rss_mb, register_instant, report, write_suite, zero_latency

TARGET_KB_PER_RESULT = 5.0
FLAT = 1.25  # "flat": within a quarter of the 1x cost per result


def child(cases: int, contenders: int) -> None:
    """One run in this fresh process; prints seconds, results and peak RSS."""
    zero_latency()
    register_instant()
    from bench_runner import run_evalcore

    with tempfile.TemporaryDirectory() as tmp:
        models = [f"bench/instant-{i}" for i in range(contenders)]
        # Start-up is not what scales: import everything and migrate a first store before timing.
        warm = write_suite(Path(tmp) / "warm", 10, models=models[:1])
        run_evalcore(warm, Path(tmp) / "warm.sqlite", models=models[:1])
        suite = write_suite(Path(tmp) / "suite", cases, models=models)
        baseline = peak_rss_mb()
        start = time.perf_counter()
        status, stored = run_evalcore(suite, Path(tmp) / "db.sqlite", models=models)
        elapsed = time.perf_counter() - start
    assert status == "completed" and stored == cases * contenders, (status, stored)
    print(json.dumps({"s": elapsed, "results": stored, "peak_mb": peak_rss_mb(), "base_mb": baseline}))


def measure(cases: int, contenders: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(cases), str(contenders)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def series(name: str, sizes: list[tuple[int, int]], repeat: int) -> None:
    runs = [min((measure(c, k) for _ in range(repeat)), key=lambda r: r["s"]) for c, k in sizes]
    base = runs[0]
    base_us = base["s"] / base["results"] * 1e6
    for (cases, contenders), r in zip(sizes, runs, strict=True):
        us = r["s"] / r["results"] * 1e6
        label = f"scale {name}: {cases:,} cases x {contenders} contender{'s' if contenders > 1 else ''}"
        report(
            label,
            f"{us:.1f} us/result, peak {r['peak_mb']:.0f} MB",
            f"1x {base_us:.1f} us/result",
            us / base_us,
            f"<= {FLAT} (flat)",
            us / base_us <= FLAT,
        )
    last = runs[-1]
    growth_kb = (last["peak_mb"] - base["peak_mb"]) * 1024 / (last["results"] - base["results"])
    note(
        f"scale {name}: memory",
        f"{growth_kb:.2f} KB per result from 1x to {last['results'] // base['results']}x "
        f"(target <= {TARGET_KB_PER_RESULT:.0f} KB) {'ok' if growth_kb <= TARGET_KB_PER_RESULT else 'MISSED'}",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--skip-largest", action="store_true", help="stop at 10x (a quick check)")
    parser.add_argument("--child", nargs=2, type=int, metavar=("CASES", "CONTENDERS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    top = 2 if args.skip_largest else 3
    series("cases", [(2_000, 1), (20_000, 1), (200_000, 1)][:top], args.repeat)
    series("contenders", [(2_000, 1), (2_000, 10), (2_000, 100)][:top], args.repeat)


if __name__ == "__main__":
    main()
