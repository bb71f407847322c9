"""10. A million results through the file doors: ``evalcore import FILE`` and ``evalcore leaderboard FILE``.

Run: ``python bench/bench_million.py [--contenders 40] [--cases 25000] [--keep DIR]``.

Writes a synthetic run file of ``contenders × cases`` results (the default: 1,000,000 results, about
500 MB of JSON, 28 MB gzipped) a part at a time, as ``evalcore export`` writes a stored run, so making
it holds one part of records. Then each command runs in its own process under ``/usr/bin/time -v``
(wall time and the process's peak resident memory), on the ``.json`` and on the ``.json.gz``.
Targets: each command at most 15 s and 600 MB.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from _common import ROOT, _synthetic_result, expected_answer, note, synthetic_run

TARGET_S = 15.0
TARGET_MB = 600.0
PART = 10_000


def build_file(path: Path, contenders: int, cases: int, seed: int = 0) -> int:
    """Write the run file :func:`_common.synthetic_run` would make, a part of its results at a time."""
    from evalcore.runfile.write import write_run_file_in_parts

    rng = random.Random(seed)
    head = synthetic_run(1, cases, seed=seed)  # its cases; the contenders and results are made here
    head.contenders = synthetic_run(contenders, 1, seed=seed).contenders
    head.results = []
    for _ in range(cases):  # replay the cases' draws, so the results draw what synthetic_run's would
        expected_answer(rng)
        rng.choice(["email", "form"])

    def parts() -> Iterator[list]:
        part: list = []
        for c in head.contenders:
            for case in head.cases:
                part.append(_synthetic_result(rng, c.id, case, True))
                if len(part) == PART:
                    yield part
                    part = []
        if part:
            yield part

    def whole() -> object:
        raise AssertionError("the synthetic run breaks the spec")

    return write_run_file_in_parts(head, parts(), path, whole=whole)  # type: ignore[arg-type]


def measure(args: list[str]) -> tuple[float, float, float, int]:
    """Wall seconds, CPU seconds (user and system), peak RSS in MB and exit code of ``python -m evalcore.cli ARGS`` in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        ["/usr/bin/time", "-v", sys.executable, "-m", "evalcore.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", done.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    cpu = [re.search(rf"{kind} time \(seconds\): ([\d.]+)", done.stderr) for kind in ("User", "System")]
    if wall is None or rss is None or None in cpu:
        raise SystemExit(f"no figures from /usr/bin/time:\n{done.stderr[-2000:]}")
    seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    return seconds, sum(float(m.group(1)) for m in cpu if m), int(rss.group(1)) / 1024, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contenders", type=int, default=40)
    parser.add_argument("--cases", type=int, default=25_000)
    parser.add_argument("--keep", type=Path, help="a folder to keep (and reuse) the run files in")
    parser.add_argument("--only", choices=["json", "json.gz"], help="measure one of the two files")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="evalcore-million-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        stem = f"run-{args.contenders}x{args.cases}"
        plain, packed = folder / f"{stem}.json", folder / f"{stem}.json.gz"
        if not plain.exists():
            build_file(plain, args.contenders, args.cases)
        if not packed.exists():
            subprocess.run(f"gzip -6 -n -c {plain} > {packed}", shell=True, check=True)
        results = args.contenders * args.cases
        print(
            f"run file: {results:,} results, {plain.stat().st_size / 1e6:.0f} MB; "
            f"gzip {packed.stat().st_size / 1e6:.0f} MB",
            flush=True,
        )
        for label, path in (("json", plain), ("json.gz", packed)):
            if args.only and args.only != label:
                continue
            db = Path(tmp) / f"import-{label}.sqlite"
            for command, argv in (
                ("import", ["import", str(path), "--db", str(db), "--quiet"]),
                ("leaderboard", ["leaderboard", str(path), "--db", str(Path(tmp) / "none.sqlite")]),
            ):
                seconds, cpu, mb, code = measure(argv)
                ok = code == 0 and seconds <= TARGET_S and mb <= TARGET_MB
                note(
                    f"{command} FILE, {results:,} results ({label})",
                    f"{seconds:.1f} s (CPU {cpu:.1f} s), peak {mb:.0f} MB, exit {code} | (target <= {TARGET_S:g} s, "
                    f"<= {TARGET_MB:g} MB) {'ok' if ok else 'MISSED'}",
                )


if __name__ == "__main__":
    main()
