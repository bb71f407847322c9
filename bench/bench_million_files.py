"""10. A million results through the file doors: ``evalcore import FILE`` and ``evalcore leaderboard FILE``.

Run: ``python bench/bench_million_files.py [--contenders 40] [--cases 25000] [--keep DIR]``.

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

from _common import ROOT, _synthetic_result, expected_answer, note, peak_rss_mb, synthetic_run

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
    """Wall seconds, CPU seconds (user and system), peak RSS in MB and exit code of ``python -m evalcore.cli ARGS``
    in a fresh process."""
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


def app_child(path: str) -> None:
    """The Upload page under AppTest in this process: memory before the upload, while its table is shown, the
    peak, and after its session ends; prints JSON."""
    import ctypes
    import gc
    import json
    import time

    from streamlit.testing.v1 import AppTest  # noqa: TID251 (the bench drives the Upload page)

    def rss_mb() -> float:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024

    def session() -> AppTest:
        return AppTest.from_file(str(ROOT / "pages" / "upload.py"), default_timeout=900).run()

    # A small upload first, in a session of its own that ends: the modules a view imports are not the upload's.
    small = Path(path).with_name("warm-up.json")
    build_file(small, 2, 20)
    warm = session()
    warm.file_uploader[0].set_value((small.name, small.read_bytes(), "application/octet-stream"))
    warm.run()
    del warm
    small.unlink()
    data = Path(path).read_bytes()
    at = session()
    gc.collect()
    before = rss_mb()
    start = time.perf_counter()
    at.file_uploader[0].set_value((Path(path).name, data, "application/octet-stream"))
    del data  # the widget holds the upload's bytes, as a server does; this copy is the bench's own
    at.run()
    took = time.perf_counter() - start
    assert not at.exception and not at.error, (at.exception, at.error)
    viewed = rss_mb()
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)  # what the allocator keeps of freed memory, handed back
    held = rss_mb()
    del at
    gc.collect()
    # What the allocator keeps of freed memory is handed back, so what remains is what is still held.
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    print(
        json.dumps(
            {"s": took, "before": before, "viewed": viewed, "held": held, "peak": peak_rss_mb(), "after": rss_mb()}
        )
    )


def measure_app(path: Path) -> None:
    """Memory the Upload page adds for an upload of ``path``, in a fresh process (see :func:`app_child`)."""
    import json

    with tempfile.TemporaryDirectory(prefix="evalcore-app-") as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        env |= {"EVALCORE_DB": str(Path(tmp) / "evalcore.db"), "EVALCORE_RUNS_DIR": str(Path(tmp) / "none")}
        from evalcore.storage.store import Store

        Store(Path(tmp) / "evalcore.db").close()
        out = subprocess.run(
            [sys.executable, __file__, "--app-child", str(path)], capture_output=True, text=True, env=env, cwd=ROOT
        )
        if out.returncode:
            raise SystemExit(out.stderr[-3000:])
        r = json.loads(out.stdout.strip().splitlines()[-1])
    added = r["viewed"] - r["before"]
    note(
        f"app upload of {path.name}",
        f"{r['s']:.1f} s to the table, +{added:.0f} MB while viewed (+{r['held'] - r['before']:.0f} MB held once the "
        f"allocator hands back what is freed; peak +{r['peak'] - r['before']:.0f} MB), "
        f"+{r['after'] - r['before']:.0f} MB after its session ended | (target +300 MB while viewed) "
        f"{'ok' if added <= 300 else 'MISSED'}",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contenders", type=int, default=40)
    parser.add_argument("--cases", type=int, default=25_000)
    parser.add_argument("--keep", type=Path, help="a folder to keep (and reuse) the run files in")
    parser.add_argument("--only", choices=["json", "json.gz"], help="measure one of the two files")
    parser.add_argument("--app", action="store_true", help="also the Upload page's memory for the .json.gz")
    parser.add_argument("--app-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.app_child:
        app_child(args.app_child)
        return
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
        if args.app:
            measure_app(packed)


if __name__ == "__main__":
    main()
