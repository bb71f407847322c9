"""lm-evaluation-harness output folders (results JSON + samples JSON Lines) read as evalcore runs."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from evalcore.core.errors import RunFileError
from evalcore.runfile.importers import read_import
from evalcore.runfile.importers.detect import UnknownLayoutError
from evalcore.runfile.read import run_from_dict
from evalcore.runfile.write import run_to_dict
from tests.importing import LM_EVAL

CKPT_1000 = next((LM_EVAL / "ckpt-1000" / "ckpt-1000").glob("results_*.json"))
CKPT_2000 = next((LM_EVAL / "ckpt-2000" / "ckpt-2000").glob("results_*.json"))
DUMMY = next((LM_EVAL / "dummy").rglob("results_*.json"))


def _lines(results: Path, task: str) -> list[dict]:
    (path,) = results.parent.glob(f"samples_{task}_*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_each_task_is_a_dataset_and_each_document_a_case():
    run = read_import(CKPT_1000)
    assert sorted({c.dataset for c in run.cases}) == ["capitals_gen", "capitals_vote"]
    assert len(run.cases) == 24
    france = next(c for c in run.cases if c.dataset == "capitals_gen" and c.id == "0")
    assert france.expected == "Paris"
    assert france.input == {
        "messages": [{"role": "user", "content": "What is the capital of France? Answer with the city only."}]
    }
    assert france.metadata["doc"]["country"] == "France"


def test_the_model_and_its_model_args_are_the_contender():
    run = read_import(CKPT_1000)
    (contender,) = run.contenders
    assert contender.model == "ckpt-1000"
    assert contender.settings["lm_eval_model"] == "local-chat-completions"
    assert "base_url" not in contender.settings  # where it ran, not what it answers


def test_each_filter_of_a_metric_is_a_metric_whose_mean_is_lm_evals_aggregate():
    run = read_import(CKPT_1000)
    aggregates = json.loads(CKPT_1000.read_text())["results"]["capitals_gen"]
    for name, key in (
        ("exact_match_strict_match", "exact_match,strict-match"),
        ("exact_match_flexible_extract", "exact_match,flexible-extract"),
    ):
        values = [r.metrics[name] for r in run.results if r.dataset == "capitals_gen"]
        assert len(values) == 12
        assert sum(values) / 12 == pytest.approx(aggregates[key])


def test_a_multiple_choice_task_keeps_acc_and_acc_norm_and_its_choices():
    run = read_import(DUMMY)
    aggregates = json.loads(DUMMY.read_text())["results"]["capitals_mc"]
    assert [m.name for m in run.metrics] == ["headline", "acc", "acc_norm"]
    assert sum(r.metrics["acc"] for r in run.results) / 12 == pytest.approx(aggregates["acc,none"])
    assert sum(r.metrics["acc_norm"] for r in run.results) / 12 == pytest.approx(aggregates["acc_norm,none"])
    case = run.cases[0]
    assert case.input["choices"] == [" Paris", " Lyon", " Marseille", " Nice"]


def test_the_headline_metric_is_primary_and_each_results_score():
    run = read_import(CKPT_2000)
    assert [m.name for m in run.metrics if m.primary] == ["headline"]
    gen = [r for r in run.results if r.dataset == "capitals_gen"]
    assert all(r.score == r.metrics["exact_match_strict_match"] for r in gen)
    vote = [r for r in run.results if r.dataset == "capitals_vote"]
    assert all(r.score == r.metrics["exact_match_maj_3"] for r in vote)


def test_repeats_are_kept_as_replies_of_one_scored_result():
    run = read_import(CKPT_1000)
    lines = _lines(CKPT_1000, "capitals_vote")
    vote = {r.case: r for r in run.results if r.dataset == "capitals_vote"}
    assert len(vote) == 12 and all(r.sample == 0 for r in vote.values())
    assert vote["0"].diagnostics["replies"] == lines[0]["resps"][0]
    assert len(vote["0"].diagnostics["replies"]) == 3
    assert any("repeats: 3" in note for note in run.info.settings["import"]["notes"])


def test_the_import_round_trips_as_a_run_file():
    run = read_import(CKPT_1000)
    again = run_from_dict(json.loads(json.dumps(run_to_dict(run))))
    assert again.results == run.results and again.cases == run.cases


def test_the_same_folder_gives_the_same_id_and_another_samples_file_another(tmp_path):
    first = read_import(CKPT_1000).info.id
    assert first == read_import(CKPT_1000).info.id and first.startswith("lm_eval-")
    copy = tmp_path / "out"
    shutil.copytree(CKPT_1000.parent, copy)
    (samples,) = copy.glob("samples_capitals_vote_*.jsonl")
    samples.write_text(samples.read_text().splitlines()[0] + "\n")
    assert read_import(copy / CKPT_1000.name).info.id != first


def test_a_zip_of_the_folder_imports_as_the_folder_does():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in CKPT_2000.parent.iterdir():
            archive.write(path, f"out/ckpt-2000/{path.name}")
    run = read_import(buffer.getvalue(), name="ckpt-2000.zip")
    assert len(run.results) == 24
    assert run.contenders == read_import(CKPT_2000).contenders


def test_a_results_file_alone_is_refused_saying_to_send_the_folder():
    with pytest.raises(RunFileError, match="without its samples") as caught:
        read_import(CKPT_1000.read_bytes(), name="results.json")
    assert "zip of the folder" in caught.value.problems[0]


def test_a_samples_file_alone_is_refused_naming_its_results_file():
    (samples,) = CKPT_1000.parent.glob("samples_capitals_gen_*.jsonl")
    with pytest.raises(UnknownLayoutError, match="samples file on its own"):
        read_import(samples)


def test_a_truncated_samples_file_is_refused_with_its_name_and_line(tmp_path):
    copy = tmp_path / "out"
    shutil.copytree(CKPT_1000.parent, copy)
    (samples,) = copy.glob("samples_capitals_gen_*.jsonl")
    text = samples.read_text()
    samples.write_text(text[: len(text) - 200])
    with pytest.raises(RunFileError, match=samples.name) as caught:
        read_import(copy / CKPT_1000.name)
    assert caught.value.problems[0].startswith("line 24:")


def test_a_record_missing_doc_id_is_left_out_with_a_note_naming_file_and_line(tmp_path):
    copy = tmp_path / "out"
    shutil.copytree(CKPT_1000.parent, copy)
    (samples,) = copy.glob("samples_capitals_vote_*.jsonl")
    lines = samples.read_text().splitlines()
    record = json.loads(lines[2])
    del record["doc_id"]
    lines[2] = json.dumps(record)
    samples.write_text("\n".join(lines) + "\n")
    run = read_import(copy / CKPT_1000.name)
    assert len([r for r in run.results if r.dataset == "capitals_vote"]) == 11
    assert f"{samples.name}: line 3: a record has no doc_id; left out" in run.info.settings["import"]["notes"]


def test_a_corpus_metric_is_noted_and_a_task_with_no_document_score_left_out(tmp_path):
    copy = tmp_path / "out"
    shutil.copytree(CKPT_1000.parent, copy)
    (samples,) = copy.glob("samples_capitals_vote_*.jsonl")
    records = [json.loads(line) for line in samples.read_text().splitlines()]
    for record in records:  # as a span-F1 task writes them: the items its corpus aggregation takes
        record["exact_match"] = [record["target"], record["filtered_resps"]]
    samples.write_text("".join(json.dumps(r) + "\n" for r in records))
    run = read_import(copy / CKPT_1000.name)
    assert {r.dataset for r in run.results} == {"capitals_gen"}
    notes = run.info.settings["import"]["notes"]
    assert any(n.startswith(f"{samples.name}: line 1: exact_match:") and "imported as null" in n for n in notes)
    assert any("task capitals_vote: no metric (exact_match)" in n and "left out" in n for n in notes)


def test_a_results_file_with_no_samples_beside_it_is_refused_with_each_task_named(tmp_path):
    lonely = tmp_path / CKPT_1000.name
    lonely.write_bytes(CKPT_1000.read_bytes())
    with pytest.raises(RunFileError, match="no results to import") as caught:
        read_import(lonely)
    problems = "\n".join(caught.value.problems)
    assert "--log_samples" in problems
    assert "capitals_gen: no samples_capitals_gen_*.jsonl beside the results file" in problems


def test_older_samples_with_arguments_as_lists_give_prompt_and_choices(tmp_path):
    copy = tmp_path / "out"
    shutil.copytree(DUMMY.parent, copy)
    (samples,) = copy.glob("samples_*.jsonl")
    records = [json.loads(line) for line in samples.read_text().splitlines()]
    for record in records:  # lm-eval before 0.4.3 wrote each request's arguments as a list
        record["arguments"] = [[a["arg_0"], a["arg_1"]] for a in record["arguments"].values()]
    samples.write_text("".join(json.dumps(r) + "\n" for r in records))
    run = read_import(copy / DUMMY.name)
    assert run.cases[0].input == read_import(DUMMY).cases[0].input
    assert run.cases[0].input["prompt"] == "Question: What is the capital of France?\nAnswer:"


def test_a_samples_file_whose_first_line_is_long_is_still_told_apart(tmp_path):
    (samples,) = CKPT_1000.parent.glob("samples_capitals_gen_*.jsonl")
    lines = samples.read_text().splitlines()
    record = json.loads(lines[0])
    record["doc"]["padding"] = "x" * 100_000  # long few-shot prompts make lines this long
    path = tmp_path / samples.name
    path.write_text(json.dumps(record) + "\n" + "\n".join(lines[1:]) + "\n")
    with pytest.raises(UnknownLayoutError, match="samples file on its own"):
        read_import(path)


def test_a_zip_holding_two_runs_is_refused_naming_both_results_files():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for results in (CKPT_1000, CKPT_2000):
            for path in results.parent.iterdir():
                archive.write(path, f"{results.parent.name}/{path.name}")
    with pytest.raises(RunFileError, match="not one lm-evaluation-harness run") as caught:
        read_import(buffer.getvalue(), name="both.zip")
    assert "2 lm-evaluation-harness results files" in caught.value.problems[0]
    assert CKPT_1000.name in caught.value.problems[0] and CKPT_2000.name in caught.value.problems[0]
