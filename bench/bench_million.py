"""Issue 47, items 4 and 5: ``evalcore compare`` of two stored 1,000,000-result runs, and the app's first table on
the Leaderboard and the Cases page over such a store; time and peak memory, each in a fresh process.

The store holds two runs of 40 contenders × 25,000 cases, as ``bench_compare.py`` makes them (the candidate is
the base with one result in ten drawn again) and as ``evalcore import`` leaves them (with their summaries).
Figures, each the best of ``--repeat`` fresh processes, with its wall time, CPU time (user + system, all
threads) and peak RSS:

- ``compare``: ``evalcore compare bench-base bench-cand --db STORE --format json``. Target: ≤ 5 s, ≤ 1 GB.
- ``leaderboard`` / ``cases``: AppTest's first run of ``app.py`` (the Leaderboard) and of ``pages/cases.py``
  (its first page of results) on the candidate run. Target: ≤ 4 s each.

``--against DIR``: the same figures of another checkout (e.g. the main branch) in the same run, alternating,
and whether its compare prints the same JSON. ``--db PATH``: keep (or reuse) the store there.

Run: ``python bench/bench_million.py [--contenders 40 --cases 25000] [--db PATH] [--against DIR] [--repeat 2]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import ROOT, note

#: Runs in the fresh process a figure is made in: the page's first script run, then its cost.
APPTEST = """
import json, resource, sys, time
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=600)
wall = time.perf_counter()
at.run()
wall = time.perf_counter() - wall
use = resource.getrusage(resource.RUSAGE_SELF)
problems = [str(e.value) for e in (*at.exception, *at.error)]
assert not problems and len(at.dataframe), problems
print(json.dumps({"wall": wall, "cpu": use.ru_utime + use.ru_stime, "peak_mb": use.ru_maxrss / 1024}))
"""
#: ``evalcore compare`` in a process that then reports its own CPU time and peak RSS.
COMPARE = """
import json, resource, sys, time
from evalcore.cli.parser import main
wall = time.perf_counter()
with open(sys.argv[2], "w") as out:
    sys.stdout = out
    main(["compare", "bench-base", "bench-cand", "--db", sys.argv[1], "--format", "json"])
sys.stdout = sys.__stdout__
use, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - wall
print(json.dumps({"wall": wall, "cpu": use.ru_utime + use.ru_stime, "peak_mb": use.ru_maxrss / 1024}))
"""


def build(db: Path, contenders: int, cases: int) -> None:
    from bench_compare import make_runs

    from evalcore.analysis.tables.summaries import refresh_summary
    from evalcore.storage.store import Store

    with Store(db) as store:
        for run in make_runs(contenders, cases):
            store.import_run(run)
            refresh_summary(store, run.info.id)


def measure(root: Path, code: str, args: list[str], db: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(root), "LITELLM_LOCAL_MODEL_COST_MAP": "True", "EVALCORE_DB": str(db)}
    env["EVALCORE_RUNS_DIR"] = str(db.parent / "no-bundled-runs")
    env.pop("EVALCORE_VIEWER", None)
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, cwd=root)
    if done.returncode:
        raise SystemExit(f"{root}: {args}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contenders", type=int, default=40)
    parser.add_argument("--cases", type=int, default=25_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--db", type=Path)
    parser.add_argument("--against", type=Path, help="another checkout, measured the same way")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = args.db or Path(folder) / "million.db"
        (db.parent / "no-bundled-runs").mkdir(exist_ok=True)
        if not db.exists():
            build(db, args.contenders, args.cases)
        trees = {"ours": ROOT, **({"against": args.against.resolve()} if args.against else {})}
        best: dict[tuple[str, str], dict] = {}
        for _ in range(args.repeat):
            for name, root in trees.items():
                figures = {
                    "compare": measure(root, COMPARE, [str(db), f"{folder}/{name}.json"], db),
                    "leaderboard": measure(root, APPTEST, [str(root / "app.py")], db),
                    "cases": measure(root, APPTEST, [str(root / "pages" / "cases.py")], db),
                }
                for what, got in figures.items():
                    kept = best.get((name, what))
                    best[(name, what)] = got if kept is None or got["wall"] < kept["wall"] else kept
        load = os.getloadavg()
        for (name, what), got in best.items():
            note(
                f"million: {what}, {name}",
                f"{got['wall']:.2f} s wall, {got['cpu']:.2f} s CPU, peak {got['peak_mb']:.0f} MB "
                f"(load average {load[0]:.1f})",
            )
        if args.against:
            same = Path(f"{folder}/ours.json").read_bytes() == Path(f"{folder}/against.json").read_bytes()
            note("million: compare prints the same JSON as the other checkout", "yes" if same else "NO")


if __name__ == "__main__":
    main()
