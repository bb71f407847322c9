"""promptfoo result files as runs: each layout, contenders per column, errors never scored, placeholders null."""

from __future__ import annotations

import copy
import json

import pytest

from evalcore.runfile.importers import import_notes, read_import, source_label
from tests.importing import PROMPTFOO

EVAL_OUTPUT = PROMPTFOO / "eval-output.json"


def _read(tree: dict, name: str = "out.json"):  # noqa: ANN202
    return read_import(json.dumps(tree).encode(), name=name)


def _by(run, contender: str, case: str):  # noqa: ANN001, ANN202
    return next(r for r in run.results if r.contender == contender and r.case == case)


def test_eval_output_gives_a_contender_per_provider_and_prompt_and_a_case_per_test():
    run = read_import(EVAL_OUTPUT)
    assert run.info.suite == "Capital cities" and run.info.status == "completed"
    assert len(run.contenders) == 8 and len(run.cases) == 4 and len(run.results) == 32
    cold = next(c for c in run.contenders if c.id == "mini-cold · prompt=plain")
    hot = next(c for c in run.contenders if c.id == "mini-hot · prompt=plain")
    # one model, two labels and temperatures: two contenders; keys and URLs stay out of the settings
    assert cold.model == hot.model == "openai:chat:gpt-4o-mini"
    assert (cold.settings, hot.settings) == (
        {"prompt": "plain", "temperature": 0},
        {"prompt": "plain", "temperature": 0.9},
    )
    assert [c.id for c in run.cases] == ["1", "2", "3", "4"]
    assert run.cases[1].metadata["description"] == "Japan, two named metrics"


def test_metrics_are_pass_the_score_and_one_per_named_score():
    run = read_import(EVAL_OUTPUT)
    assert [(m.name, m.primary) for m in run.metrics] == [
        ("pass", True),
        ("assert_score", False),
        ("accuracy", False),
        ("brevity", False),
    ]
    echo = _by(run, "echo · prompt=terse", "2")
    assert echo.score == 0.0 and echo.metrics == {"pass": 0.0, "assert_score": 0.5, "accuracy": 0.0, "brevity": 1.0}
    assert echo.diagnostics["reason"].startswith("Expected output to contain")


def test_an_error_row_is_an_error_with_its_placeholders_as_null():
    run = read_import(EVAL_OUTPUT)
    failed = _by(run, "structured · prompt=plain", "3")
    assert failed.status == "error" and failed.score is None and failed.metrics == {}
    assert failed.error.kind == "timeout" and "503 Service Unavailable" in failed.error.message
    # promptfoo wrote cost 0, tokens 0 and score 0 on the row: not measurements
    assert (failed.usage.input_tokens, failed.usage.output_tokens, failed.usage.cost_usd) == (None, None, None)


def test_an_object_output_is_kept_as_an_object_with_its_json_as_the_reply_text():
    result = _by(read_import(EVAL_OUTPUT), "structured · prompt=plain", "1")
    assert result.output == {"city": "Paris", "confidence": 0.9}
    assert json.loads(result.raw) == result.output
    assert (result.usage.input_tokens, result.usage.output_tokens, result.usage.cost_usd) == (12, 5, 2.1e-05)


def test_a_test_sent_as_two_prompts_takes_its_vars_as_input_and_each_result_its_prompt():
    run = read_import(EVAL_OUTPUT)
    assert run.cases[0].input == {"vars": {"country": "France"}}
    assert _by(run, "mini-cold · prompt=terse", "1").diagnostics["prompt"] == "Capital of France:"


def test_the_node_api_summary_imports_with_one_contender_per_provider():
    run = read_import(PROMPTFOO / "node-summary.json")
    assert [c.id for c in run.contenders] == ["openai:chat:gpt-4o-mini", "echo"]
    assert run.cases[0].input == "What is the capital of France? Answer with the city name only."
    assert source_label(run) == "promptfoo"  # the summary does not say which version wrote it
    assert run.info.provenance["source"]["layout"] == "promptfoo evaluate() summary (results version 3)"


def test_provenance_names_promptfoo_its_version_the_eval_id_and_the_file():
    run = read_import(EVAL_OUTPUT, imported_at="2026-12-02T10:00:00.000Z")
    source = run.info.provenance["source"]
    assert run.info.provenance["tool"] == {"name": "promptfoo", "version": "0.121.20"}
    assert source_label(run) == "promptfoo 0.121.20"
    assert source["run_id"] == "eval-rju-2026-12-01T21:19:25" and source["file"] == "eval-output.json"
    assert run.info.id == f"promptfoo-{source['file_sha256'][:16]}"
    assert source["imported_at"] == "2026-12-02T10:00:00.000Z"


def test_results_version_2_reads_rows_without_indexes_or_failure_reasons():
    run = read_import(PROMPTFOO / "older" / "v2-table.json")
    assert [(c.id, c.settings) for c in run.contenders] == [("openai:gpt-3.5-turbo", {"temperature": 0.2})]
    wrong, limited, no_provider = (_by(run, "openai:gpt-3.5-turbo", i) for i in ("2", "3", "4"))
    # an assertion's failure written in `error` is a failed score; a failed call is an error
    assert (wrong.status, wrong.score) == ("scored", 0.0)
    assert limited.status == "error" and limited.error.kind == "rate_limit" and limited.latency_s is None
    # a row without a provider belongs to the table's only provider; a cached reply has no latency
    assert no_provider.output == {"city": "Tokyo"} and no_provider.latency_s is None
    assert [m.name for m in run.metrics] == ["pass", "assert_score", "accuracy"]
    assert source_label(run) == "promptfoo"


def test_results_version_3_without_the_metadata_block_still_imports():
    run = read_import(PROMPTFOO / "older" / "v3-no-metadata.json")
    assert run.info.provenance["tool"]["version"] == "unknown"
    assert run.info.provenance["source"]["run_id"] == "eval-rju-2026-12-01T21:19:25"
    assert len(run.contenders) == 4 and sum(r.status == "error" for r in run.results) == 2


def test_a_score_outside_zero_to_one_is_null_with_a_note():
    tree = json.loads(EVAL_OUTPUT.read_text())
    row = tree["results"]["results"][2]
    row["score"], row["namedScores"] = 7, {"Relevance (1-10)": 8}
    run = _read(tree)
    result = _by(run, "mini-cold · prompt=plain", "1")  # row 2 of the file
    assert result.metrics["assert_score"] is None and result.metrics["relevance_1_10"] is None
    assert result.score == 1.0  # the pass still counts
    assert any("results.2.score: 7 is outside [0, 1]" in n for n in import_notes(run))


def test_rows_of_one_provider_without_labels_but_other_settings_stay_separate_contenders():
    tree = json.loads((PROMPTFOO / "older" / "v2-table.json").read_text())
    for row in tree["results"]["results"][:2]:
        row["provider"] = {"id": "openai:gpt-4o", "label": "gpt-4o warm"}
    tree["config"]["providers"].append({"id": "openai:gpt-4o", "label": "gpt-4o warm", "config": {"temperature": 1}})
    run = _read(tree)
    assert {c.id: c.settings for c in run.contenders} == {
        "gpt-4o warm": {"temperature": 1},
        "openai:gpt-3.5-turbo": {"temperature": 0.2},
    }


def test_a_repeated_test_becomes_a_second_sample():
    tree = json.loads((PROMPTFOO / "older" / "v2-table.json").read_text())
    tree["results"]["results"].append(copy.deepcopy(tree["results"]["results"][0]))
    run = _read(tree)
    assert sorted(r.sample for r in run.results if r.case == "1") == [0, 1]


@pytest.mark.parametrize("name", ["results.csv", "upload", "eval.eval"])
def test_the_file_name_does_not_decide_the_kind(name):
    run = read_import(EVAL_OUTPUT.read_bytes(), name=name)
    assert run.info.provenance["tool"]["name"] == "promptfoo"
