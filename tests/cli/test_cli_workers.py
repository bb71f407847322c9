"""``evalcore run --resume RUN --worker``: four worker processes share one run on PostgreSQL; one is killed
mid-run (SIGKILL) and the others finish its cases once its lease lapses. Every result is stored exactly once,
and a budget cap and a suite's tpm hold across the workers."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from datetime import datetime

import psycopg
import pytest
import yaml

from evalcore.core.records import ErrorInfo, Result
from evalcore.execution.estimate import estimate_plan_cost
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.resume import join_run, resume_plan
from evalcore.execution.runner import run_suite, start_run
from evalcore.scoring.client import UNJUDGED_PREFIX
from evalcore.storage.pairs import load_pairs
from evalcore.storage.spend import stored_spend
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.cli.process import ROOT
from tests.cli.process import evalcore as run_cli
from tests.faults.invariants import Outcome, assert_holds
from tests.suites import CASES, write_suite

SLOTS = 2 * 40  # two contenders, forty cases
ENV = {"EVALCORE_FAKE_LATENCY_SCALE": "0.3", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


@pytest.fixture
def url(postgres_server):
    return postgres_server.new_url()


@pytest.fixture
def suite(tmp_path):
    text, expected = CASES["complete/001"]
    cases = {f"complete/{i:03d}": (text, expected) for i in range(SLOTS // 2)}
    config = {
        "run": {"max_attempts": 1, "backoff_s": 0, "concurrency": 2, "parallelism": 2},
        "lineup": [{"model": "fake/oracle"}, {"model": "fake/guesser"}],
    }
    return load_suite(write_suite(tmp_path / "suite", config, cases))


def _started_run(suite, url) -> str:
    with Store(url) as store:
        return start_run(make_plan(suite, RunOptions()), store).info.id


def _workers(
    url: str, run_id: str, *extra: object, n: int = 4, env: dict[str, str] | None = None
) -> list[subprocess.Popen[str]]:
    argv = [sys.executable, "-m", "evalcore", "run", "--resume", run_id, "--worker", "--db", url, "--quiet"]
    env = {**os.environ, **ENV, **(env or {})}
    return [
        subprocess.Popen(
            [*argv, "--lease", "2", *map(str, extra)],
            cwd=ROOT,
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(n)
    ]


def _stored_by(url: str, pid: int) -> int:
    with psycopg.connect(url) as conn:
        query = "SELECT count(*) FROM evalcore_claims WHERE done AND held_by LIKE %s"
        try:
            return int(conn.execute(query, (f"%:{pid}:%",)).fetchone()[0])
        except psycopg.errors.UndefinedTable:  # no worker has started yet
            return 0


def _kill_one_after_it_stored(url: str, workers: list[subprocess.Popen[str]]) -> list[subprocess.Popen[str]]:
    """SIGKILL the first worker seen to have stored some results while still running (so it holds slots in
    flight); the others."""
    deadline = time.monotonic() + 60
    while True:
        for worker in workers:
            if worker.poll() is None and _stored_by(url, worker.pid) >= 2:
                worker.send_signal(signal.SIGKILL)
                worker.communicate()
                return [w for w in workers if w is not worker]
        assert time.monotonic() < deadline, "no worker stored results"
        time.sleep(0.05)


def _slots(url: str, run_id: str) -> tuple[int, int, int]:
    """Stored results, distinct result slots among them, and slots the claims record as done."""
    with psycopg.connect(url) as conn:
        stored, distinct = conn.execute(
            'SELECT count(*), count(DISTINCT (contender, dataset, "case", sample)) FROM results WHERE run_id = %s',
            (run_id,),
        ).fetchone()
        (done,) = conn.execute("SELECT count(*) FROM evalcore_claims WHERE run_id = %s AND done", (run_id,)).fetchone()
    return int(stored), int(distinct), int(done)


def test_four_workers_one_killed_store_every_result_exactly_once(suite, url):
    """A row of the fault matrix (docs/reliability.md): SIGKILL of a worker on PostgreSQL."""
    run_id = _started_run(suite, url)
    started = time.monotonic()
    workers = _kill_one_after_it_stored(url, _workers(url, run_id))
    outcomes = []
    for worker in workers:
        out, err = worker.communicate(timeout=120)
        outcomes.append(Outcome(worker.returncode, out, err, time.monotonic() - started))
    with Store(url) as store:
        status = store.load_run(run_id, results=False).info.status
        assert store.list_runs()[0]["results"] == SLOTS
    stored, distinct, done = _slots(url, run_id)
    for outcome in outcomes:  # the fake models are not paid per call: every slot stored once is the whole bill
        assert_holds(
            outcome, exit_codes={0}, within_s=120, status="completed", stored_status=status, paid=SLOTS, stored=distinct
        )
    assert (stored, distinct, done) == (SLOTS, SLOTS, SLOTS)


def _leave_one_reply_unjudged(url: str, run_id: str, contender: str) -> None:
    """Do what a worker does that stores a reply its judge could not reach and stops: the slot is done, its
    result an error saying it is not judged."""
    with Store(url) as store:
        plan, run, done = resume_plan(store, run_id)
        claims = join_run(store, plan, run, done, lease_s=2.0)
        (key,) = claims.claim(1, contender)
        error = ErrorInfo("judge", f"{UNJUDGED_PREFIX}cannot connect to the judge")
        result = Result(*key, status="error", score=None, raw="{}", error=error)
        claims.store_rows([store.result_rows(run_id)(result)])
        claims.close()


def test_a_worker_joining_after_one_left_a_reply_unjudged_asks_it_again_and_completes_the_run(suite, url):
    run_id = _started_run(suite, url)
    _leave_one_reply_unjudged(url, run_id, "fake/oracle")
    (worker,) = _workers(url, run_id, n=1, env={"EVALCORE_FAKE_LATENCY_SCALE": "0"})
    _, err = worker.communicate(timeout=60)
    assert worker.returncode == 0, err
    assert _slots(url, run_id) == (SLOTS, SLOTS, SLOTS)
    with Store(url) as store:
        assert store.load_run(run_id, results=False).info.status == "completed"
        assert not any((m or "").startswith(UNJUDGED_PREFIX) for m in store.error_messages(run_id).values())


def test_a_worker_stopped_by_the_budget_while_another_holds_slots_leaves_the_run_running(suite, url):
    run_id = _started_run(suite, url)
    with Store(url) as store:
        plan, run, done = resume_plan(store, run_id)
        holder = join_run(store, plan, run, done, lease_s=1.0)  # renewed every third of a second
        holder.claim(2, "fake/oracle")
        (worker,) = _workers(url, run_id, "--max-cost", 1e-9, n=1, env={"EVALCORE_FAKE_LATENCY_SCALE": "0"})
        out, err = worker.communicate(timeout=60)
        assert worker.returncode == 1 and "budget cap reached" in err, err
        assert store.load_run(run_id, results=False).info.status == "running"
        assert f"run {run_id}: running (this worker stopped: interrupted; the other workers finish it)" in out
        holder.close()


def test_four_workers_one_killed_keep_the_budget_cap_across_them(suite, url):
    run_id = _started_run(suite, url)
    plan = make_plan(suite, RunOptions())
    estimate = {e.contender: e.usd or 0.0 for e in estimate_plan_cost(plan).contenders}
    cap = sum(estimate.values()) / 2
    workers = _kill_one_after_it_stored(url, _workers(url, run_id, "--max-cost", cap))
    said = [worker.communicate(timeout=120)[1] for worker in workers]
    for worker, err in zip(workers, said, strict=True):
        assert worker.returncode == 1 and "budget cap reached" in err, err
    stored, distinct, done = _slots(url, run_id)
    assert stored == distinct == done < SLOTS
    assert any(f"; {SLOTS - stored} cases not called" in err for err in said)  # the whole run's, seen by the last
    with psycopg.connect(url) as conn:
        (spent,) = conn.execute("SELECT spent_usd FROM evalcore_spend WHERE run_id = %s", (run_id,)).fetchone()
    # Each call reserves its estimate before it starts: the cap is passed by at most what the calls in flight
    # cost beyond their estimates (4 workers x 4 calls in flight; a call costs at most twice its estimate here).
    in_flight = 4 * 4 * 2 * max(estimate.values()) / (SLOTS // 2)
    with Store(url) as store:
        assert stored_spend(store, run_id) <= spent + 1e-9 and spent <= cap + in_flight
        assert store.load_run(run_id, results=False).info.status == "interrupted"


TPM = 100_000  # ~1,700 tokens a second: a call of this suite uses ~340 tokens, so ~5 calls a second
TPM_WINDOW_S = 2.0
TPM_CASES = 20
#: How late a busy machine's event loop may record a start after the one the limits gave it.
LATE_S = 0.25


@pytest.fixture
def tpm_suite(tmp_path):
    text, expected = CASES["complete/001"]
    cases = {f"complete/{i:03d}": (text, expected) for i in range(TPM_CASES)}
    config = {
        "run": {"max_attempts": 1, "backoff_s": 0, "concurrency": 2},
        "lineup": [{"model": "fake/guesser"}],
        "limits": {"fake/guesser": {"tpm": TPM}},
    }
    return load_suite(write_suite(tmp_path / "suite", config, cases))


def _finished_by(url: str, run_id: str, workers: int) -> list[tuple[float, int, int]]:
    """Run ``run_id`` to its end with ``workers`` worker processes; each stored call's start (seconds), its tokens
    (input and output, as its usage says) and its output tokens, in start order."""
    for worker in _workers(url, run_id, n=workers):
        _, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
    with Store(url) as store:
        results = store.load_run(run_id).results
    return sorted(
        (datetime.fromisoformat(r.started_at).timestamp(), (r.usage.input_tokens or 0) + out, out)
        for r in results
        if r.started_at
        for out in [r.usage.output_tokens or 0]
    )


def _most_tokens_in_a_window(starts: list[tuple[float, int, int]], window_s: float) -> int:
    """The most tokens of calls that started within ``window_s`` seconds of one another."""
    return max(sum(t for s, t, _ in starts if first <= s < first + window_s) for first, _, _ in starts)


def test_workers_together_keep_a_suites_tpm(tpm_suite, url):
    starts = _finished_by(url, _started_run(tpm_suite, url), workers=2)
    assert len(starts) == TPM_CASES
    # Starts are spaced by what each call was charged: a window's calls stay within the window's share of the
    # tpm, plus the last one's own tokens, plus what the calls in flight used beyond their estimates before they
    # ended (2 workers x 2 calls; a fake's estimate is its input tokens, so its output tokens).
    slack = max(t for _, t, _ in starts) + 2 * 2 * max(out for _, _, out in starts)
    assert _most_tokens_in_a_window(starts, TPM_WINDOW_S) <= TPM * (TPM_WINDOW_S + LATE_S) / 60 + slack


def test_one_worker_reaches_a_suites_tpm(tpm_suite, url):
    starts = _finished_by(url, _started_run(tpm_suite, url), workers=1)
    span = starts[-1][0] - starts[0][0]
    tokens = sum(t for _, t, _ in starts[:-1])  # the last call's tokens are spent after the span
    assert tokens / span * 60 >= 0.8 * TPM


@pytest.fixture
def judged_suite(tmp_path, monkeypatch):
    """The support demo (a panel of two fake judges, a pairwise judge), cut to three contenders and six cases."""
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", ENV["EVALCORE_FAKE_LATENCY_SCALE"])
    root = tmp_path / "support"
    shutil.copytree(ROOT / "data" / "suites" / "support", root)
    config = yaml.safe_load((root / "evalcore.yaml").read_text())
    config["lineup"] = config["lineup"][:3]
    (root / "evalcore.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    cases = root / "datasets" / "tickets" / "cases.jsonl"
    cases.write_text("".join(cases.read_text().splitlines(keepends=True)[:6]))
    return load_suite(root)


def test_workers_whose_pairwise_judge_cannot_be_reached_end_the_run_interrupted(judged_suite, url):
    config = yaml.safe_load((judged_suite.path / "evalcore.yaml").read_text())
    config["run"].update(max_attempts=1, concurrency=2)  # comparisons wait for the breaker to open
    config["pairwise"].update(model="openai/dead-judge", api_base=f"http://127.0.0.1:{_free_port()}/v1")
    (judged_suite.path / "evalcore.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    cases = judged_suite.path / "datasets" / "tickets" / "cases.jsonl"
    cases.write_text("".join(cases.read_text().splitlines(keepends=True)[:2]))
    run_id = _started_run(load_suite(judged_suite.path), url)
    workers = _workers(url, run_id, n=2, env={"OPENAI_API_KEY": "sk-test-workers-0000"})
    said = [worker.communicate(timeout=120)[1] for worker in workers]
    assert [w.returncode for w in workers] == [1, 1], said
    assert _slots(url, run_id) == (6, 6, 6)  # every answer, not the pairwise phase
    with Store(url) as store:
        assert store.load_run(run_id, results=False).info.status == "interrupted"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _judged(store: Store, run_id: str) -> tuple[dict[tuple, tuple], dict[tuple, str]]:
    """Each result's score and its judges' calls and cost; each comparison's outcome."""
    results = {
        r.key: (r.status, r.score, judge["calls"], judge["cost_usd"])
        for r in store.load_run(run_id).results
        for judge in [r.diagnostics["llm_judge"]["judge"]]
    }
    return results, {v.key: v.outcome for v in load_pairs(store, run_id)}


def test_workers_judge_every_result_and_every_comparison_once_and_count_the_judges_spend(judged_suite, url, tmp_path):
    with Store(tmp_path / "alone.db") as store:
        alone_id, _ = run_suite(make_plan(judged_suite, RunOptions()), store)
        alone = _judged(store, alone_id)
    run_id = _started_run(judged_suite, url)
    for worker in _workers(url, run_id, "--max-cost", 100, n=3):
        _, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
    assert _slots(url, run_id) == (18, 18, 18 + 1)  # and the pairwise phase's slot
    with Store(url) as store:
        shared = _judged(store, run_id)
        pairs_usd = sum(v.cost_usd or 0.0 for v in load_pairs(store, run_id))
        spent = stored_spend(store, run_id)  # the pairwise judge's stored comparisons included
        assert store.load_run(run_id, results=False).info.status == "completed"
    assert len(shared[1]) == 3 * 6  # every pair of contenders on every case
    assert shared == alone  # each result judged once by each judge of the panel, as one process judges it
    with psycopg.connect(url) as conn:
        (counted,) = conn.execute("SELECT spent_usd FROM evalcore_spend WHERE run_id = %s", (run_id,)).fetchone()
    assert counted == pytest.approx(spent) and pairs_usd > 0  # contenders', their judges', the pairwise judge's


def test_a_worker_given_a_suite_starts_the_run_and_says_how_the_others_join(suite, url):
    done = run_cli(
        "run", suite.path, "--worker", "--db", url, "--quiet", env={**ENV, "EVALCORE_FAKE_LATENCY_SCALE": "0"}
    )
    assert done.returncode == 0, done.stderr
    (run_id,) = re.findall(r"^run (\S+): 80 calls$", done.stderr, re.MULTILINE)
    assert f"start the others with: evalcore run --resume {run_id} --worker (and this --db)" in done.stderr
    assert _slots(url, run_id) == (SLOTS, SLOTS, SLOTS)


def test_a_worker_given_a_suite_on_a_sqlite_store_is_refused_before_a_run_starts(suite, tmp_path):
    db = tmp_path / "evalcore.db"
    done = run_cli("run", suite.path, "--worker", "--db", db)
    assert done.returncode == 2 and "--worker needs a PostgreSQL store" in done.stderr
    with Store(db) as store:
        assert store.list_runs() == []


def test_a_worker_on_a_sqlite_store_is_refused_with_exit_2(suite, tmp_path):
    db = tmp_path / "evalcore.db"
    run_id = _started_run(suite, db)
    done = run_cli("run", "--resume", run_id, "--worker", "--db", db)
    assert done.returncode == 2
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .endswith(
            "needs a PostgreSQL store, which several processes can "
            f"share; {db} is SQLite. Give --db postgresql://... (or "
            "EVALCORE_DB), or drop --worker."
        )
    )
