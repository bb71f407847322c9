"""Labels tables: read from CSV and JSON Lines with their cell rules, or from a run's case metadata and results."""

from __future__ import annotations

import pytest

from evalcore.analysis.people.labels import cell_value, judge_columns, label_text, labels_from_run, parse_labels
from evalcore.core import records
from evalcore.core.errors import ConfigError
from tests.factories import make_run


def test_cells_are_numbers_labels_or_missing():
    assert [cell_value(v, "x") for v in ("4", " 0.5 ", 3, 2.5, True, "FALSE", "yes")] == [
        4.0,
        0.5,
        3.0,
        2.5,
        1.0,
        0.0,
        "yes",
    ]
    assert [cell_value(v, "x") for v in ("", "  ", None, float("nan"), "NaN")] == [None] * 5
    assert cell_value(" Yes ", "x") == "Yes"  # trimmed, case kept


@pytest.mark.parametrize(("value", "message"), [({"a": 1}, "an object"), ([1], "a list"), ("inf", "not a finite")])
def test_a_cell_that_is_no_label_or_number_is_refused_with_its_place(value, message):
    with pytest.raises(ConfigError, match=f"labels.csv: line 3: judge: .*{message}"):
        cell_value(value, "labels.csv: line 3: judge")


def test_a_number_as_a_label_reads_in_its_shortest_form():
    assert [label_text(v) for v in (4.0, 0.5, -1.0, "4.0")] == ["4", "0.5", "-1", "4.0"]


def test_judge_columns_are_the_columns_named_judge_something():
    assert judge_columns(["id", "human", "judge", "question", "judge_swapped", "judgement"]) == [
        "judge",
        "judge_swapped",
        "judgement",
    ]


def test_csv_with_blank_cells_and_ignored_columns():
    text = "id,question,human,judge,judge_swapped\nq1,Why?,pass,pass,fail\nq2,How?,fail,,fail\n\nq3,What?,,pass,pass\n"
    table = parse_labels(text, "labels.csv")
    assert table.judges == ["judge", "judge_swapped"]
    assert table.frame["id"].tolist() == ["q1", "q2", "q3"]
    assert table.frame["human"].tolist() == ["pass", "fail", None]
    assert table.frame["judge"].tolist() == ["pass", None, "pass"]
    assert table.notes == ["ignored columns: question"]


def test_csv_from_a_spreadsheet_with_a_byte_order_mark_and_semicolons():
    table = parse_labels("\ufeffid ; human ; judge\r\n1;4;3,5\r\n2;5;5\r\n", "export.csv")
    assert table.frame["human"].tolist() == [4.0, 5.0]
    assert table.frame["judge"].tolist() == ["3,5", 5.0]  # a decimal comma is text: a label


def test_json_lines_and_a_json_array_read_alike():
    lines = '{"id": 1, "human": 4, "judge": 3.5}\n\n{"id": 2, "human": null, "judge": true, "judge_b": "x"}\n'
    array = '[{"id": 1, "human": 4, "judge": 3.5}, {"id": 2, "human": null, "judge": true, "judge_b": "x"}]'
    for text, name in ((lines, "labels.jsonl"), (array, "labels.json"), (lines, "labels.txt")):
        table = parse_labels(text, name)
        assert table.judges == ["judge", "judge_b"]
        assert table.frame["id"].tolist() == ["1", "2"]
        assert table.frame["human"].tolist() == [4.0, None]
        assert table.frame["judge"].tolist() == [3.5, 1.0]
        assert table.frame["judge_b"].tolist() == [None, "x"]


@pytest.mark.parametrize(
    ("text", "name", "message"),
    [
        ("human,judge\nyes,yes\n", "l.csv", r"l.csv: no 'id' column; columns found: human, judge"),
        ("id,judge\n1,yes\n", "l.csv", r"l.csv: no 'human' column"),
        ("id,human,score\n1,yes,yes\n", "l.csv", r"l.csv: no judge column: name one 'judge'"),
        ("id,human,judge\n1,yes,no\n2,no,no\n1,no,yes\n", "l.csv", r"l.csv: line 4: id '1' again \(first at line 2\)"),
        ("id,human,judge\n,yes,no\n", "l.csv", r"l.csv: line 2: the id is blank"),
        ("id,human,judge\n1,yes,no,extra\n", "l.csv", r"l.csv: line 2: 4 cells, the header has 3"),
        ("id,human,judge,judge\n1,a,b,c\n", "l.csv", r"l.csv: line 1: column 'judge' appears twice"),
        ("id,human,judge\n", "l.csv", r"l.csv: no rows"),
        ("", "l.csv", r"l.csv: empty file"),
        ('{"id": 1, "human": "a", "judge": "a"}\n{"id": 1, "human": "b", "judge": "b"}\n', "l.jsonl", "line 2: id '1'"),
        ('{"id": 1, "human": "a", "judge": "a"}\n{"id": 2,\n', "l.jsonl", r"l.jsonl: line 2, column 10: not valid"),
        ('{"id": 1, "human": "a", "judge": "a"}\n[1, 2]\n', "l.jsonl", r"l.jsonl: line 2: not a JSON object"),
        ('{"id": 1, "human": ["a"], "judge": "a"}\n', "l.jsonl", r"l.jsonl: line 1: human: a list is not a label"),
    ],
)
def test_bad_files_are_refused_with_one_line_naming_the_place(text, name, message):
    with pytest.raises(ConfigError, match=message) as caught:
        parse_labels(text, name)
    assert "\n" not in str(caught.value)


def labelled_run(samples: int = 1) -> records.Run:
    """Three cases of two contenders; the first two cases carry a human label under ``human``."""
    run = make_run(n_contenders=2, n_cases=3, samples=samples, with_errors=False)
    run.cases[0].metadata["human"] = 0.5
    run.cases[1].metadata["human"] = "1"
    return run


def test_a_run_gives_a_row_per_case_with_the_key_and_the_mean_over_samples():
    run = labelled_run(samples=2)
    table = labels_from_run(run, "human", contenders=[run.contenders[0].id])
    assert table.judges == ["score"]
    assert table.frame["id"].tolist() == [f"{c.dataset}/{c.id}" for c in run.cases[:2]]
    assert table.frame["human"].tolist() == [0.5, 1.0]
    first = [r.score for r in run.results if r.contender == run.contenders[0].id and r.case == run.cases[0].id]
    assert table.frame["score"].tolist()[0] == pytest.approx(sum(first) / 2)
    assert table.notes == ["2 of 3 cases carry metadata 'human'"]


def test_a_run_names_a_judge_column_per_contender_and_metric():
    run = labelled_run()
    ids = [c.id for c in run.contenders]
    table = labels_from_run(run, "human", ["score", "exact_match"], ids)
    assert table.judges == [f"{i}: {m}" for i in ids for m in ("score", "exact_match")]
    assert labels_from_run(run, "human", ["score"], ids).judges == ids


def test_failed_calls_are_missing_and_outputs_give_labels_by_majority_over_samples():
    run = labelled_run(samples=3)
    mine = [r for r in run.results if r.contender == run.contenders[0].id]
    for r, label in zip(mine, ["no", "yes", "yes", "maybe", "no", "yes"], strict=False):
        r.output = {"verdict": {"label": label}}
    for r in mine:
        if r.case == run.cases[2].id or r.case == run.cases[1].id:
            r.status, r.score, r.metrics = "error", None, {}
    table = labels_from_run(run, "human", ["output.verdict.label"], [run.contenders[0].id])
    assert table.frame["output.verdict.label"].tolist() == ["yes", None]


def test_a_tie_between_labels_goes_to_the_lowest_sample():
    run = labelled_run(samples=2)
    mine = [r for r in run.results if r.contender == run.contenders[0].id]
    for r in mine:
        r.output = "early" if r.sample == 0 else "late"
    table = labels_from_run(run, "human", ["output"], [run.contenders[0].id])
    assert table.frame["output"].tolist()[0] == "early"


@pytest.mark.parametrize(
    ("key", "metrics", "contenders", "message"),
    [
        ("verdict", ["score"], [0], r"no case has the metadata key 'verdict' \(--human-key\); keys found: difficu"),
        ("human", ["score"], [], r"has 2 contenders: choose with --contender"),
        ("human", ["score"], ["nobody"], r"no contender 'nobody'"),
        ("human", ["tone"], [0], r"--judge-metric 'tone' is not a metric of this run; use one of exact_match"),
    ],
)
def test_a_run_without_what_is_asked_is_refused(key, metrics, contenders, message):
    run = labelled_run()
    chosen = [run.contenders[c].id if isinstance(c, int) else c for c in contenders]
    with pytest.raises(ConfigError, match=message):
        labels_from_run(run, key, metrics, chosen)


def test_an_object_output_must_be_narrowed_to_a_field():
    run = labelled_run()
    with pytest.raises(
        ConfigError, match=r"output: an object is not a label .*; name a field of it: --judge-metric outp"
    ):
        labels_from_run(run, "human", ["output"], [run.contenders[0].id])
