"""The invariants every row of the fault matrix asserts, whatever the fault and the path.

A row injects one fault (a model endpoint answering 5xx, a store going away, an MCP server that never
answers, a tool raising, a tracker hanging …) into one path (plain run, judged run, pairwise, agent run,
adaptive run, a worker on PostgreSQL) through a real ``evalcore`` process, then calls :func:`assert_holds`:

- **no traceback** on stdout or stderr: the user reads one line saying what went wrong;
- **the exit code** is one that ``docs/reliability.md`` promises for that outcome;
- **a bound on time**: the process ended (it did not hang until killed);
- **a true status**: the run's stored status is the one the outcome calls for (never ``running`` once the
  process has ended, unless another worker still holds the run);
- **nothing paid is lost silently**: every call the endpoint received is a stored result (or attempt),
  or the output names it as lost;
- **the budget holds**: the stored spend is at most the cap plus the stated slack.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TRACEBACK = "Traceback (most recent call last)"


@dataclass(frozen=True)
class Outcome:
    """What one ``evalcore`` process did: its exit code, what it printed and how long it took."""

    exit_code: int
    stdout: str
    stderr: str
    elapsed_s: float

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def run_cli(*argv: object, env: Mapping[str, str] | None = None, timeout: float = 120, cwd: Path = ROOT) -> Outcome:
    """Run ``python -m evalcore.cli ARGV`` as a user would; a process still running at ``timeout`` is killed
    and the test fails (a hang is never an acceptable outcome)."""
    started = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "evalcore.cli", *map(str, argv)],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd,
            env=fault_env(env),
        )
    except subprocess.TimeoutExpired as hung:
        raise AssertionError(f"evalcore {' '.join(map(str, argv))} still running after {timeout} s") from hung
    return Outcome(done.returncode, done.stdout, done.stderr, time.monotonic() - started)


def start_cli(*argv: object, env: Mapping[str, str] | None = None, cwd: Path = ROOT) -> subprocess.Popen:
    """Start ``python -m evalcore.cli ARGV`` in the background (to signal or kill it midway), its output piped."""
    return subprocess.Popen(
        [sys.executable, "-m", "evalcore.cli", *map(str, argv)],
        cwd=cwd,
        env=fault_env(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_results(db: Path, at_least: int, timeout: float = 60, process: subprocess.Popen | None = None) -> None:
    """Wait until the SQLite store ``db`` holds ``at_least`` results (its tables may not exist yet); fail when the
    ``process`` writing them ends first or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the run ended before it stored {at_least} results: {process.communicate()}")
        try:
            with sqlite3.connect(db, timeout=5) as conn:
                if conn.execute("SELECT count(*) FROM results").fetchone()[0] >= at_least:
                    return
        except sqlite3.OperationalError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"fewer than {at_least} results in {timeout} s")


def fault_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a fault row's process: offline litellm, instant fakes, a dummy key."""
    return {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "EVALCORE_FAKE_LATENCY_SCALE": "0",
        "OPENAI_API_KEY": "sk-test-faults-0000",
        **(extra or {}),
    }


def assert_holds(
    outcome: Outcome,
    *,
    exit_codes: Iterable[int],
    within_s: float,
    status: str | None = None,
    stored_status: str | None = None,
    paid: int | None = None,
    stored: int | None = None,
    named_lost: int = 0,
    spent: float | None = None,
    cap: float | None = None,
    slack: float = 0.0,
    says: Sequence[str] = (),
) -> None:
    """Assert the matrix's invariants on one outcome; each argument left ``None`` is not checked.

    ``paid`` is what the outside thing received (calls a server counted), ``stored`` what the store holds
    afterwards and ``named_lost`` what the output named as lost; ``spent`` the stored spend against ``cap``
    plus ``slack`` (one call per open slot). ``says`` are phrases the output must hold.
    """
    text = outcome.output
    assert TRACEBACK not in text, f"a traceback reached the user:\n{text[-3000:]}"
    codes = set(exit_codes)
    assert outcome.exit_code in codes, f"exit {outcome.exit_code}, expected one of {sorted(codes)}:\n{text[-3000:]}"
    assert outcome.elapsed_s <= within_s, f"took {outcome.elapsed_s:.1f} s, bound {within_s} s"
    if status is not None:
        assert stored_status == status, f"run stored as {stored_status!r}, expected {status!r}:\n{text[-2000:]}"
    if paid is not None:
        assert stored is not None, "paid calls were counted but the stored ones were not"
        assert stored + named_lost >= paid, (
            f"{paid} calls paid for, {stored} stored and {named_lost} named as lost: "
            f"{paid - stored - named_lost} lost silently"
        )
    if cap is not None:
        assert spent is not None, "a cap was given but the spend was not"
        assert spent <= cap + slack + 1e-12, f"spent ${spent:.6f} against a cap of ${cap} + ${slack} slack"
    for phrase in says:
        assert phrase in text, f"the output does not say {phrase!r}:\n{text[-3000:]}"
