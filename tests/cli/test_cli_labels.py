"""``evalcore leaderboard --labels``: each contender's per-label precision, recall, F1 and support."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalcore.cli import main
from evalcore.runfile.write import write_run_file
from tests.analysis.test_classification_metrics import labelled_run
from tests.factories import make_run


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def labelled(tmp_path: Path) -> Path:
    return write_run_file(labelled_run(), tmp_path / "labels.json")


def test_labels_prints_each_contenders_per_label_table_under_the_leaderboard(capsys, labelled):
    code, out, _ = _run(capsys, "leaderboard", labelled, "--labels")
    assert code == 0
    assert "labels of m1: 6 scored results, accuracy 50.0%, macro-F1 0.292" in out
    assert "label  precision  recall  F1     support  predicted" in out
    assert "c      –          0.000   0.000  1        0" in out
    assert "labels of m2: 6 scored results, accuracy 100.0%, macro-F1 1.000" in out


def test_labels_follow_the_filters(capsys, labelled):
    _, out, _ = _run(capsys, "leaderboard", labelled, "--labels", "-c", "m2")
    assert "labels of m2" in out and "labels of m1" not in out


def test_labels_in_json_sit_beside_the_leaderboard_rows(capsys, labelled):
    _, out, _ = _run(capsys, "leaderboard", labelled, "--labels", "--format", "json")
    data = json.loads(out)
    assert [row["contender"] for row in data["leaderboard"]] == ["m2", "m1"]
    first = data["labels"][0]
    assert (first["contender"], first["results"], first["accuracy"]) == ("m1", 6, 0.5)
    assert first["rows"][2] == {"label": "c", "precision": None, "recall": 0.0, "f1": 0.0, "support": 1, "predicted": 0}


def test_labels_on_a_run_without_labels_exits_2_saying_why(capsys, tmp_path):
    path = write_run_file(make_run(2, 3), tmp_path / "plain.json")
    code, _, err = _run(capsys, "leaderboard", path, "--labels")
    assert code == 2
    assert err.startswith("error: --labels: run ") and "no classification labels" in err
