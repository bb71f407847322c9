import json
import subprocess
import sys
from pathlib import Path

import pytest

from evalcore.cli import COMMANDS, main
from evalcore.storage.store import Store
from tests.suites import write_suite


@pytest.fixture
def suite(tmp_path):
    return str(write_suite(tmp_path / "suite"))


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _one_run(capsys, suite, db, *extra):
    code, out, err = _run(capsys, "run", suite, "--db", db, "--quiet", *extra)
    assert code == 0, err
    (run,) = [r for r in json.loads(_run(capsys, "runs", "--db", db, "--format", "json")[1])]
    return run["id"]


def test_cases_lists_dataset_variant_id_words_and_expected_summary(capsys, suite):
    code, out, _ = _run(capsys, "cases", suite)
    assert code == 0
    assert "shop     complete  complete/001  12     6/6 fields set" in out
    assert "3 cases in 1 dataset\n" in out


def test_verify_reports_ok_on_a_good_suite_and_fails_on_a_broken_one(capsys, suite, tmp_path):
    code, out, _ = _run(capsys, "verify", suite)
    assert code == 0 and "ok: the suite is ready to run" in out
    (tmp_path / "suite" / "evalcore.yaml").write_text("suite: x\nadaptr: extract\n")
    code, out, _ = _run(capsys, "verify", suite)
    assert code == 2 and "adaptr: unknown key" in out


def test_verify_names_macro_f1_of_a_classification_suite(capsys):
    code, out, _ = _run(capsys, "verify", str(Path(__file__).parents[2] / "docs/examples/classification"))
    assert code == 0 and "primary correct; computed from the labels: macro_f1)" in out


def test_plan_counts_calls_and_names_refused_entries(capsys, tmp_path):
    root = write_suite(
        tmp_path / "s",
        config={
            "lineup": [
                {"model": "fake/oracle", "settings": {"temperature": [0, 1]}},
                {"model": "fake/oracle", "settings": {"reasoning_effort": "low"}},
            ]
        },
    )
    code, out, _ = _run(capsys, "plan", root, "--samples", "2")
    assert code == 0
    assert "12 results: 2 contenders x 3 cases x 2 samples" in out
    assert "refused: fake/oracle reasoning_effort=low: fake/oracle does not take reasoning_effort" in out
    assert "estimated cost: $" in out


def test_plan_names_a_missing_api_key(capsys, suite, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, out, _ = _run(capsys, "plan", suite, "-m", "openai/gpt-4o-mini")
    assert "missing API key: openai/gpt-4o-mini needs OPENAI_API_KEY" in out


def test_run_stores_the_run_and_prints_a_leaderboard(capsys, suite, tmp_db):
    code, out, err = _run(capsys, "run", suite, "--db", tmp_db)
    assert code == 0
    assert "★ best" in out and "completed" in out
    assert "fake/oracle · t=0" in err  # progress on stderr
    assert len(Store(tmp_db).list_runs()) == 1


def test_run_with_a_missing_key_stops_with_the_variable_named(capsys, suite, tmp_db, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, _, err = _run(capsys, "run", suite, "--db", tmp_db, "-m", "openai/gpt-4o-mini")
    assert code == 2 and "needs OPENAI_API_KEY" in err


def test_runs_json_has_id_suite_status_created_at(capsys, suite, tmp_db):
    run_id = _one_run(capsys, suite, tmp_db)
    (run,) = json.loads(_run(capsys, "runs", "--db", tmp_db, "--format", "json")[1])
    assert run["id"] == run_id and run["suite"] == "mini" and run["status"] == "completed"
    assert run["created_at"].endswith("Z")


def test_export_import_export_gives_the_same_file(capsys, suite, tmp_db, tmp_path):
    run_id = _one_run(capsys, suite, tmp_db)
    first, second = tmp_path / "a.json.gz", tmp_path / "b.json"
    assert _run(capsys, "export", run_id, "-o", first, "--db", tmp_db)[0] == 0
    other = tmp_path / "other.db"
    assert _run(capsys, "import", first, "--db", other)[0] == 0
    assert _run(capsys, "export", run_id, "-o", second, "--db", other)[0] == 0
    import gzip

    assert gzip.decompress(first.read_bytes()) == second.read_bytes()


def test_run_and_the_import_of_a_big_run_leave_its_leaderboard_summary_in_the_store(
    capsys, suite, tmp_db, tmp_path, monkeypatch
):
    from evalcore.analysis.tables.summaries import read_summary
    from evalcore.cli import history as cli

    run_id = _one_run(capsys, suite, tmp_db)
    assert read_summary(Store(tmp_db), run_id) is not None
    path, small, big = tmp_path / "run.json", tmp_path / "small.db", tmp_path / "big.db"
    _run(capsys, "export", run_id, "-o", path, "--db", tmp_db)
    assert _run(capsys, "import", path, "--db", small)[0] == 0
    assert read_summary(Store(small), run_id) is None  # the explorer computes a small run's on first open
    monkeypatch.setattr(cli, "SUMMARY_AT_IMPORT_ABOVE", 5)
    assert _run(capsys, "import", path, "--db", big)[0] == 0
    assert read_summary(Store(big), run_id) is not None


def test_import_of_a_run_already_stored_changes_nothing_and_replace_still_replaces(capsys, suite, tmp_db, tmp_path):
    run_id = _one_run(capsys, suite, tmp_db)
    path = tmp_path / "run.json"
    _run(capsys, "export", run_id, "-o", path, "--db", tmp_db)
    code, out, _ = _run(capsys, "import", path, "--db", tmp_db)
    assert code == 0 and f"run {run_id} is already in the store" in out
    assert _run(capsys, "import", path, "--db", tmp_db, "--replace")[0] == 0


def test_import_of_a_bad_file_stores_nothing_and_lists_problems(capsys, tmp_db, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "evalcore.run", "schema_version": 1}')
    code, _, err = _run(capsys, "import", path, "--db", tmp_db)
    assert code == 2 and "run:" in err
    assert Store(tmp_db).list_runs() == []


def test_resume_finishes_an_interrupted_run(capsys, suite, tmp_db):
    run_id = _one_run(capsys, suite, tmp_db)
    store = Store(tmp_db)
    with store.db.conn:
        store.db.conn.execute("DELETE FROM results WHERE rowid IN (SELECT rowid FROM results LIMIT 4)")
    store.set_status(run_id, "interrupted")
    code, out, err = _run(capsys, "run", "--resume", run_id, "--db", tmp_db, "--quiet")
    assert code == 0, err
    assert "5/9 results stored, 4 to go" in err
    assert len(Store(tmp_db).load_run(run_id).results) == 9


def test_leaderboard_json_is_ranked_with_the_documented_keys(capsys, suite, tmp_db):
    run_id = _one_run(capsys, suite, tmp_db)
    code, out, _ = _run(capsys, "leaderboard", run_id, "--db", tmp_db, "--format", "json")
    rows = json.loads(out)
    assert [r["rank"] for r in rows] == [1, 2, 3]
    for key in [
        "contender",
        "cases",
        "scored",
        "errors",
        "score",
        "field_accuracy",
        "hallucinated_rate",
        "cost",
        "time",
        "input_tokens",
        "output_tokens",
        "wscore",
        "best",
        "best_value",
        "score_lo",
        "score_hi",
        "p_best",
    ]:
        assert key in rows[0]
    assert rows[0]["best"] is True and rows[0]["wscore"] >= rows[1]["wscore"]


def test_leaderboard_refuses_a_weight_it_cannot_use(capsys, suite, tmp_db):
    run_id = _one_run(capsys, suite, tmp_db)
    code, _, err = _run(capsys, "leaderboard", run_id, "--db", tmp_db, "--weights", "input_tokens=1")
    assert code == 2 and "allowed names are score, errors, cost, time, field_accuracy" in err


def test_leaderboard_reads_a_run_file(capsys, suite, tmp_db, tmp_path):
    run_id = _one_run(capsys, suite, tmp_db)
    path = tmp_path / "run.json"
    _run(capsys, "export", run_id, "-o", path, "--db", tmp_db)
    code, out, _ = _run(capsys, "leaderboard", path, "--format", "markdown", "--no-intervals")
    assert code == 0 and out.startswith("|")


def test_weights_explains_direction_and_share(capsys, suite):
    code, out, _ = _run(capsys, "weights", suite, "--weights", "score=3,cost=-1")
    assert code == 0
    assert "score  3       higher is better  75.0%" in out
    assert "cost   -1      lower is better   25.0%" in out


def test_significance_prints_the_pairwise_matrix(capsys, suite, tmp_db):
    run_id = _one_run(capsys, suite, tmp_db, "--samples", "3")
    code, out, _ = _run(capsys, "significance", run_id, "--db", tmp_db, "--format", "json")
    pairs = json.loads(out)
    assert len(pairs) == 3 * 2
    assert {"a", "b", "n", "mean_diff", "lo", "hi", "p_value", "significant"} <= set(pairs[0])


def test_every_command_has_help_with_an_example():
    for name in COMMANDS:
        result = subprocess.run(
            [sys.executable, "-m", "evalcore.cli", name, "--help"], capture_output=True, text=True, check=True
        )
        assert "example:" in result.stdout


def test_every_command_is_in_the_readme():
    from pathlib import Path

    readme = Path(__file__).resolve().parents[2].joinpath("README.md").read_text()
    for name in COMMANDS:
        assert f"`evalcore {name}" in readme


def test_help_does_not_import_pandas_or_litellm():
    code = (
        "import sys; from evalcore.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "assert 'pandas' not in sys.modules and 'litellm' not in sys.modules, sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


def _modules_loaded_by(argv: list[str]) -> set[str]:
    """The modules a fresh ``evalcore ARGV`` has imported when it ends (with exit code 0)."""
    code = (
        "import json, sys; from evalcore.cli import main\n"
        f"try:\n    code = main({argv!r})\nexcept SystemExit as done:\n    code = done.code\n"
        "assert code == 0, code\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_help_does_not_import_numpy() -> None:
    assert "numpy" not in _modules_loaded_by(["--help"])


def test_help_does_not_import_the_reader_of_case_images() -> None:
    assert "evalcore.core.images" not in _modules_loaded_by(["--help"])


def test_help_does_not_import_the_store() -> None:
    code = (
        "import sys; from evalcore.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "assert 'sqlite3' not in sys.modules and 'evalcore.storage.history' not in sys.modules, 'store imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


def test_verify_does_not_import_numpy_or_pandas(suite) -> None:
    assert not {"numpy", "pandas"} & _modules_loaded_by(["verify", suite])


def test_run_against_an_openai_compatible_server_records_usage_cost_and_faults(
    capsys, suite, tmp_db, openai_server, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    openai_server.content = json.dumps(
        {"name": "Ann", "kind": "a", "count": 2, "amount": 10.5, "urgent": True, "tags": ["x", "y"]}
    )
    openai_server.script("status:429:0", "ok", "ok", "status:401")  # the refused key last: it stops the contender
    code, out, err = _run(
        capsys,
        "run",
        suite,
        "--db",
        tmp_db,
        "--quiet",
        "-m",
        "openai/local-model",
        "--api-base",
        openai_server.base_url,
        "--concurrency",
        "1",
        "-d",
        "shop",
    )
    # The refused key opened the breaker: its case is stored stopped, and a resume (the key fixed) asks it again.
    assert code == 1, err
    run = Store(tmp_db).load_run(json.loads(_run(capsys, "runs", "--db", tmp_db, "--format", "json")[1])[0]["id"])
    by_case = {r.case: r for r in run.results}
    assert by_case["complete/001"].attempts == 2 and by_case["complete/001"].score == 1.0
    assert by_case["complete/001"].usage.input_tokens > 0
    assert by_case["complete/002"].status == "scored" and by_case["complete/002"].score < 1.0
    assert by_case["vague/001"].status == "error" and by_case["vague/001"].error.kind == "auth"
    url = openai_server.base_url
    assert f"errors: openai/local-model: 1 auth; first: stopped calling {url}: it refused the key (401)" in err
    assert "1 case of openai/local-model stopped by its endpoint's circuit breaker; retry with" in err
    assert run.info.status == "interrupted"
    body = openai_server.requests[0]
    assert body["response_format"] == {"type": "json_object"} and body["model"] == "local-model"
    assert "sk-test-not-a-real-key" not in tmp_db.read_bytes().decode("latin-1")


def test_the_leaderboard_run_prints_is_the_one_leaderboard_computes_from_the_results(capsys, suite, tmp_db):
    code, printed, _ = _run(capsys, "run", suite, "--db", tmp_db, "--quiet")
    assert code == 0
    (run,) = json.loads(_run(capsys, "runs", "--db", tmp_db, "--format", "json")[1])
    computed = _run(capsys, "leaderboard", run["id"], "--db", tmp_db)[1]  # both fit the same width
    assert computed and printed.startswith(computed)


@pytest.mark.parametrize(
    "options",
    [
        [],
        ["--by-dataset"],
        ["--no-intervals"],
        ["--by-dataset", "--no-intervals"],
        ["--weights", "score=1,cost=-0.5", "--best-value-points", "5"],
        ["--format", "json"],
    ],
)
def test_the_leaderboard_from_a_runs_summary_is_the_one_from_its_results(capsys, suite, tmp_db, options):
    from evalcore.storage.store import Store

    run_id = _one_run(capsys, suite, tmp_db)  # evalcore run leaves the summary
    from_summary = _run(capsys, "leaderboard", run_id, "--db", tmp_db, *options)
    Store(tmp_db).conn.execute("DELETE FROM summaries")
    from_results = _run(capsys, "leaderboard", run_id, "--db", tmp_db, *options)
    assert from_summary == from_results and from_summary[0] == 0


def test_the_per_dataset_leaderboard_of_the_demo_from_its_summary_is_the_one_from_its_results(capsys, tmp_db):
    from pathlib import Path

    from evalcore.analysis.tables.summaries import write_summary
    from evalcore.runfile.read import read_run_file
    from evalcore.storage.store import Store

    run = read_run_file(Path(__file__).resolve().parents[2] / "data" / "runs" / "intake-demo.json")
    store = Store(tmp_db)
    store.import_run(run)
    write_summary(store, run.info.id)
    from_summary = _run(capsys, "leaderboard", run.info.id, "--db", tmp_db, "--by-dataset")
    store.conn.execute("DELETE FROM summaries")
    assert _run(capsys, "leaderboard", run.info.id, "--db", tmp_db, "--by-dataset") == from_summary
    assert from_summary[1].count("immigration_law") >= 10  # three datasets, ten contenders each
