"""evalcore.suite.images: a case's images are read and checked when the suite loads, kept as references with
their hash, and a contender whose model takes no images is left out by name."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.images import image_refs, sha256_of
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.readiness import check_ready
from evalcore.suite.fingerprint import definition_fingerprint
from evalcore.suite.loader import load_suite

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "receipts"
CASES = Path("datasets") / "receipts" / "cases.jsonl"
PNG = EXAMPLE / "datasets" / "receipts" / "images" / "cafe.png"


def receipts(tmp_path: Path, *cases: dict[str, Any]) -> Path:
    """A copy of the receipts example; ``cases`` (when given) replace its cases."""
    folder = tmp_path / "receipts"
    shutil.copytree(EXAMPLE, folder)
    if cases:
        (folder / CASES).write_text("".join(json.dumps(c) + "\n" for c in cases))
    return folder


def one_image(image: dict[str, Any]) -> dict[str, Any]:
    return {"id": "one", "input": {"text": "What is the total?", "images": [image]}, "expected": "6.00"}


def test_a_file_image_becomes_its_path_media_type_hash_and_size_with_its_pixels_on_the_case(tmp_path: Path) -> None:
    suite = load_suite(receipts(tmp_path))
    case = next(c for c in suite.cases if c.id == "cafe")
    data = PNG.read_bytes()
    ref = {"path": "datasets/receipts/images/cafe.png", "media_type": "image/png", "sha256": sha256_of(data)}
    assert image_refs(case.input) == [{**ref, "bytes": len(data)}]
    assert case.images == {sha256_of(data): data}


def test_an_inline_image_is_kept_by_hash_and_size_not_by_its_data(tmp_path: Path) -> None:
    data = PNG.read_bytes()
    folder = receipts(tmp_path, one_image({"data": base64.b64encode(data).decode(), "media_type": "image/png"}))
    (case,) = load_suite(folder).cases
    assert image_refs(case.input) == [{"media_type": "image/png", "sha256": sha256_of(data), "bytes": len(data)}]
    assert case.images[sha256_of(data)] == data


@pytest.mark.parametrize(
    ("image", "says"),
    [
        ({"path": "images/nowhere.png"}, "cases.jsonl: line 1: images[0]: path: 'images/nowhere.png': no such file"),
        ({"path": "../outside.png"}, "images[0]: path: '../outside.png' leads out of the suite folder"),
        ({"path": "evalcore.yaml"}, "images[0]: evalcore.yaml: .yaml is not an image type a model is sent"),
        ({"data": "aGVsbG8=", "media_type": "image/tiff"}, "images[0]: media_type: 'image/tiff' is not one of"),
        (
            {"data": "not base64 at all!", "media_type": "image/png"},
            "images[0]: data: 'not base64 at all!'… is not base64",
        ),
        ({"url": "https://example.com/x.png"}, "images[0]: {'url': 'https://example.com/x.png'} is not an image"),
    ],
)
def test_an_image_that_cannot_be_sent_is_refused_naming_the_case_and_the_fix(
    tmp_path: Path, image: dict[str, Any], says: str
) -> None:
    folder = receipts(tmp_path, one_image(image))
    (tmp_path / "outside.png").write_bytes(PNG.read_bytes())
    with pytest.raises(ConfigError) as caught:
        load_suite(folder)
    assert says in str(caught.value)


def test_the_definition_fingerprint_changes_when_an_image_s_bytes_change(tmp_path: Path) -> None:
    folder = receipts(tmp_path)
    before = load_suite(folder)
    (folder / "datasets" / "receipts" / "images" / "cafe.png").write_bytes(PNG.read_bytes() + b"\0")
    after = load_suite(folder)
    assert definition_fingerprint(before, before.cases) != definition_fingerprint(after, after.cases)


def test_a_contender_whose_model_takes_no_images_is_left_out_by_name(tmp_path: Path) -> None:
    plan = make_plan(load_suite(receipts(tmp_path)), RunOptions())
    assert [c.id for c in plan.contenders] == ["fake/vision"]
    (refused,) = plan.refused
    assert refused.model == "fake/oracle"
    assert refused.reason.startswith("fake/oracle does not take images, and the cases carry some.")


def test_without_images_a_model_that_takes_none_is_asked(tmp_path: Path) -> None:
    folder = receipts(tmp_path, {"id": "plain", "input": "The total is 6.00. What is the total?", "expected": "6.00"})
    plan = make_plan(load_suite(folder), RunOptions())
    assert [c.id for c in plan.contenders] == ["fake/vision", "fake/oracle"] and plan.refused == []


def test_a_judge_whose_model_takes_no_images_stops_the_run_before_any_call(tmp_path: Path) -> None:
    folder = receipts(tmp_path)
    config = (folder / "evalcore.yaml").read_text().replace("model: fake/judge ", "model: gpt-3.5-turbo ")
    (folder / "evalcore.yaml").write_text(config)
    plan = make_plan(load_suite(folder), RunOptions())
    with pytest.raises(ConfigError, match=r"judge gpt-3\.5-turbo does not take images, and the cases carry some"):
        check_ready(plan)
