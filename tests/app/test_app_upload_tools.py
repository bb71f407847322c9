"""pages/upload.py with promptfoo result files and Inspect logs: several files at once, each with its source's
badge, and the Merge action."""

from __future__ import annotations

from evalcore.runfile.write import dump_run
from evalcore.storage.store import Store
from tests.app.test_app_shared import demo_run, open_page, record_page_switches, seed, texts, unescaped
from tests.importing import INSPECT, PROMPTFOO

PAGE = "pages/upload.py"
PROMPTFOO_FILE = ("eval-output.json", (PROMPTFOO / "eval-output.json").read_bytes(), "application/json")
EVAL_LOG = ("capitals.eval", (INSPECT / "capitals.eval").read_bytes(), "application/octet-stream")
HOT_LOG = ("capitals-hot.json", (INSPECT / "capitals-hot.json").read_bytes(), "application/json")


def upload(at, *files):  # noqa: ANN001, ANN002, ANN201
    at.file_uploader[0].set_value(list(files))
    return at.run()


def _badges(at) -> list[str]:  # noqa: ANN001
    return [unescaped(m.value) for m in at.markdown if "-badge[" in m.value]


def test_several_files_are_each_detected_shown_with_their_source_and_offered_to_merge(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = upload(open_page(PAGE), PROMPTFOO_FILE, EVAL_LOG)
    assert not at.exception and not at.error
    shown = texts(at)
    assert "Imported: Capital cities, 8 contenders, 4 cases, 32 results." in shown
    assert "Imported: capitals, 1 contender, 4 cases, 8 results." in shown
    assert len(_badges(at)) == 2
    assert "promptfoo 0.121.20" in _badges(at)[0] and "Inspect 0.3.285" in _badges(at)[1]
    assert len(at.dataframe) == 2
    assert [b.label for b in at.button].count("Save to the history") == 2
    assert "Merge" in [b.label for b in at.button]


def test_merge_by_id_ranks_both_tools_contenders_in_one_table_and_can_be_saved(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    switches = record_page_switches(monkeypatch)
    at = upload(open_page(PAGE), PROMPTFOO_FILE, EVAL_LOG)
    at.checkbox[0].check()
    next(b for b in at.button if b.label == "Merge").click().run()
    assert not at.exception and not at.error
    assert "Valid run file: Capital cities + capitals, 9 contenders, 4 cases, 40 results." in texts(at)
    assert len(at.dataframe[2].value) == 9
    save = [b for b in at.button if b.label == "Save to the history"][-1]
    save.click().run()
    assert not at.exception and switches == ["pages/leaderboard.py"]
    assert any(r["id"].startswith("merge-") for r in Store(tmp_path / "evalcore.db").list_runs())


def test_merging_runs_that_share_no_case_says_how_to_match_them(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = upload(open_page(PAGE), PROMPTFOO_FILE, EVAL_LOG)
    next(b for b in at.button if b.label == "Merge").click().run()
    assert "the runs share no case" in unescaped(at.error[0].value)


def test_two_inspect_logs_merge_by_dataset_and_id(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = upload(open_page(PAGE), EVAL_LOG, HOT_LOG)
    assert "import note" in " ".join(e.label for e in at.expander)
    next(b for b in at.button if b.label == "Merge").click().run()
    assert not at.error
    assert "capitals, 2 contenders, 4 cases, 12 results." in texts(at)


def test_a_bad_file_among_good_ones_is_refused_alone(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = upload(open_page(PAGE), ("other.json", b'{"rows": []}', "application/json"), EVAL_LOG)
    assert len(at.error) == 1 and "other.json is not a valid run file: 1 problem" in unescaped(at.error[0].value)
    assert at.code[0].value.startswith("(file): found a JSON object with keys rows; expected an evalcore run file")
    assert len(at.dataframe) == 1 and "Merge" not in [b.label for b in at.button]


def test_an_inspect_log_alone_is_saved_under_the_id_its_file_gives(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    switches = record_page_switches(monkeypatch)
    at = upload(open_page(PAGE), EVAL_LOG)
    assert [b.label for b in at.button] == ["Open on the leaderboard", "Save to the history"]
    at.button[1].click().run()
    assert [r["id"] for r in Store(tmp_path / "evalcore.db").list_runs()] == ["inspect-c76df0ba5dcd0ef7"]
    assert switches == ["pages/leaderboard.py"]
    again = upload(open_page(PAGE), EVAL_LOG)
    assert "already in the history, with the same content" in texts(again)


def test_a_run_file_next_to_an_import_keeps_its_own_wording(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = upload(open_page(PAGE), ("run.json", dump_run(demo_run()), "application/json"), EVAL_LOG)
    assert "Valid run file: intake, 4 contenders, 9 cases, 36 results." in texts(at)
    assert len(_badges(at)) == 1


def test_a_failed_inspect_log_shows_its_status_and_error_not_a_green_imported(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    log = ("capitals-failed.eval", (INSPECT / "capitals-failed.eval").read_bytes(), "application/octet-stream")
    at = upload(open_page(PAGE), log)
    assert not at.exception and not at.success
    (shown,) = [unescaped(e.value) for e in at.error]
    assert "Imported: capitals, 1 contender, 3 cases, 3 results." in shown
    assert "The run failed (Inspect's log status: error): RuntimeError('upstream timed out" in shown


def test_a_log_without_results_gets_a_warning_and_no_table(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    log = ("capitals-empty.eval", (INSPECT / "capitals-empty.eval").read_bytes(), "application/octet-stream")
    at = upload(open_page(PAGE), log)
    assert not at.exception and not at.success
    assert "The run holds no result: there is nothing to rank." in unescaped(at.warning[0].value)
    assert len(at.dataframe) == 0


def test_an_upload_cut_short_says_how_many_results_are_missing(monkeypatch, tmp_path):
    from tests.factories import cut_run

    seed(monkeypatch, tmp_path)
    at = upload(open_page(PAGE), ("cut.json", dump_run(cut_run()), "application/json"))
    assert not at.exception
    assert "276 of 576 results are missing" in unescaped(at.warning[0].value)


def _lm_eval_zip(checkpoint: str) -> tuple[str, bytes, str]:
    import io
    import zipfile

    from tests.importing import LM_EVAL

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in (LM_EVAL / checkpoint / checkpoint).iterdir():
            archive.write(path, f"{checkpoint}/{path.name}")
    return (f"{checkpoint}.zip", buffer.getvalue(), "application/zip")


def test_zips_of_two_lm_eval_output_folders_are_read_with_their_badge_and_merge(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = upload(open_page(PAGE), _lm_eval_zip("ckpt-1000"), _lm_eval_zip("ckpt-2000"))
    assert not at.exception and not at.error
    shown = texts(at)
    assert "Imported: lm-eval: capitals_gen, capitals_vote, 1 contender, 24 cases, 24 results." in shown
    assert all("lm-eval 0.4.13" in badge for badge in _badges(at))
    next(b for b in at.button if b.label == "Merge").click().run()
    assert not at.exception and not at.error
    assert len(at.dataframe[2].value) == 2


def test_an_lm_eval_results_file_alone_is_refused_saying_to_upload_the_folder_as_a_zip(monkeypatch, tmp_path):
    from tests.importing import LM_EVAL

    seed(monkeypatch, tmp_path)
    results = next((LM_EVAL / "ckpt-1000").rglob("results_*.json"))
    at = upload(open_page(PAGE), ("results.json", results.read_bytes(), "application/json"))
    assert not at.exception
    assert "upload a zip of the folder" in " ".join(c.value for c in at.code)


def test_an_otlp_traces_file_is_read_with_its_badge_and_notes(monkeypatch, tmp_path):
    from tests.importing import OTLP

    seed(monkeypatch, tmp_path)
    traces = ("chat-traces.json", (OTLP / "chat-traces.json").read_bytes(), "application/json")
    at = upload(open_page(PAGE), traces)
    assert not at.exception and not at.error
    assert "Imported: support-bot, 2 contenders, 7 cases, 7 results." in texts(at)
    assert "OpenTelemetry traces" in _badges(at)[0]
    assert "were not captured" in texts(at)


def test_an_uploaded_inspect_log_of_dialogues_notes_how_many_samples_were_conversations(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    chat = ("support-chat.eval", (INSPECT / "support-chat.eval").read_bytes(), "application/octet-stream")
    at = upload(open_page(PAGE), chat)
    assert not at.exception and not at.error
    assert "Imported: support_chat, 1 contender, 3 cases, 3 results." in texts(at)
    notes = next(c.value for c in at.code if "were conversations" in c.value)
    assert notes.startswith("2 of 3 samples were conversations (more than one user turn)")
