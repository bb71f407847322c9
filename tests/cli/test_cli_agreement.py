"""``evalcore agreement`` through a real process: both formats, a stored run with ``--human-key``, exit codes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from evalcore.core import records
from evalcore.runfile.write import write_run_file
from evalcore.storage.store import Store
from tests.cli.process import evalcore as run
from tests.factories import make_run

ROOT = Path(__file__).resolve().parents[2]


ENV = {"COLUMNS": "100"}


def evalcore(*argv: object, db: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run(*argv, db=db, env=ENV)


@pytest.fixture
def labels_csv(tmp_path: Path) -> Path:
    """Wikipedia's kappa example (yes/yes 20, yes/no 5, no/yes 10, no/no 15), a second judge, one blank."""
    pairs = [("yes", "yes")] * 20 + [("yes", "no")] * 5 + [("no", "yes")] * 10 + [("no", "no")] * 15
    lines = ["id,question,human,judge,judge_swapped"]
    lines += [f"q{i},text {i},{h},{j},{j if i % 10 else ''}" for i, (h, j) in enumerate(pairs)]
    path = tmp_path / "labels.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_labels_file_prints_accuracy_kappa_and_the_confusion_matrix(labels_csv: Path):
    done = evalcore("agreement", labels_csv)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"{labels_csv}: 50 rows; judges: judge, judge_swapped" in out
    assert "ignored columns: question" in out
    assert "judge vs human, as labels" in out
    assert "judge          50  0        70.0% [" in out and "  0.40 [" in out
    assert "judge_swapped  45  5        " in out
    assert "between judges, as labels" in out and "judge  judge_swapped  45  5        100.0% [" in out
    assert "human (rows) x judge (columns)\n     no  yes\nno   15   10\nyes   5   20\n" in out
    assert "(1000 resamples, seed 0)" in out


def test_json_has_every_statistic_with_its_interval(labels_csv: Path):
    done = evalcore("agreement", labels_csv, "--format", "json", "--seed", "5", "--resamples", "200")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["rows"], data["resamples"], data["seed"], data["level"]) == (50, 200, 5, 0.95)
    judge, swapped = data["judges"]
    assert (judge["judge"], judge["kind"], judge["n"], judge["missing"]) == ("judge", "labels", 50, 0)
    assert judge["kappa"]["value"] == pytest.approx(0.4)
    assert judge["kappa"]["lo"] <= 0.4 <= judge["kappa"]["hi"]
    assert judge["accuracy"]["value"] == pytest.approx(0.7)
    assert judge["labels"] == ["no", "yes"] and judge["confusion"] == [[15, 10], [5, 20]]
    assert swapped["missing"] == 5
    (pair,) = data["pairs"]
    assert (pair["a"], pair["b"], pair["n"]) == ("judge", "judge_swapped", 45)
    assert pair["kappa"]["value"] == pytest.approx(1.0)
    again = evalcore("agreement", labels_csv, "--format", "json", "--seed", "5", "--resamples", "200")
    assert json.loads(again.stdout) == data  # the same seed, the same intervals


def test_numbers_get_correlations_and_labels_can_be_forced(tmp_path: Path):
    ratings = [(1, 1), (2, 3), (3, 3), (4, 5), (5, 5), (2, 2), (4, 4), (3, 2)]
    path = tmp_path / "ratings.jsonl"
    path.write_text("".join(json.dumps({"id": i, "human": h, "judge": j}) + "\n" for i, (h, j) in enumerate(ratings)))
    table = evalcore("agreement", path)
    assert table.returncode == 0, table.stderr
    assert "judge vs human, as numbers" in table.stdout
    assert "pearson" in table.stdout and "spearman" in table.stdout and "MAE" in table.stdout
    assert "fewer than 30 rows, so wide intervals: judge" in table.stdout
    (judge,) = json.loads(evalcore("agreement", path, "--format", "json").stdout)["judges"]
    assert judge["kind"] == "numbers" and judge["mae"]["value"] == pytest.approx(
        3 / 8
    )  # |1-1|, |2-3|, ... = 0, 1, 0, 1, 0, 0, 0, 1
    assert {"pearson", "spearman", "mae"} <= set(judge) and "kappa" not in judge
    (forced,) = json.loads(evalcore("agreement", path, "--labels", "--format", "json").stdout)["judges"]
    assert forced["kind"] == "labels" and forced["labels"] == ["1", "2", "3", "4", "5"] and "kappa" in forced


def labelled_run() -> records.Run:
    """Two contenders over 40 cases; each case's ``human`` label is the first contender's exact_match."""
    run = make_run(n_contenders=2, n_cases=40, with_errors=False)
    first = run.contenders[0].id
    for case in run.cases:
        (result,) = [r for r in run.results if r.contender == first and r.case == case.id]
        case.metadata["human"] = bool(result.metrics["exact_match"])
    return run


def test_a_stored_run_compares_a_metric_with_the_label_in_case_metadata(tmp_path: Path):
    run = labelled_run()
    db = tmp_path / "store.db"
    with Store(db) as store:
        store.import_run(run)
    first, second = (c.id for c in run.contenders)
    done = evalcore(
        "agreement", run.info.id, "--human-key", "human", "--contender", first, "--judge-metric", "exact_match", db=db
    )
    assert done.returncode == 0, done.stderr
    assert f"run {run.info.id}: 40 rows; judge: exact_match" in done.stdout
    assert "40 of 40 cases carry metadata 'human'" in done.stdout
    assert "exact_match  40  0        100.0% [89.6–100.0%]" in done.stdout
    both = evalcore(
        "agreement",
        "run-0",
        "--human-key",
        "human",
        "--contender",
        first,
        "--contender",
        second,
        "--format",
        "json",
        db=db,
    )
    assert both.returncode == 0, both.stderr
    data = json.loads(both.stdout)
    assert [j["judge"] for j in data["judges"]] == [first, second]  # the primary score of each
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [(first, second)]


def test_a_run_file_works_as_a_stored_run_does(tmp_path: Path):
    path = write_run_file(labelled_run(), tmp_path / "run.json")
    first = labelled_run().contenders[0].id
    done = evalcore("agreement", path, "--human-key", "human", "--contender", first, "--judge-metric", "exact_match")
    assert done.returncode == 0, done.stderr
    assert "exact_match  40  0        100.0%" in done.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file (a run id needs --human-key KEY)"),
        ("human,judge\nyes,yes\n", "no 'id' column; columns found: human, judge"),
        ("id,judge\n1,yes\n", "no 'human' column; columns found: id, judge"),
        (
            "id,human,verdict\n1,yes,yes\n",
            "no judge column: name one 'judge' (or 'judge_<name>' for several); columns found: id, human, verdict",
        ),
        ("id,human,judge\n1,yes,yes\n1,no,no\n", "line 3: id '1' again (first at line 2)"),
    ],
)
def test_bad_labels_files_exit_2_with_one_line(tmp_path: Path, content: str | None, message: str):
    path = tmp_path / "labels.csv"
    if content is not None:
        path.write_text(content)
    for fmt in ("table", "json"):
        done = evalcore("agreement", path, "--format", fmt)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr == f"error: {path}: {message}\n"


def test_a_run_with_no_case_carrying_the_key_exits_2(tmp_path: Path):
    path = write_run_file(labelled_run(), tmp_path / "run.json")
    done = evalcore("agreement", path, "--human-key", "verdict")
    assert done.returncode == 2
    assert done.stderr == (
        "error: run run-0001: no case has the metadata key 'verdict' (--human-key); "
        "keys found: difficulty, human, words\n"
    )
    several = evalcore("agreement", path, "--human-key", "human")
    assert several.returncode == 2 and "has 2 contenders: choose with --contender" in several.stderr
    unknown = evalcore("agreement", "no-such-run", "--human-key", "human", db=tmp_path / "empty.db")
    assert unknown.returncode == 2 and "no-such-run" in unknown.stderr


def test_run_options_without_human_key_exit_2(labels_csv: Path):
    done = evalcore("agreement", labels_csv, "--judge-metric", "score")
    assert done.returncode == 2
    assert done.stderr == "error: --judge-metric and --contender read a run: give --human-key KEY too\n"


def test_the_example_in_the_docs_is_what_the_command_prints():
    doc = (ROOT / "docs" / "judges.md").read_text()
    command = "$ evalcore agreement docs/examples/agreement-labels.csv\n"
    shown = doc[doc.index(command) + len(command) :].split("```")[0]
    done = evalcore("agreement", "docs/examples/agreement-labels.csv")
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown
