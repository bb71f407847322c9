"""Inspect logs as runs: .eval (Zstandard and deflate) and .json, format versions 1 and 2, epochs, scorers,
errors, cancelled and unscored evals, NaN."""

from __future__ import annotations

import json

from evalcore.runfile.importers import import_notes, read_import, source_label
from tests.importing import INSPECT

MAIN = INSPECT / "capitals.eval"


def test_a_current_eval_log_with_zstandard_entries_imports_epochs_as_samples():
    run = read_import(MAIN)
    assert source_label(run) == "Inspect 0.3.285"
    assert run.info.provenance["source"]["layout"] == "Inspect .eval log (format version 2)"
    assert [c.id for c in run.contenders] == ["mockllm/model · t=0.0"]
    assert run.contenders[0].settings == {"temperature": 0.0}
    assert [c.id for c in run.cases] == ["1", "2", "3", "4"]
    assert run.cases[0].expected == "Paris" and run.cases[0].dataset == "capitals"
    assert sorted({r.sample for r in run.results}) == [0, 1] and len(run.results) == 8


def test_each_scorer_is_a_metric_and_a_dict_valued_score_one_metric_per_key():
    run = read_import(MAIN)
    assert [(m.name, m.primary) for m in run.metrics] == [
        ("match", True),
        ("includes", False),
        ("city_checks_exact", False),
        ("city_checks_short", False),
    ]
    first = run.results[0]
    assert first.metrics == {"match": 1.0, "includes": 1.0, "city_checks_exact": 1.0, "city_checks_short": 1.0}
    assert first.diagnostics["match"] == {"value": "C", "answer": "Paris", "explanation": "Paris"}
    assert (first.usage.input_tokens, first.usage.output_tokens, first.usage.cost_usd) == (12, 1, None)


def test_a_sample_error_is_an_error_not_a_failed_score():
    run = read_import(MAIN)
    (failed,) = [r for r in run.results if r.status == "error"]
    assert (failed.case, failed.sample, failed.score, failed.metrics) == ("3", 0, None, {})
    assert failed.error.kind == "timeout" and "upstream timed out" in failed.error.message
    assert (failed.usage.input_tokens, failed.usage.output_tokens) == (None, None)


def test_an_older_eval_log_with_deflate_entries_gives_the_same_results():
    old, new = read_import(INSPECT / "v0.3.95" / "capitals.eval"), read_import(MAIN)
    assert source_label(old) == "Inspect 0.3.95"
    assert [(r.case, r.sample, r.status, r.metrics) for r in old.results] == [
        (r.case, r.sample, r.status, r.metrics) for r in new.results
    ]


def test_nan_in_a_json_log_becomes_null_with_a_note_not_a_refusal():
    run = read_import(INSPECT / "capitals-hot.json")
    kenya = next(r for r in run.results if r.case == "4")
    assert kenya.metrics == {"match": 0.0, "confidence": None} and kenya.score == 0.0
    assert "samples.3.scores.confidence.value: NaN is not a JSON number; imported as null" in import_notes(run)
    assert [c.id for c in run.contenders] == ["mockllm/model · t=0.9"]


def test_a_cancelled_eval_keeps_its_finished_samples_and_its_status():
    run = read_import(INSPECT / "capitals-cancelled.eval")
    assert run.info.status == "interrupted" and run.info.finished_at is None
    assert run.info.provenance["source"]["status"] == "cancelled"
    assert [r.case for r in run.results] == ["1", "2", "3"]
    assert any(n.startswith("samples/4_epoch_1.json: cancelled when the eval stopped") for n in import_notes(run))


def test_a_failed_eval_keeps_its_samples_the_error_and_the_status():
    run = read_import(INSPECT / "capitals-failed.eval")
    assert run.info.status == "failed" and "upstream timed out" in run.info.settings["error"]
    assert [(r.case, r.status) for r in run.results] == [("1", "scored"), ("2", "scored"), ("3", "error")]


def test_a_log_cut_off_while_running_reads_from_its_journal():
    run = read_import(INSPECT / "capitals-killed.eval")
    assert run.info.status == "interrupted" and run.info.provenance["source"]["status"] == "started"
    assert len(run.results) == 3


def test_an_unscored_log_is_ranked_by_completion():
    run = read_import(INSPECT / "capitals-unscored.eval")
    assert [(m.name, m.primary) for m in run.metrics] == [("completed", True)]
    assert {r.score for r in run.results} == {1.0}


def test_format_version_1_reads_its_single_scorer_chat_input_and_output_usage():
    run = read_import(INSPECT / "older" / "v1-log.json")
    assert [m.name for m in run.metrics] == ["match"]
    assert [c.id for c in run.contenders] == ["openai/gpt-4 · t=0.5 · max_tokens=256"]
    assert run.cases[0].input == {
        "messages": [{"role": "user", "content": "What is the capital of France? Answer with the city name only."}]
    }
    assert run.cases[1].expected == ["Nairobi"] and run.cases[1].metadata == {"continent": "Africa", "confidence": None}
    assert [r.score for r in run.results] == [1.0, 0.0, 1.0] and run.results[2].output == "Tokyo"
    assert run.results[0].usage.input_tokens == 14
    assert run.info.created_at == "2024-05-01T12:00:00.000Z"  # +01:00 in the log
    assert "samples.1.metadata.confidence: NaN is not a JSON number; imported as null" in import_notes(run)


def _v1() -> dict:
    return json.loads((INSPECT / "older" / "v1-log.json").read_text().replace("NaN", "null"))


def test_the_primary_metric_is_one_every_finished_sample_has():
    log = _v1()
    log["results"]["scorer"] = {"name": "judge"}
    log["samples"][0]["scores"] = {"judge": {"value": None}, "match": {"value": "C"}}
    for sample in log["samples"][1:]:
        sample["scores"] = {"judge": {"value": 0.5}, "match": {"value": "I"}}
        del sample["score"]
    del log["samples"][0]["score"]
    run = read_import(json.dumps(log).encode(), name="log.json")
    assert [(m.name, m.primary) for m in run.metrics] == [("judge", False), ("match", True)]
    assert [r.score for r in run.results] == [1.0, 0.0, 0.0]


def test_scores_that_are_not_numbers_in_zero_to_one_are_null_with_a_note():
    log = _v1()
    values = ["P", 7, ["a", "b"]]
    for sample, value in zip(log["samples"], values, strict=True):
        sample["score"]["value"] = value
        sample["scores"] = {"match": sample.pop("score"), "judge": {"value": True}}
    run = read_import(json.dumps(log).encode(), name="log.json")
    assert [r.metrics["match"] for r in run.results] == [0.5, None, None]
    assert [r.metrics["judge"] for r in run.results] == [1.0, 1.0, 1.0]
    notes = import_notes(run)
    assert "samples.1: scores.match.value: 7 is outside [0, 1]; imported as null" in notes
    assert any(n.startswith("samples.2: scores.match.value: [") for n in notes)
