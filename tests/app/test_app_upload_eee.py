"""pages/upload.py with Every Eval Ever records: a record alone, a zip of a record and its samples file, and a
record of another schema version refused."""

from __future__ import annotations

import io
import zipfile

from tests.app.test_app_shared import open_page, seed, texts, unescaped
from tests.importing import EEE

PAGE = "pages/upload.py"
RECORDS = EEE / "records"
OPEN_LLM = RECORDS / "98ea850e-7019-4728-a558-8b1819ec47c2.json"
WITH_SAMPLES = RECORDS / "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json"


def upload(at, *files):  # noqa: ANN001, ANN002, ANN201
    at.file_uploader[0].set_value(list(files))
    return at.run()


def _json(path) -> tuple[str, bytes, str]:  # noqa: ANN001
    return (path.name, path.read_bytes(), "application/json")


def test_the_page_says_it_takes_every_eval_ever_records(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = open_page(PAGE)
    assert "Every Eval Ever records" in " ".join(c.value for c in at.caption)


def test_an_aggregate_record_is_read_with_its_badge_and_its_rows_marked_aggregate_only(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = upload(open_page(PAGE), _json(OPEN_LLM))
    assert not at.exception and not at.error
    shown = texts(at)
    assert "Imported: HF Open LLM v2, 1 contender, 6 cases, 6 results." in shown
    assert any("Every Eval Ever 0.2.0" in unescaped(m.value) for m in at.markdown if "-badge[" in m.value)
    assert "6 of 6 benchmarks have no per-item results" in shown
    table = at.dataframe[0].value
    assert "P(best)" not in table.columns and "aggregate only" in " ".join(map(str, table["mark"]))


def test_a_zip_of_a_record_and_its_samples_file_is_read_item_by_item(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in (WITH_SAMPLES, WITH_SAMPLES.with_name(WITH_SAMPLES.stem + "_samples.jsonl")):
            archive.write(path, f"demo-model/{path.name}")
    at = upload(open_page(PAGE), ("demo-model.zip", buffer.getvalue(), "application/zip"))
    assert not at.exception and not at.error
    assert "Imported: <Platform>, 1 contender, 1 case, 1 result." in unescaped(texts(at))


def test_a_record_of_another_schema_version_is_refused_with_what_to_do(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = upload(open_page(PAGE), _json(RECORDS / "297419fa-855c-4eae-ad7c-3cf4a0262450.json"))
    assert not at.exception
    problems = " ".join(c.value for c in at.code)
    assert 'schema_version: "0.1.0" is not read here' in problems and "every_eval_ever 0.3" in problems
