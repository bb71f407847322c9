"""`evalcore import` of promptfoo result files and Inspect logs (files and folders) and `evalcore merge`, run as
real processes."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

from evalcore.cli.imports import Bar, format_bar
from evalcore.runfile.read import read_run_file
from evalcore.storage.store import Store
from tests.cli.process import evalcore
from tests.importing import INSPECT, PROMPTFOO

PROMPTFOO_FILE = PROMPTFOO / "eval-output.json"
EVAL_LOG = INSPECT / "capitals.eval"


def _ids(db: Path) -> list[str]:
    return sorted(r["id"] for r in Store(db).list_runs())


def test_import_takes_a_promptfoo_file_and_an_inspect_log_and_names_their_tools(tmp_path):
    db = tmp_path / "e.db"
    done = evalcore("import", PROMPTFOO_FILE, EVAL_LOG, db=db)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("imported run promptfoo-0c6d542eacd32996 (Capital cities, 32 results)")
    assert lines[0].endswith("from eval-output.json [promptfoo 0.121.20]")
    assert lines[1].endswith("(capitals, 8 results) from capitals.eval [Inspect 0.3.285]")
    assert _ids(db) == ["inspect-c76df0ba5dcd0ef7", "promptfoo-0c6d542eacd32996"]
    stored = Store(db).load_run("promptfoo-0c6d542eacd32996")
    assert sum(r.status == "error" for r in stored.results) == 2


def test_the_same_file_twice_changes_nothing_and_keeps_its_id(tmp_path):
    db = tmp_path / "e.db"
    assert evalcore("import", EVAL_LOG, db=db).returncode == 0
    again = evalcore("import", EVAL_LOG, db=db)
    assert again.returncode == 0 and "run inspect-c76df0ba5dcd0ef7 is already in the store" in again.stdout
    assert evalcore("import", EVAL_LOG, "--replace", db=db).returncode == 0
    assert _ids(db) == ["inspect-c76df0ba5dcd0ef7"]


def test_a_folder_imports_every_log_in_it_and_skips_other_files(tmp_path):
    logs = tmp_path / "logs"
    shutil.copytree(INSPECT, logs)
    (logs / ".hidden.json").write_text("{}")
    db = tmp_path / "e.db"
    done = evalcore("import", logs, db=db)
    assert done.returncode == 0, done.stderr
    assert (
        len(_ids(db))
        == len([p for p in logs.rglob("*") if p.suffix in (".eval", ".json") and "make" not in str(p)]) - 1
    )
    why = (
        "capitals.py: not a run file, promptfoo result file, Inspect log, lm-eval results file or Every Eval Ever "
        "record"
    )
    assert "skipped" in done.stderr and why in done.stderr
    assert ".hidden.json" not in done.stderr + done.stdout
    assert "note: samples.3.scores.confidence.value: NaN is not a JSON number; imported as null" in done.stdout


def test_a_file_of_an_unknown_layout_is_refused_saying_what_was_found_and_nothing_is_stored(tmp_path):
    bad = tmp_path / "notes.json"
    bad.write_text('{"rows": [1, 2]}')
    db = tmp_path / "e.db"
    done = evalcore("import", bad, EVAL_LOG, db=db)
    assert done.returncode == 2
    headline, problem = done.stderr.strip().splitlines()
    assert headline.startswith("error: ") and headline.endswith("notes.json: not a file evalcore can import")
    assert problem.startswith("  (file): found a JSON object with keys rows; expected an evalcore run file")
    assert _ids(db) == ["inspect-c76df0ba5dcd0ef7"]  # the good file still went in


def test_a_lone_surrogate_in_a_reply_is_a_clear_error_not_a_traceback(tmp_path):
    tree = json.loads(PROMPTFOO_FILE.read_text())
    tree["results"]["results"][0]["response"]["output"] = "half a pair: \ud800"
    bad = tmp_path / "surrogate.json"
    bad.write_text(json.dumps(tree))  # ASCII JSON: the escape stays "\ud800", as a tool may write it
    db = tmp_path / "e.db"
    done = evalcore("import", bad, db=db)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "cannot be stored" in done.stderr and "surrogates not allowed" in done.stderr
    assert _ids(db) == []


def test_a_truncated_log_is_refused_and_nothing_is_stored(tmp_path):
    cut = tmp_path / "cut.eval"
    cut.write_bytes(EVAL_LOG.read_bytes()[:9000])
    db = tmp_path / "e.db"
    done = evalcore("import", cut, db=db)
    assert done.returncode == 2 and "cut.eval: a zip archive that cannot be read\n  (file): truncated" in done.stderr
    assert _ids(db) == []


def test_an_imported_file_exports_and_ranks_like_any_run(tmp_path):
    db = tmp_path / "e.db"
    evalcore("import", PROMPTFOO_FILE, db=db)
    out = tmp_path / "run.json"
    assert evalcore("export", "promptfoo-0c6d", "-o", out, db=db).returncode == 0
    assert len(read_run_file(out).results) == 32
    table = evalcore("leaderboard", PROMPTFOO_FILE, "--format", "json", "--no-intervals", db=db)
    assert table.returncode == 0, table.stderr
    rows = json.loads(table.stdout)
    assert sum(r["errors"] for r in rows) == 2 and len(rows) == 8


def test_merge_writes_one_run_of_both_tools_contenders_and_can_store_it(tmp_path):
    db = tmp_path / "e.db"
    evalcore("import", PROMPTFOO_FILE, EVAL_LOG, db=db)
    out = tmp_path / "merged.json"
    refused = evalcore("merge", "promptfoo-0c6d", "inspect-c76d", "-o", out, db=db)
    assert refused.returncode == 2 and "share no case" in refused.stderr and not out.exists()
    done = evalcore("merge", "promptfoo-0c6d", "inspect-c76d", "--by-id", "-o", out, "--save", db=db)
    assert done.returncode == 0, done.stderr
    assert "9 contenders, 4 cases, 40 results" in done.stdout
    merged = read_run_file(out)
    assert merged.info.id in _ids(db) and len(merged.contenders) == 9


def test_merge_lists_the_cases_not_in_every_run(tmp_path):
    db = tmp_path / "e.db"
    log = json.loads((INSPECT / "older" / "v1-log.json").read_text().replace("NaN", "null"))
    log["samples"] = log["samples"][:2]
    short = tmp_path / "short.json"
    short.write_text(json.dumps(log))
    out = tmp_path / "m.json"
    done = evalcore("merge", INSPECT / "older" / "v1-log.json", short, "-o", out, db=db)
    assert done.returncode == 0, done.stderr
    assert "left out 1 case not in every run:" in done.stdout and "capitals / 3" in done.stdout


def test_the_progress_bar_draws_in_place_on_a_terminal_and_not_in_a_log():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen, log = Terminal(), io.StringIO()
    for stream in (screen, log):
        bar = Bar("big.eval", stream=stream, every_s=0)
        bar(5_000, 10_000)
        bar(10_000, 10_000)
        bar.close()
    assert log.getvalue() == ""
    assert screen.getvalue().count("\r\x1b[2K") == 2 and screen.getvalue().endswith("\n")
    assert format_bar("big.eval", 5_000, 10_000, 1.25).startswith("big.eval [############------------]   5,000/10,000")


def test_resuming_an_imported_run_left_unfinished_says_why_not(tmp_path):
    """A cancelled Inspect eval imports as ``interrupted``; evalcore has no suite to call the rest with."""
    db = tmp_path / "runs.db"
    assert evalcore("import", INSPECT / "capitals-cancelled.eval", db=db).returncode == 0
    (run_id,) = _ids(db)
    done = evalcore("run", "--resume", run_id, db=db)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"run {run_id} cannot be resumed: it was imported from capitals-cancelled.eval (inspect_ai)" in done.stderr


def test_importing_a_run_file_cut_short_says_how_many_results_are_missing_and_whose(tmp_path):
    from evalcore.runfile.write import write_run_file
    from tests.factories import cut_run

    path = tmp_path / "cut.json"
    write_run_file(cut_run(), path)
    done = evalcore("import", path, db=tmp_path / "e.db")
    assert done.returncode == 0, done.stderr
    said = "  warning: 276 of 576 results are missing (12 contenders × 48 cases × 1 sample); 5 contenders have none"
    assert said in done.stdout


def test_importing_a_failed_inspect_log_says_its_status_and_error(tmp_path):
    done = evalcore("import", INSPECT / "capitals-failed.eval", db=tmp_path / "e.db")
    assert done.returncode == 0, done.stderr
    assert "  warning: the run failed (Inspect's log status: error): RuntimeError('upstream timed out" in done.stdout


def test_the_leaderboard_of_a_failed_log_says_why_it_failed_and_why_its_calls_failed(tmp_path):
    done = evalcore("leaderboard", INSPECT / "capitals-failed.eval", db=tmp_path / "e.db")
    assert done.returncode == 0, done.stderr
    assert "warning: the run failed (Inspect's log status: error)" in done.stderr
    assert "errors: mockllm/model · t=0.0: 1 timeout; first: RuntimeError('upstream timed out" in done.stderr


def test_the_leaderboard_of_a_stored_run_cut_short_names_the_contenders_without_results(tmp_path):
    from tests.factories import cut_run

    run, db = cut_run(), tmp_path / "e.db"
    Store(db).import_run(run)
    done = evalcore("leaderboard", run.info.id, "--no-intervals", db=db)
    assert done.returncode == 0, done.stderr
    assert "warning: 276 of 576 results are missing" in done.stderr and run.contenders[11].id in done.stderr


def _inspect_listing(folder):
    """Inspect's logs.json of a folder: each log's file name → its header (no samples)."""
    header = {k: v for k, v in json.loads((INSPECT / "capitals-hot.json").read_text()).items() if k != "samples"}
    (folder / "logs.json").write_text(json.dumps({"capitals-hot.json": header}))


def test_an_inspect_listing_named_alone_says_to_import_its_folder(tmp_path):
    _inspect_listing(tmp_path)
    done = evalcore("import", tmp_path / "logs.json", db=tmp_path / "e.db")
    assert done.returncode == 2
    assert f"import the folder of the logs instead: evalcore import {tmp_path}" in done.stderr


def test_an_inspect_listing_in_a_folder_is_skipped_as_a_listing(tmp_path):
    shutil.copy(INSPECT / "capitals-hot.json", tmp_path)
    _inspect_listing(tmp_path)
    done = evalcore("import", tmp_path, db=tmp_path / "e.db")
    assert done.returncode == 0, done.stderr
    assert "logs.json: Inspect's listing of the folder's logs" in done.stderr


def test_importing_an_inspect_log_of_dialogues_says_how_many_samples_were_conversations(tmp_path):
    db, out = tmp_path / "e.db", tmp_path / "run.json"
    done = evalcore("import", INSPECT / "support-chat.eval", db=db)
    assert done.returncode == 0, done.stderr
    assert "  note: 2 of 3 samples were conversations (more than one user turn)" in done.stdout
    (run_id,) = _ids(db)
    assert evalcore("export", run_id, "-o", out, db=db).returncode == 0
    assert json.loads(out.read_text())["schema_version"] == 5
    stored = {r.case: r.trace for r in read_run_file(out).results}
    assert [s["kind"] for s in stored["greeted-5521"]] == ["user", "model", "user", "model", "tool", "model"]
