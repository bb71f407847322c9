"""12. Trackers: the runner's time with ``--tracker otel`` on, as a ratio to the same run with it off.

Run: ``python bench/bench_trackers.py [--cases 5000] [--latency-ms 20]``.

The suite of :mod:`bench_runner` (one contender, concurrency 50, ``fields`` scorer, SQLite), its model a fake
that answers after ``--latency-ms`` (0: at once, the worst case, where the run is all CPU and the tracker's
thread competes with it for the interpreter). The otel tracker exports over OTLP/HTTP to a receiver in this
process that reads each batch and answers 200, so spans are really encoded and sent; the time counts until the
run has ended, the last batch sent included. Runs alternate off and on, best of ``--repeat`` each.

Target: on / off <= 1.15 at a model latency of 20 ms (a fast real model is slower than that).

The process's CPU time (every thread's) is printed too: it moves less than the wall time when other work
shares the machine. Then the tracker's two parts, CPU per result on one thread, fed the stored results of an
off run: building the spans (the tracker, its exporter in memory) and encoding them (the OTLP exporter's
``encode_spans`` and ``SerializeToString``, in batches of 512 spans as sent).
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from _common import InstantProvider, arguments, best_of, note, report, write_suite, zero_latency

TARGET = 1.15


class SlowProvider(InstantProvider):
    """:class:`InstantProvider` that answers after ``latency_s``."""

    def __init__(self, latency_s: float) -> None:
        super().__init__()
        self.latency_s = latency_s

    async def complete(self, request: Any) -> Any:
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        return await super().complete(request)


class Receiver(BaseHTTPRequestHandler):
    """Takes an OTLP/HTTP batch and answers 200 (counts the bytes)."""

    received = 0

    def do_POST(self) -> None:  # noqa: N802 - the http.server name
        Receiver.received += len(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def run(suite_dir: Path, db: Path, trackers: list[str]) -> tuple[str, int, list[str]]:
    from evalcore.execution.plan import RunOptions, make_plan
    from evalcore.execution.runner import run_suite
    from evalcore.storage.store import Store
    from evalcore.suite.lineup import Overrides
    from evalcore.suite.loader import load_suite

    plan = make_plan(
        load_suite(suite_dir),
        RunOptions(concurrency=50, overrides=Overrides(models=["bench/slow"]), trackers=trackers),
    )
    progress: list[Any] = []
    with Store(db) as store:
        run_id, status = run_suite(plan, store, on_progress=progress.append)
        stored = store.conn.execute("SELECT count(*) FROM results WHERE run_id = ?", (run_id,)).fetchone()[0]
    return status, stored, progress[-1].unsent


def parts(db: Path) -> tuple[float, float]:
    """CPU seconds per result of building a stored run's spans, and of encoding them for OTLP."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from evalcore.storage.store import Store
    from evalcore.trackers import RunStarted, ended_run
    from evalcore.trackers.otel import OtelTracker

    exporter = InMemorySpanExporter()
    tracker = OtelTracker(exporter=exporter)
    with Store(db) as store:
        [run_id] = [r["id"] for r in store.list_runs()]
        run = store.load_run(run_id)
        tracker.run_started(RunStarted(run.info, run.contenders, run.metrics))
        start = time.process_time()
        for result in run.results:
            tracker.result_stored(result)
        built = time.process_time() - start
        tracker.run_ended(ended_run(store, run_id))
    spans = exporter.get_finished_spans()
    start = time.process_time()
    for i in range(0, len(spans), 512):
        encode_spans(spans[i : i + 512]).SerializeToString()
    encoded = time.process_time() - start
    return built / len(run.results), encoded / len(run.results)


def main() -> None:
    from evalcore.models.registry import register_provider

    args = arguments(__doc__, cases=5000, latency_ms=20.0, repeat=3)
    zero_latency()
    register_provider("bench/", SlowProvider(args.latency_ms / 1000))
    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    os.environ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = f"http://127.0.0.1:{server.server_address[1]}/v1/traces"
    n = args.cases
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        suite = write_suite(root / "suite", n)
        counter = iter(range(1000))
        times: dict[str, list[float]] = {"off": [], "on": []}
        cpu: dict[str, list[float]] = {"off": [], "on": []}
        for _ in range(args.repeat):
            for name, trackers in (("off", []), ("on", ["otel"])):
                start = time.process_time()
                seconds, (status, stored, unsent) = best_of(
                    lambda t=trackers: run(suite, root / f"db-{next(counter)}.sqlite", t), 1
                )
                cpu[name].append(time.process_time() - start)
                assert (status, stored) == ("completed", n), (status, stored)
                assert unsent == [], unsent
                times[name].append(seconds)
        built, encoded = min((parts(root / "db-0.sqlite") for _ in range(args.repeat)), key=sum)
    server.shutdown()
    off, on = min(times["off"]), min(times["on"])
    ratio = on / off
    report(
        f"trackers: otel on vs off ({n:,} cases, model latency {args.latency_ms:g} ms, concurrency 50)",
        f"on {on / n * 1e6:.1f} us/case",
        f"off {off / n * 1e6:.1f} us/case",
        ratio,
        f"<= {TARGET:.2f}x",
        ratio <= TARGET,
    )
    cpu_on, cpu_off = min(cpu["on"]), min(cpu["off"])
    note(
        "trackers: the process's CPU (all threads, less sensitive to a loaded machine)",
        f"on {cpu_on / n * 1e6:.1f} us/case, off {cpu_off / n * 1e6:.1f} us/case, ratio {cpu_on / cpu_off:.2f}",
    )
    note(
        "trackers: otel's CPU per result, on one thread",
        f"building the spans {built * 1e6:.1f} us, encoding them (OTLP protobuf) {encoded * 1e6:.1f} us",
    )
    print(json.dumps({"otlp_bytes_received": Receiver.received}), flush=True)


if __name__ == "__main__":
    main()
