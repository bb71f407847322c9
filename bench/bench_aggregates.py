"""What macro-F1 as a leaderboard column (an aggregate metric, recomputed on each bootstrap resample) costs.

Run: ``python bench/bench_aggregates.py``. Figures, each the best of a few repeats:

- the bundled support demo run (no classification scorer: nothing to add): the whole run's prepared
  leaderboard with intervals (``prepare_view``, what a summary holds and a page computes);
- a synthetic classification run (``--contenders`` x ``--cases`` results, 5 labels, B = 1000): the same,
  with its label columns (macro-F1 computed and resampled) against the same frame without them (the
  leaderboard a classification run had before macro-F1 was a column), in one process;
- loading that run's frame from a store, labels read from the diagnostics, against a run with no
  classification metric (``correct`` under another description) and the same numbers.

``--root DIR`` imports evalcore from another tree (e.g. ``git archive HEAD evalcore | tar -x -C DIR``) to
time the code before a change on the same data: an older tree ignores the label columns.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=HERE.parent, help="the evalcore tree to import")
    parser.add_argument("--contenders", type=int, default=20)
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--store", action="store_true", help="also time loading the frame from a store")
    args = parser.parse_args()
    sys.path.insert(0, str(args.root))
    # An editable install maps ``evalcore`` to this checkout ahead of sys.path: let --root win.
    sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "__module__", "").startswith("__editable__")]
    sys.path.insert(1, str(HERE))
    from _common import best_of

    sys.path.insert(0, str(args.root))  # _common puts this checkout first
    import evalcore

    print(f"evalcore from {Path(evalcore.__file__).parent}")

    from evalcore.analysis.tables.view import prepare_view
    from evalcore.runfile import read_run_file
    from evalcore.storage.frames import results_frame

    demo = read_run_file(HERE.parent / "data" / "runs" / "support-demo.json")
    frame = results_frame(demo)
    seconds, _ = best_of(lambda: prepare_view(frame, demo.metrics, ci=True, B=1000), args.repeat)
    print(f"support demo ({len(frame):,} results): prepare_view with intervals {1000 * seconds:.0f} ms")

    run = synthetic_run(args.contenders, args.cases)
    frame = results_frame(run)
    labels = [c for c in frame.columns if c.startswith(("want_", "got_"))]
    plain = frame.drop(columns=labels)
    ours, _ = best_of(lambda: prepare_view(frame, run.metrics, ci=True, B=1000), args.repeat)
    base, _ = best_of(lambda: prepare_view(plain, run.metrics, ci=True, B=1000), args.repeat)
    print(
        f"classification ({len(frame):,} results, label columns {labels or 'none'}): prepare_view "
        f"{1000 * ours:.0f} ms | without labels {1000 * base:.0f} ms | ratio {ours / base:.2f}"
    )
    if args.store:
        time_store(run, args.repeat, best_of)


def synthetic_run(n_contenders: int, n_cases: int, seed: int = 0):  # noqa: ANN201 (imported lazily)
    """A classification run: 5 labels, each contender right with its own accuracy, else a random label."""
    from evalcore.core.records import Case, Contender, Metric, Result, Run, RunInfo, Usage

    rng = np.random.default_rng(seed)
    labels = np.array(["billing", "shipping", "technical", "account", "other"], dtype=object)
    want = labels[rng.integers(0, 5, n_cases)]
    cases = [Case(f"d{j % 3}", f"c{j:06d}", "v", "text", want[j]) for j in range(n_cases)]
    description = "Share of replies whose label is the expected one (accuracy)."
    results = []
    for c in range(n_contenders):
        right = rng.random(n_cases) < rng.uniform(0.5, 0.95)
        got = np.where(right, want, labels[rng.integers(0, 5, n_cases)])
        for j in range(n_cases):
            value = 1.0 if got[j] == want[j] else 0.0
            diagnostics = {"want": want[j], "got": got[j]}
            results.append(
                Result(
                    f"m{c:02d}",
                    cases[j].dataset,
                    cases[j].id,
                    0,
                    "scored",
                    value,
                    {"correct": value},
                    got[j],
                    got[j],
                    None,
                    diagnostics,
                    Usage(100, 2, 1e-4 * (c + 1)),
                    0.5,
                    1,
                )
            )
    contenders = [Contender(f"m{c:02d}", f"fake/m{c:02d}") for c in range(n_contenders)]
    provenance = {
        "tool": {"name": "evalcore", "version": "0"},
        "suite_hash": "x",
        "dataset_hashes": {},
        "revision": None,
    }
    info = RunInfo("bench-classification", "bench", "2026-01-01T00:00:00Z", status="completed", provenance=provenance)
    return Run(info, [Metric("correct", description, True, True)], contenders, cases, results)


def time_store(run, repeat: int, best_of) -> None:  # noqa: ANN001
    """Loading the frame of a stored classification run, and of the same run without its classification metric."""
    import dataclasses

    from evalcore.core.records import Metric
    from evalcore.storage.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        store.import_run(run)
        other = dataclasses.replace(run, info=dataclasses.replace(run.info, id="bench-other"))
        other.metrics = [Metric("correct", "Something else.", True, True)]
        store.import_run(other)
        ours, frame = best_of(lambda: store.load_results_frame(run.info.id), repeat)
        base, _ = best_of(lambda: store.load_results_frame("bench-other"), repeat)
        print(
            f"store frame ({len(frame):,} results): with labels {1000 * ours:.0f} ms | without {1000 * base:.0f} ms "
            f"| ratio {ours / base:.2f}"
        )


if __name__ == "__main__":
    main()
