"""5. Run files: import and export of a 100 MB run file (and its ``.json.gz``), and peak memory.

Run: ``python bench/bench_runfile.py [--mb 100]``.

Import: ``read_run_file(path)`` (read, parse, validate every rule of the spec, build the run) against
reading the same file and ``json.loads`` of its bytes (gzip: ``gzip.decompress`` first). Export:
``write_run_file(run, path)`` (validate, encode canonically, write atomically) against
``json.dumps`` of the parsed object written to a file (gzip: ``gzip.compress`` at the same level).
MB/s of the uncompressed JSON; target: within 2.5x. Peak memory: each import in a fresh process,
peak RSS above the process's RSS before the call; target: at most 4x the file size.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import best_of, note, peak_rss_mb, report, synthetic_run

TARGET_RATIO = 2.5
TARGET_MEMORY = 4.0


def build_file(path: Path, mb: float) -> int:
    """Write a run file of about ``mb`` megabytes; returns its number of results."""
    from evalcore.runfile.write import write_run_file

    contenders = 10
    cases = max(10, int(mb * 1e6 / 760 / contenders))  # a result line is about 760 bytes
    run = synthetic_run(contenders, cases)
    write_run_file(run, path)
    return len(run.results)


def child(kind: str, path: str) -> None:
    """Measure one import in this (fresh) process: print seconds and peak RSS growth in MB.

    Both kinds read the file inside the measurement: its bytes count towards the peak.
    """
    from evalcore.runfile.read import read_run_file

    before = peak_rss_mb()
    start = time.perf_counter()
    if kind == "loads":
        data = Path(path).read_bytes()
        value = json.loads(gzip.decompress(data) if path.endswith(".gz") else data)
    else:
        value = read_run_file(path)
    elapsed = time.perf_counter() - start
    print(json.dumps({"s": elapsed, "peak_mb": peak_rss_mb() - before}))
    del value


def measure_child(kind: str, path: Path) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, str(path)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return

    from evalcore.runfile.read import read_run_file
    from evalcore.runfile.write import write_run_file

    with tempfile.TemporaryDirectory() as tmp:
        plain, packed = Path(tmp) / "run.json", Path(tmp) / "run.json.gz"
        results = build_file(plain, args.mb)
        packed.write_bytes(gzip.compress(plain.read_bytes(), compresslevel=6, mtime=0))
        mb = plain.stat().st_size / 1e6
        print(f"run file: {mb:.1f} MB, {results:,} results; gzip {packed.stat().st_size / 1e6:.1f} MB", flush=True)

        for label, path in (("json", plain), ("json.gz", packed)):

            def raw_import(path: Path = path) -> object:
                data = path.read_bytes()
                return json.loads(gzip.decompress(data) if path.suffix == ".gz" else data)

            raw_s, value = best_of(raw_import, args.repeat)
            ours_s, run = best_of(lambda path=path: read_run_file(path), args.repeat)
            report(
                f"run file import ({label})",
                f"evalcore {mb / ours_s:.1f} MB/s ({ours_s:.2f} s)",
                f"json.loads {mb / raw_s:.1f} MB/s ({raw_s:.2f} s)",
                ours_s / raw_s,
                f"<= {TARGET_RATIO}x",
                ours_s / raw_s <= TARGET_RATIO,
            )

            out = Path(tmp) / f"out.{label}"

            def raw_export(value: object = value, out: Path = out, label: str = label) -> None:
                data = json.dumps(value, ensure_ascii=False).encode()
                out.write_bytes(gzip.compress(data, compresslevel=6, mtime=0) if label == "json.gz" else data)

            raw_s, _ = best_of(raw_export, args.repeat)
            ours_s, _ = best_of(lambda run=run, out=out: write_run_file(run, out), args.repeat)
            report(
                f"run file export ({label})",
                f"evalcore {mb / ours_s:.1f} MB/s ({ours_s:.2f} s)",
                f"json.dumps {mb / raw_s:.1f} MB/s ({raw_s:.2f} s)",
                ours_s / raw_s,
                f"<= {TARGET_RATIO}x",
                ours_s / raw_s <= TARGET_RATIO,
            )
            del value, run

        for label, path in (("json", plain), ("json.gz", packed)):
            raw, ours = measure_child("loads", path), measure_child("read", path)
            ratio = ours["peak_mb"] / mb
            note(
                f"run file import peak memory ({label})",
                f"evalcore +{ours['peak_mb']:.0f} MB = {ratio:.1f}x the "
                f"file | json.loads +{raw['peak_mb']:.0f} MB = {raw['peak_mb'] / mb:.1f}x | (target evalcore <= "
                f"{TARGET_MEMORY:.0f}x the file) {'ok' if ratio <= TARGET_MEMORY else 'MISSED'}",
            )


if __name__ == "__main__":
    main()
