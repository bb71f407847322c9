"""Run every benchmark of issue 6, one after another, each in its own process.

Run: ``python bench/run_all.py [--quick] [--only NAME ...]``.

Prints each script's figure lines as they come, then a summary with the machine and the date; the
figures of ``bench/RESULTS.md`` are this output. ``--quick`` runs smaller sizes (for a smoke test:
the targets are set for the full sizes). A full run takes 15 to 20 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: name → (script, full-size arguments, quick arguments)
BENCHES = {
    "runner": ("bench_runner.py", [], ["--cases", "5000", "--repeat", "1"]),
    "trackers": ("bench_trackers.py", [], ["--cases", "2000", "--repeat", "1"]),
    "concurrency": ("bench_concurrency.py", [], []),
    "litellm": ("bench_litellm.py", [], ["--calls", "500", "--repeat", "1"]),
    "store": ("bench_store.py", [], ["--contenders", "4", "--cases", "5000", "--repeat", "1"]),
    "runfile": ("bench_runfile.py", [], ["--mb", "10", "--repeat", "1"]),
    "explorer": ("bench_explorer.py", [], ["--contenders", "4", "--cases", "5000", "--repeat", "1"]),
    "scale": ("bench_scale.py", [], ["--skip-largest", "--repeat", "1"]),
    "startup": ("bench_startup.py", [], []),
    "leaderboard": ("bench_leaderboard.py", [], []),
    "compare": ("bench_compare.py", [], ["--cases", "2000", "--repeat", "1"]),
    "million": ("bench_million.py", [], ["--contenders", "4", "--cases", "2000", "--repeat", "1"]),
    "import": ("bench_import.py", [], ["--mb", "10", "--samples", "1000", "--repeat", "1"]),
    "report": ("bench_report.py", [], ["--cases", "2000", "--repeat", "1"]),
    "agent": ("bench_agent.py", [], ["--repeat", "1"]),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke test")
    parser.add_argument("--only", nargs="+", choices=list(BENCHES), help="run only these")
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.platform()}",
        flush=True,
    )
    print(f"date: {datetime.datetime.now(datetime.UTC).isoformat(timespec='seconds')}", flush=True)
    failed, missed = [], 0
    for name in args.only or BENCHES:
        script, full, quick = BENCHES[name]
        print(f"\n== {name} ({script})", flush=True)
        start = time.perf_counter()
        process = subprocess.run(
            [sys.executable, str(HERE / script), *(quick if args.quick else full)],
            cwd=HERE.parent,
            text=True,
            capture_output=True,
        )
        sys.stdout.write(process.stdout)
        missed += process.stdout.count("MISSED")
        if process.returncode:
            failed.append(name)
            sys.stdout.write(process.stderr[-3000:])
        print(f"({time.perf_counter() - start:.0f} s)", flush=True)
    print(f"\n{missed} figure(s) missed their target; failed scripts: {', '.join(failed) or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
