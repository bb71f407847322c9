"""``evalcore rescore``: a stored run scored again with no contender call, into a new run that names its source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalcore.cli.parser import main
from evalcore.runfile.read import read_run_file
from evalcore.storage.store import Store
from tests.execution.test_judge_runs import ANSWER, answering, write_judged_suite
from tests.openai_server import OpenAIServer

VERDICT = json.dumps({"correct": 4, "tone": 5, "reasoning": "right and polite"})


def judged_run(tmp_path: Path, server: OpenAIServer, db: Path, **judge: object) -> tuple[Path, str]:
    server.content = answering(VERDICT)
    suite = write_judged_suite(tmp_path / "suite", server, dict(judge))
    assert main(["run", str(suite), "--db", str(db), "--quiet"]) == 0
    (run,) = Store(db).list_runs()
    return suite, run["id"]


def scores(db: Path, run_id: str) -> dict:
    return {r.key: (r.status, r.score, r.metrics) for r in Store(db).load_run(run_id).results}


def newest(db: Path) -> str:
    return Store(db).list_runs()[0]["id"]


def test_rescoring_an_unchanged_run_equals_it_and_calls_no_contender(tmp_path, tmp_db, openai_server, capsys):
    _, original = judged_run(tmp_path, openai_server, tmp_db, model=["fake/judge", "fake/judge-strict"])
    calls = openai_server.calls
    out = tmp_path / "rescored.json"
    assert main(["rescore", original, "--db", str(tmp_db), "--quiet", "-o", str(out)]) == 0
    assert openai_server.calls == calls  # no contender call: the replies come from the stored run
    rescored = newest(tmp_db)
    assert rescored != original and scores(tmp_db, rescored) == scores(tmp_db, original)
    run = read_run_file(out)
    assert run.info.provenance["rescored_from"] == original
    assert [r.usage for r in run.results] == [r.usage for r in Store(tmp_db).load_run(original).results]
    assert "judge cost" in capsys.readouterr().out


def test_judge_cache_reuses_verdicts_and_makes_no_call_at_all(tmp_path, tmp_db, openai_server):
    _, original = judged_run(tmp_path, openai_server, tmp_db)
    calls = openai_server.calls
    assert calls == 2  # the contender, then the judge
    assert main(["rescore", original, "--db", str(tmp_db), "--quiet", "--judge-cache"]) == 0
    assert openai_server.calls == calls
    rescored = newest(tmp_db)
    assert scores(tmp_db, rescored) == scores(tmp_db, original)
    (result,) = Store(tmp_db).load_run(rescored).results
    assert result.diagnostics["judge"]["cached"] == 1 and result.diagnostics["judge"]["cost_usd"] == 0


def test_without_judge_cache_the_judge_is_asked_again_but_never_the_contender(tmp_path, tmp_db, openai_server):
    _, original = judged_run(tmp_path, openai_server, tmp_db)
    assert main(["rescore", original, "--db", str(tmp_db), "--quiet"]) == 0
    assert [r["model"] for r in openai_server.requests] == ["test-model", "gpt-4o-mini", "gpt-4o-mini"]


def test_a_changed_rubric_is_judged_again_even_with_judge_cache(tmp_path, tmp_db, openai_server):
    suite, original = judged_run(tmp_path, openai_server, tmp_db)
    config = json.loads((suite / "evalcore.yaml").read_text())
    config["scorers"][0]["options"]["rubric"] = "Is the answer exactly right?"
    (suite / "evalcore.yaml").write_text(json.dumps(config))
    openai_server.content = answering(json.dumps({"correct": 1, "tone": 5, "reasoning": "wrong"}))
    assert main(["rescore", original, "--db", str(tmp_db), "--quiet", "--judge-cache"]) == 0
    assert openai_server.calls == 3  # the judge only
    (result,) = Store(tmp_db).load_run(newest(tmp_db)).results
    assert result.metrics["correct"] == 0.0 and result.raw == ANSWER


def test_a_run_file_rescores_with_the_suite_given(tmp_path, tmp_db, openai_server):
    suite, original = judged_run(tmp_path, openai_server, tmp_db)
    file = tmp_path / "run.json"
    assert main(["export", original, "--db", str(tmp_db), "-o", str(file)]) == 0
    other_db = tmp_path / "other.db"
    args = ["rescore", str(file), "--suite", str(suite), "--db", str(other_db), "--quiet", "--judge-cache"]
    assert main(args) == 0
    (run,) = Store(other_db).list_runs()
    assert scores(other_db, run["id"]) == scores(tmp_db, original)


def test_a_missing_suite_is_a_one_line_error(tmp_path, tmp_db, openai_server, capsys):
    _, original = judged_run(tmp_path, openai_server, tmp_db)
    code = main(["rescore", original, "--db", str(tmp_db), "--suite", str(tmp_path / "nowhere")])
    assert code == 2
    assert "give the suite folder with --suite PATH" in capsys.readouterr().err


@pytest.mark.parametrize("flag", [[], ["--judge-cache"]])
def test_the_bundled_support_demo_rescores_to_itself(tmp_path, flag):
    demo = Path(__file__).resolve().parents[2] / "data" / "runs" / "support-demo.json"
    db = tmp_path / "evalcore.db"
    suite = Path(__file__).resolve().parents[2] / "data" / "suites" / "support"
    assert main(["rescore", str(demo), "--suite", str(suite), "--db", str(db), "--quiet", *flag]) == 0
    (run,) = Store(db).list_runs()
    original = {r.key: (r.status, r.score, r.metrics) for r in read_run_file(demo).results}
    assert scores(db, run["id"]) == original
