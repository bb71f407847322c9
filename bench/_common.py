"""What the bench scripts share: a timer, a synthetic suite, synthetic runs, and one line per figure.

Every script prints lines of the form::

    runner: evalcore 72.1 us/case | floor 31.0 us/case | ratio 2.33 (target <= 3.00) ok

so ``bench/run_all.py`` can gather them, and a figure reads the same on any machine: the ratio
against a baseline measured in the same process, on the same data, moments apart.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: The extraction schema of the synthetic suite: one field of every type, like the intake suite.
FIELDS = {
    "name": {"type": "string", "description": "The client's full name"},
    "kind": {"type": "enum", "values": ["repair", "install", "inspect", "other"]},
    "units": {"type": "integer", "description": "How many units"},
    "amount_usd": {"type": "number", "description": "Budget in US dollars"},
    "urgent": {"type": "boolean", "description": "Whether it is urgent"},
    "tags": {"type": "multi_enum", "values": ["roof", "gutter", "window", "door", "paint"]},
    "phone": {"type": "string", "description": "Phone number like 312-555-0147"},
    "city": {"type": "string", "description": "The city"},
}
NAMES = ["Ann Lee", "Bob Ortiz", "Chen Wu", "Dana Cole", "Eli Shah", None]
CITIES = ["Springfield", "Riverton", "Lakeside", None]


def arguments(doc: str, **defaults: float) -> argparse.Namespace:
    """The command line of a bench script whose options are all numbers: ``--name`` per keyword (``_`` written
    ``-``), typed and defaulted by its value; ``doc``'s first line describes the script."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    for name, default in defaults.items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(default), default=default)
    return parser.parse_args()


def best_of(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """The fastest wall time of ``repeat`` calls, and the last call's value."""
    best, value = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def report(name: str, ours: str, base: str, ratio: float, target: str, ok: bool) -> None:
    """Print one figure: ours, the baseline, their ratio, the target and whether it is met."""
    print(f"{name}: {ours} | {base} | ratio {ratio:.2f} (target {target}) {'ok' if ok else 'MISSED'}", flush=True)


def note(name: str, text: str) -> None:
    """Print a figure that has no baseline (an absolute target), in the same shape."""
    print(f"{name}: {text}", flush=True)


def peak_rss_mb() -> float:
    """This process's peak resident set size in MB.

    ``VmHWM`` rather than ``getrusage``: on Linux ``ru_maxrss`` survives ``exec``, so a child started
    by a big parent would report the parent's peak.
    """
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def expected_answer(rng: random.Random) -> dict[str, Any]:
    """One expected answer of the synthetic suite; about a third of the fields are left open."""
    return {
        "name": rng.choice(NAMES),
        "kind": rng.choice(["repair", "install", "inspect", None]),
        "units": rng.choice([1, 2, 3, None]),
        "amount_usd": rng.choice([250.0, 1200.5, 90.0, None]),
        "urgent": rng.choice([True, False, None]),
        "tags": rng.choice([["roof"], ["gutter", "window"], None]),
        "phone": rng.choice(["312-555-0147", "555-0100", None]),
        "city": rng.choice(CITIES),
    }


def case_text(expected: dict[str, Any], i: int) -> str:
    """A plausible intake message (about 40 words) that settles the expected answer's fields."""
    parts = [f"Message {i}. Hello, I am writing about some work on my house."]
    for key, value in expected.items():
        if value is not None:
            parts.append(f"My {key.replace('_', ' ')} is {value}.")
    parts.append("Please get back to me when you can, thanks.")
    return " ".join(parts)


def write_suite(
    root: Path,
    cases: int,
    *,
    models: list[str] | None = None,
    concurrency: int = 50,
    scorer: str = "fields",
    seed: int = 0,
) -> Path:
    """A suite folder whose one dataset is a ``cases.jsonl`` of ``cases`` synthetic cases."""
    import yaml

    rng = random.Random(seed)
    config = {
        "suite": "bench",
        "adapter": "extract",
        "instructions": "Read the message and fill in the intake form. Use null when a value is not settled.",
        "scorer": scorer,
        "fields": FIELDS,
        "run": {"samples": 1, "parallelism": 1, "concurrency": concurrency, "max_attempts": 1, "backoff_s": 0},
        "lineup": [{"model": m} for m in (models or ["fake/oracle"])],
    }
    root.mkdir(parents=True, exist_ok=True)
    (root / "evalcore.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    folder = root / "datasets" / "intake"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "cases.jsonl", "w") as f:
        for i in range(cases):
            expected = expected_answer(rng)
            variant = "vague" if sum(v is None for v in expected.values()) > 3 else "complete"
            line = {
                "id": f"{variant}/{i:06d}",
                "variant": variant,
                "input": case_text(expected, i),
                "expected": expected,
                "metadata": {"channel": rng.choice(["email", "voicemail", "form"])},
            }
            f.write(json.dumps(line) + "\n")
    return root


def synthetic_run(contenders: int, cases: int, *, seed: int = 0, with_text: bool = True) -> Any:
    """An in-memory run shaped like a real one: fields-scorer metrics, diagnostics, usage, some errors."""
    from evalcore.core import records
    from evalcore.scoring.scorers import FIELD_METRICS

    rng = random.Random(seed)
    info = records.RunInfo(
        id="bench-run",
        suite="bench",
        created_at="2026-11-29T18:04:05.123Z",
        finished_at="2026-11-29T19:04:05.123Z",
        status="completed",
        weights={"score": 0.6, "hallucinated_rate": -0.2, "cost": -0.2},
        settings={"samples": 1, "parallelism": 4, "concurrency": 50},
        provenance={
            "tool": {"name": "evalcore", "version": "0.1.0"},
            "suite_hash": "abc",
            "dataset_hashes": {},
            "revision": None,
        },
    )
    metrics = list(FIELD_METRICS)
    cs = [
        records.Contender(f"fake/model-{i:03d} · t=0", f"fake/model-{i:03d}", {"temperature": 0})
        for i in range(contenders)
    ]
    case_rows = []
    for i in range(cases):
        expected = expected_answer(rng)
        case_rows.append(
            records.Case(
                "intake",
                f"complete/{i:06d}",
                "complete",
                case_text(expected, i) if with_text else f"case {i}",
                expected,
                {"channel": rng.choice(["email", "form"])},
            )
        )
    results = []
    for c in cs:
        for case in case_rows:
            results.append(_synthetic_result(rng, c.id, case, with_text))
    return records.Run(info, metrics, cs, case_rows, results)


def _synthetic_result(rng: random.Random, contender: str, case: Any, with_text: bool) -> Any:
    from evalcore.core import records

    usage = records.Usage(rng.randint(80, 400), rng.randint(20, 120), round(rng.random() * 1e-3, 9))
    if rng.random() < 0.02:
        return records.Result(
            contender,
            case.dataset,
            case.id,
            0,
            "error",
            None,
            error=records.ErrorInfo("rate_limit", "429 Too Many Requests (simulated)"),
            latency_s=round(rng.random(), 4),
            attempts=4,
            started_at="2026-11-29T18:04:06.000Z",
            usage=records.Usage(),
        )
    score = rng.choice([1.0, 0.875, 0.75, 0.5])
    open_ = rng.choice([None, 0.0, 0.5, 1.0])
    metrics = {
        "field_accuracy": score,
        "exact_match": float(score == 1.0),
        "restraint": open_,
        "hallucinated_rate": None if open_ is None else 1 - open_,
        "missed_rate": rng.choice([0.0, 0.25]),
    }
    output = dict(case.expected) if with_text else None
    diagnostics = {} if score == 1.0 else {"units": {"want": 2, "got": 3}}
    raw = json.dumps(output) if with_text else None
    return records.Result(
        contender,
        case.dataset,
        case.id,
        0,
        "scored",
        score,
        metrics=metrics,
        output=output,
        raw=raw,
        diagnostics=diagnostics,
        usage=usage,
        latency_s=round(rng.random() * 2, 4),
        attempts=1,
        started_at="2026-11-29T18:04:06.000Z",
    )


def zero_latency() -> None:
    """Fake models answer at once (set before evalcore reads it)."""
    os.environ["EVALCORE_FAKE_LATENCY_SCALE"] = "0"


class InstantProvider:
    """A zero-cost fake model for the runner benches: replies with the case's expected answer at once.

    ``fake/oracle`` at ``EVALCORE_FAKE_LATENCY_SCALE=0`` also answers at once, but builds each reply
    with seeded random draws (two ``random.Random`` seeded from a JSON key, a draw per field): about
    60 us a case, two thirds of the runner's own cost, which is not what the runner bench measures.
    This one costs what the floor script's mock call costs: the expected answer encoded once per
    case, then looked up.
    """

    def __init__(self) -> None:
        from evalcore.core.records import Usage
        from evalcore.models.types import Reply

        self.replies: dict[tuple[str, str], str] = {}
        self.reply, self.usage = Reply, Usage

    def refusal(self, model: str, settings: dict[str, Any]) -> str | None:
        return None

    def missing_keys(self, model: str, api_base: str | None) -> list[str]:
        return []

    async def complete(self, request: Any) -> Any:
        case = request.case
        text = self.replies.get(case.key)
        if text is None:
            text = self.replies[case.key] = json.dumps(case.expected)
        return self.reply(text=text, usage=self.usage(120, 40, 0.0002), latency_s=0.0, attempts=1)


def register_instant(prefix: str = "bench/") -> InstantProvider:
    """Register :class:`InstantProvider` for model ids starting with ``prefix``."""
    from evalcore.models.registry import register_provider

    provider = InstantProvider()
    register_provider(prefix, provider)
    return provider


@contextmanager
def postgres_url(given: str | None) -> Iterator[str]:
    """The PostgreSQL store a bench writes to: ``given``, else a new schema on a throwaway server (the tests'
    own, stopped on the way out); exits when PostgreSQL is not installed."""
    if given is not None:
        yield given
        return
    from tests.postgres_server import PostgresServer, postgres_bin

    bin_dir = postgres_bin()
    if bin_dir is None:
        sys.exit("PostgreSQL is not installed: apt-get install postgresql, or pass --url")
    server = PostgresServer(bin_dir)
    try:
        yield server.new_url()
    finally:
        server.stop()
