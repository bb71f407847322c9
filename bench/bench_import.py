"""Issue 21: importing a promptfoo result file, an Inspect ``.json`` log and an Inspect ``.eval`` log.

Run: ``python bench/bench_import.py [--mb 100] [--samples 10000]``.

Each file is made from the fixtures the real tools wrote (``tests/fixtures/``), their rows or samples
repeated with new ids and answers to the size asked for:

- a promptfoo result file (``promptfoo eval -o``) and an Inspect ``.json`` log of about ``--mb`` MB:
  ``read_import(path)`` (read, detect, parse, map to a run) against reading the file and ``json.loads``
  of its bytes; target: within 2.5x;
- an Inspect ``.eval`` log of ``--samples`` samples, its entries compressed with Zstandard as newer Inspect
  writes them: ``read_import(path)`` against reading the zip, decompressing every entry with ``zstandard``
  and ``json.loads`` of each; target: within 2.5x; and ``evalcore import`` of it, end to end into a fresh
  store, as a process (target: seconds);
- peak memory of each import, in a fresh process (peak RSS above the RSS before the call), against the
  file's uncompressed size; target: at most 4x.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

from _common import ROOT, best_of, note, peak_rss_mb, report

TARGET_RATIO = 2.5
TARGET_MEMORY = 4.0
FIXTURES = ROOT / "tests" / "fixtures"


def build_promptfoo(path: Path, mb: float) -> int:
    """A promptfoo result file of about ``mb`` MB: the fixture's rows, repeated over new tests."""
    tree = json.loads((FIXTURES / "promptfoo" / "eval-output.json").read_text())
    rows = tree["results"]["results"]
    per_test = len(rows) // 4
    size = len(json.dumps(rows)) / len(rows)
    tests = max(1, int(mb * 1e6 / size / per_test))
    out = []
    for t in range(tests):
        for row in rows[:per_test]:
            new = copy.deepcopy(row)
            new["testIdx"], new["vars"] = t, {"country": f"Country {t}"}
            new["testCase"]["vars"] = new["vars"]
            out.append(new)
    tree["results"]["results"] = out
    path.write_text(json.dumps(tree))
    return len(out)


def _samples(count: int) -> list[dict]:
    """``count`` samples like the fixture log's, each with its own id and answer."""
    log = json.loads((FIXTURES / "inspect" / "capitals-hot.json").read_text())
    template = log["samples"][0]
    samples = []
    for i in range(count):
        sample = copy.deepcopy(template)
        sample["id"], sample["epoch"] = i + 1, 1
        sample["input"] = f"What is the capital of country {i}? Answer with the city name only."
        sample["output"]["choices"][0]["message"]["content"] = f"City {i}"
        samples.append(sample)
    return samples


def build_inspect_json(path: Path, mb: float) -> int:
    """An Inspect ``.json`` log of about ``mb`` MB."""
    log = json.loads((FIXTURES / "inspect" / "capitals-hot.json").read_text())
    count = max(1, int(mb * 1e6 / len(json.dumps(log["samples"][0]))))
    log["samples"] = _samples(count)
    log["results"]["total_samples"] = log["results"]["completed_samples"] = count
    path.write_text(json.dumps(log))
    return count


def build_inspect_eval(path: Path, count: int) -> int:
    """An Inspect ``.eval`` log of ``count`` samples, every entry compressed with Zstandard (zip method 93).

    Returns the entries' uncompressed size. The zip is written by hand: :mod:`zipfile` cannot compress with
    Zstandard before Python 3.14.
    """
    import zstandard

    log = json.loads((FIXTURES / "inspect" / "capitals-hot.json").read_text())
    header = {k: v for k, v in log.items() if k not in ("samples", "reductions")}
    header["results"]["total_samples"] = header["results"]["completed_samples"] = count
    entries = {"header.json": json.dumps(header).encode()}
    for sample in _samples(count):
        entries[f"samples/{sample['id']}_epoch_1.json"] = json.dumps(sample).encode()
    compressor = zstandard.ZstdCompressor()
    local, central, offset = [], [], 0
    for name, data in entries.items():
        packed, crc, raw_name = compressor.compress(data), zlib.crc32(data), name.encode()
        head = struct.pack(
            "<4sHHHHHIIIHH", b"PK\x03\x04", 63, 0, 93, 0, 0, crc, len(packed), len(data), len(raw_name), 0
        )
        central.append(
            struct.pack(
                "<4sHHHHHHIIIHHHHHII",
                b"PK\x01\x02",
                63,
                63,
                0,
                93,
                0,
                0,
                crc,
                len(packed),
                len(data),
                len(raw_name),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + raw_name
        )
        local.append(head + raw_name + packed)
        offset += len(head) + len(raw_name) + len(packed)
    directory = b"".join(central)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(directory), offset, 0)
    path.write_bytes(b"".join(local) + directory + end)
    return sum(len(d) for d in entries.values())


def child(kind: str, path: str) -> None:
    """Measure one read in this (fresh) process: print seconds and peak RSS growth in MB."""
    from evalcore.runfile.importers import read_import

    before = peak_rss_mb()
    start = time.perf_counter()
    if kind == "loads":
        value = json.loads(Path(path).read_bytes())
    elif kind == "entries":
        value = _read_entries(path)
    else:
        value = read_import(path)
    elapsed = time.perf_counter() - start
    print(json.dumps({"s": elapsed, "peak_mb": peak_rss_mb() - before}))
    del value


def _read_entries(path: str) -> list:
    """The floor of an ``.eval`` read: every entry's raw bytes, decompressed and parsed."""
    import zipfile

    import zstandard

    data = Path(path).read_bytes()
    archive = zipfile.ZipFile(path)
    decompressor = zstandard.ZstdDecompressor()
    values = []
    for info in archive.infolist():
        name_length, extra_length = struct.unpack("<HH", data[info.header_offset + 26 : info.header_offset + 30])
        start = info.header_offset + 30 + name_length + extra_length
        raw = data[start : start + info.compress_size]
        values.append(json.loads(decompressor.decompress(raw, max_output_size=info.file_size)))
    return values


def measure_child(kind: str, path: Path) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--child", kind, str(path)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def best_child(kind: str, path: Path, repeat: int) -> dict:
    runs = [measure_child(kind, path) for _ in range(repeat)]
    return {"s": min(r["s"] for r in runs), "peak_mb": min(r["peak_mb"] for r in runs)}


def compare(label: str, path: Path, floor_kind: str, size_mb: float, repeat: int) -> bool:
    ours, floor = best_child("import", path, repeat), best_child(floor_kind, path, repeat)
    ratio = ours["s"] / floor["s"]
    ok = ratio <= TARGET_RATIO
    floor_name = "json.loads" if floor_kind == "loads" else "entries read and parsed"
    report(
        f"import {label} ({size_mb:.0f} MB)",
        f"evalcore {ours['s']:.2f} s",
        f"{floor_name} {floor['s']:.2f} s",
        ratio,
        f"<= {TARGET_RATIO:.2f}",
        ok,
    )
    memory = ours["peak_mb"] / size_mb
    report(
        f"peak memory {label}",
        f"{ours['peak_mb']:.0f} MB ({floor_name} alone {floor['peak_mb']:.0f} MB)",
        f"uncompressed {size_mb:.0f} MB",
        memory,
        f"<= {TARGET_MEMORY:.2f}",
        memory <= TARGET_MEMORY,
    )
    return ok and memory <= TARGET_MEMORY


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100.0, help="size of the promptfoo file and the .json log")
    parser.add_argument("--samples", type=int, default=10_000, help="samples in the .eval log")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return 0
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        promptfoo, log, eval_log = folder / "out.json", folder / "log.json", folder / "log.eval"
        rows = build_promptfoo(promptfoo, args.mb)
        samples = build_inspect_json(log, args.mb)
        eval_bytes = build_inspect_eval(eval_log, args.samples)
        note("files", f"promptfoo {rows:,} rows, .json log {samples:,} samples, .eval log {args.samples:,} samples")
        ok &= compare("promptfoo result file", promptfoo, "loads", promptfoo.stat().st_size / 1e6, args.repeat)
        ok &= compare("Inspect .json log", log, "loads", log.stat().st_size / 1e6, args.repeat)
        ok &= compare(
            f"Inspect .eval log, {args.samples:,} samples", eval_log, "entries", eval_bytes / 1e6, args.repeat
        )
        env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        command = [sys.executable, "-m", "evalcore", "import", str(eval_log), "--quiet", "--db", str(folder / "e.db")]
        seconds, _ = best_of(lambda: subprocess.run(command, env=env, check=True, capture_output=True), 1)
        note(
            f"evalcore import of the .eval log ({args.samples:,} samples, into a new store)",
            f"{seconds:.2f} s, process start-up included",
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
