"""1. Runner overhead in instructions a case against the plain-asyncio floor: a figure the load does not move.

Run: ``python bench/bench_runner_instructions.py [--small 512 --large 2048] [--root DIR]`` (needs ``valgrind``;
about 10 minutes on a quiet machine).

Each of :func:`bench_runner.run_evalcore` and :func:`bench_runner.run_floor` runs in a fresh process under
``valgrind --tool=callgrind`` on a suite of ``small`` cases and one of ``large`` cases (written beforehand, in
another process); the difference in instructions divided by the difference in cases is the cost of a case, with
the imports, the start-up and everything else paid once per run left out. Both sizes are multiples of the
writer's batch, and the writer's timer is held off, so every batch is full: under valgrind the timer would
otherwise store partial batches of varying sizes, each a new SQL statement to compile, and the count would
wander between runs. ``--root`` measures another checkout (``git archive main | tar -x -C DIR``) the same way.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import ROOT, arguments, report

HERE = Path(__file__).resolve()


def instructions(tree: Path, mode: str, suite: Path, db: Path) -> int:
    """Instructions of one process running ``mode`` (``ours`` or ``floor``) on ``suite``."""
    out = db.with_suffix(".callgrind")
    env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{tree / 'bench'}", "PYTHONHASHSEED": "0"}
    env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    env["OPENBLAS_NUM_THREADS"] = "1"  # idle BLAS threads spin for as long as a run lasts: counts that wander
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, str(HERE), mode]
    subprocess.run([*command, str(suite), str(db)], cwd=tree, env=env, check=True, capture_output=True)
    for line in out.read_text(errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise RuntimeError(f"{out}: no instruction total")


def one_run(mode: str, suite: Path, db: Path) -> None:
    """In the process valgrind watches: one run of ``mode``."""
    import _common
    import bench_runner

    _common.zero_latency()
    if mode == "ours":
        import evalcore.execution.writer as writer

        writer.FLUSH_EVERY_S = 1e9  # full batches only (see the module's docstring)
        _common.register_instant()
        bench_runner.run_evalcore(suite, db)
    else:
        bench_runner.run_floor(suite, db)


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] in ("ours", "floor"):
        one_run(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]))
        return
    args = arguments(__doc__, small=512, large=2048, root="")
    tree = Path(args.root).resolve() if args.root else ROOT
    from _common import write_suite

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        suites = {n: write_suite(root / f"suite-{n}", n) for n in (args.small, args.large)}
        per_case = {}
        for mode in ("ours", "floor"):
            counts = {n: instructions(tree, mode, suites[n], root / f"{mode}-{n}.sqlite") for n in suites}
            per_case[mode] = (counts[args.large] - counts[args.small]) / (args.large - args.small)
    ours, floor = per_case["ours"], per_case["floor"]
    report(
        f"runner instructions a case ({args.small:,} and {args.large:,} cases, callgrind)",
        f"evalcore {ours / 1e3:.1f}k",
        f"floor {floor / 1e3:.1f}k",
        ours / floor,
        "<= 2.5x",
        ours / floor <= 2.5,
    )


if __name__ == "__main__":
    main()
