"""``evalcore run --max-cost``, through a real process: a capped run stops and exits 1 saying how to continue,
``--resume --max-cost`` finishes it with no duplicated result, and an unpriced model is refused with exit 2."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

from evalcore.storage.store import Store
from tests.cli.process import evalcore as run
from tests.openai_server import OpenAIServer
from tests.suites import CASES, write_suite

FIELDS_REPLY = '{"name": null, "kind": null, "count": null, "amount": null, "urgent": null, "tags": null}'
PRICES = {"input_cost_per_token": 1e-5, "output_cost_per_token": 3e-5}
ROOT = Path(__file__).resolve().parents[2]


ENV = {"EVALCORE_FAKE_LATENCY_SCALE": "0", "OPENAI_API_KEY": "sk-test-budget-0000"}


def evalcore(*argv: object) -> subprocess.CompletedProcess[str]:
    return run(*argv, env=ENV)


def only_run(db: Path) -> dict:
    (info,) = Store(db).list_runs()
    return info


def suite_of(root: Path, n: int = 30, config: dict | None = None) -> Path:
    text, expected = CASES["complete/001"]
    cases = {f"complete/{i:03d}": (text, expected) for i in range(n)}
    return write_suite(root, {"run": {"max_attempts": 1, "backoff_s": 0, "concurrency": 3}, **(config or {})}, cases)


def duplicates(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        query = 'SELECT count(*) FROM results GROUP BY contender, dataset, "case", sample HAVING count(*) > 1'
        return len(conn.execute(query).fetchall())


def test_a_capped_run_stops_exits_1_and_a_resume_with_a_higher_cap_finishes_it(tmp_path, tmp_db):
    suite = suite_of(tmp_path / "suite")
    done = evalcore("run", suite, "--db", tmp_db, "--quiet", "--max-cost", "0.01")
    assert done.returncode == 1, done.stderr
    info = only_run(tmp_db)
    unrun = 90 - info["results"]  # 3 contenders × 30 cases
    assert info["status"] == "interrupted" and 0 < info["results"] < 90
    assert "budget cap: $0.01 for the whole run" in done.stderr
    assert f"of $0.01; {unrun} cases not called; continue with evalcore run --resume {info['id']}" in done.stderr
    assert "--max-cost <more than 0.01>" in done.stderr
    assert Store(tmp_db).load_run(info["id"], results=False).info.settings["max_cost_usd"] == 0.01

    again = evalcore("run", "--resume", info["id"][:8], "--db", tmp_db, "--quiet")  # the recorded cap holds
    assert again.returncode == 1 and only_run(tmp_db)["results"] == info["results"]

    finished = evalcore("run", "--resume", info["id"][:8], "--db", tmp_db, "--quiet", "--max-cost", "5")
    assert finished.returncode == 0, finished.stderr
    final = only_run(tmp_db)
    assert final["status"] == "completed" and final["results"] == 90
    assert duplicates(tmp_db) == 0
    assert Store(tmp_db).load_run(info["id"], results=False).info.settings["max_cost_usd"] == 5.0


def test_the_suite_s_cap_applies_and_the_written_run_file_records_it(tmp_path, tmp_db):
    suite = suite_of(tmp_path / "suite", config={"run": {"max_attempts": 1, "backoff_s": 0, "max_cost_usd": 0.005}})
    out = tmp_path / "run.json"
    done = evalcore("run", suite, "--db", tmp_db, "--quiet", "-o", out)
    assert done.returncode == 1, done.stderr
    assert '"max_cost_usd":0.005' in out.read_text().replace(" ", "")
    assert '"stopped_by":"budget"' in out.read_text().replace(" ", "")


def test_an_unpriced_model_under_a_cap_exits_2_before_any_call(tmp_path, tmp_db, openai_server: OpenAIServer):
    suite = suite_of(tmp_path / "suite", n=3)
    done = evalcore(
        "run", suite, "--db", tmp_db, "--quiet", "-m", "openai/unpriced-model", "--api-base", openai_server.base_url,
        "--max-cost", "1",
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: ") and "no price is known for openai/unpriced-model" in line
    assert "prices: {openai/unpriced-model: {input_cost_per_token:" in line
    assert openai_server.calls == 0
    assert Store(tmp_db).list_runs() == []


def test_a_cap_counts_a_local_server_s_usage_and_resumes_with_no_duplicate(tmp_path, tmp_db):
    with OpenAIServer(FIELDS_REPLY) as server:
        entry = {"model": "openai/budget-model", "api_base": server.base_url, "prices": PRICES}
        suite = suite_of(tmp_path / "suite", config={"lineup": [entry]})
        done = evalcore("run", suite, "--db", tmp_db, "--quiet", "--max-cost", "0.01")
        assert done.returncode == 1, done.stderr
        info = only_run(tmp_db)
        assert server.calls == info["results"] < 30
        assert "budget cap reached" in done.stderr
        finished = evalcore("run", "--resume", info["id"], "--db", tmp_db, "--quiet", "--max-cost", "1")
        assert finished.returncode == 0, finished.stderr
        assert server.calls == 30
    assert only_run(tmp_db)["results"] == 30 and duplicates(tmp_db) == 0


def test_a_negative_cap_is_a_configuration_error(tmp_path, tmp_db):
    done = evalcore("run", suite_of(tmp_path / "suite", n=2), "--db", tmp_db, "--quiet", "--max-cost", "-1")
    assert done.returncode == 2
    assert "--max-cost -1: give a positive amount in USD, or 0 for no cap" in done.stderr


def test_plan_says_whether_the_estimate_fits_under_the_cap() -> None:
    """The bundled intake suite, fake models: its estimate is $0.39 ($0.36 to $0.46)."""
    suite = ROOT / "data/suites/intake"
    over = evalcore("plan", suite, "--max-cost", "0.1")
    assert over.returncode == 0, over.stderr
    assert "budget cap: $0.1 for the whole run: the estimate is over it; the run would stop at the cap" in over.stdout
    assert "the estimate fits under it" in evalcore("plan", suite, "--max-cost", "5").stdout
    assert "budget cap" not in evalcore("plan", suite).stdout
