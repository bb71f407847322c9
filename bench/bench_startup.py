"""8. Start-up: the import time of ``evalcore --help`` and of every command that calls no model.

Run: ``python bench/bench_startup.py``.

Each command runs in a fresh ``python -X importtime -m evalcore.cli ...``; the figure is the sum of
the top-level cumulative import times (best of three), with the heavy packages it loaded. Baseline:
the same for ``python -X importtime -c pass`` (the interpreter's own imports). Target: under 0.3 s
of imports, and pandas, plotly and litellm only in the commands that use them (``leaderboard`` and
``significance`` compute with pandas; no command here calls a model).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from _common import ROOT, note, report, synthetic_run

TARGET_S = 0.3
HEAVY = ("pandas", "numpy", "plotly", "litellm", "sqlite_utils", "pydantic", "yaml", "streamlit")
#: Commands allowed to load pandas (and numpy): they compute a leaderboard.
PANDAS_COMMANDS = ("leaderboard", "significance")


def import_profile(args: list[str]) -> tuple[float, list[str]]:
    """Seconds of imports (sum of top-level cumulative times) and the heavy packages loaded."""
    out = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True, cwd=ROOT)
    if out.returncode not in (0, 1):
        raise RuntimeError(f"{args} failed ({out.returncode}): {out.stderr[-2000:]}")
    total, heavy = 0, []
    for line in out.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.split("|")
        if len(name) - len(name.lstrip()) == 1:  # a top-level import: its cumulative time counts once
            total += int(cumulative)
        if name.strip() in HEAVY:
            heavy.append(name.strip())
    return total / 1e6, heavy


def best(args: list[str], repeat: int = 3) -> tuple[float, list[str]]:
    runs = [import_profile(args) for _ in range(repeat)]
    return min(r[0] for r in runs), runs[0][1]


def main() -> None:
    from evalcore.runfile.write import write_run_file
    from evalcore.storage.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        db, fresh, run_file = tmp_path / "store.db", tmp_path / "fresh.db", tmp_path / "run.json"
        run = synthetic_run(3, 20)
        write_run_file(run, run_file)
        with Store(db) as store:
            store.import_run(run)
            for i in range(3):
                run.info.id = f"doomed-{i}"
                store.import_run(run)
        suite = "data/suites/intake"
        commands = {
            "--help": ["--help"],
            "cases": ["cases", suite],
            "verify": ["verify", suite],
            "plan": ["plan", suite],
            "runs": ["runs", "--db", str(db)],
            "export": ["export", "bench-run", "-o", str(tmp_path / "out.json"), "--db", str(db)],
            "import": ["import", str(run_file), "--replace", "--db", str(db)],
            "delete": ["delete", "doomed-{i}", "--yes", "--db", str(db)],
            "weights": ["weights", suite],
            "runs (a new store)": ["runs", "--db", str(fresh)],
            "leaderboard": ["leaderboard", "bench-run", "--db", str(db)],
        }
        base, _ = best(["-c", "pass"])
        for name, args in commands.items():
            if name == "delete":
                runs = [import_profile(["-m", "evalcore.cli", *[a.format(i=i) for a in args]]) for i in range(3)]
                seconds, heavy = min(r[0] for r in runs), runs[0][1]
            elif name == "runs (a new store)":
                runs = []
                for i in range(3):
                    fresh = tmp_path / f"fresh-{i}.db"
                    runs.append(import_profile(["-m", "evalcore.cli", "runs", "--db", str(fresh)]))
                seconds, heavy = min(r[0] for r in runs), runs[0][1]
            else:
                seconds, heavy = best(["-m", "evalcore.cli", *args])
            pandas_ok = name.split()[0] in PANDAS_COMMANDS or not {"pandas", "numpy"} & set(heavy)
            fine = "litellm" not in heavy and "plotly" not in heavy and "streamlit" not in heavy and pandas_ok
            label = f"start-up `evalcore {name}`"
            loaded = ", ".join(heavy) or "none"
            if name in ("runs (a new store)", "leaderboard"):
                why = (
                    "migrations need sqlite-utils, which imports pandas"
                    if name.startswith("runs")
                    else "it computes with pandas"
                )
                note(label, f"{seconds:.3f} s of imports, loads {loaded} (no target: {why})")
                continue
            report(
                label,
                f"{seconds:.3f} s of imports (loads {loaded})",
                f"python -c pass {base:.3f} s",
                seconds / base,
                f"< {TARGET_S} s, no pandas/plotly/litellm",
                seconds < TARGET_S and fine,
            )


if __name__ == "__main__":
    main()
