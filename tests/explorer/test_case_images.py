"""evalcore.explorer.case_images: a case's image is shown from the run's suite folder only when that folder is
under the app's roots and holds the same bytes; otherwise its reference and hash, and why not."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from evalcore.core.images import sha256_of
from evalcore.core.records import Case, Contender, Result
from evalcore.explorer.case_images import case_images
from evalcore.explorer.drilldown import cases_view
from tests.factories import make_run

PIXELS = b"\x89PNG\r\n\x1a\n a receipt"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    folder = tmp_path / "suites" / "receipts"
    (folder / "images").mkdir(parents=True)
    (folder / "images" / "r.png").write_bytes(PIXELS)
    return folder


def ref(path: str | None = "images/r.png", pixels: bytes = PIXELS) -> dict:
    found = {"media_type": "image/png", "sha256": sha256_of(pixels), "bytes": len(pixels)}
    return {"path": path, **found} if path else found


def test_an_image_in_the_run_s_suite_folder_is_shown_with_its_reference(suite: Path) -> None:
    (shown,) = case_images([ref()], str(suite), [suite.parent])
    assert shown.data == PIXELS and shown.why is None
    assert (shown.label, shown.media_type, shown.sha256, shown.size) == (
        "images/r.png",
        "image/png",
        sha256_of(PIXELS),
        len(PIXELS),
    )


def test_an_image_whose_bytes_changed_since_the_run_is_not_shown(suite: Path) -> None:
    (suite / "images" / "r.png").write_bytes(PIXELS + b"!")
    (shown,) = case_images([ref()], str(suite), [suite.parent])
    assert (
        shown.data is None
        and shown.why == "image not available here: images/r.png has changed since the run (its hash differs)"
    )


def test_a_run_whose_suite_folder_is_not_here_shows_the_reference_only(tmp_path: Path) -> None:
    (shown,) = case_images([ref()], str(tmp_path / "gone"), [tmp_path])
    assert shown.data is None and shown.why.startswith("image not available here: the run's suite folder")
    assert shown.sha256 == sha256_of(PIXELS)


def test_a_suite_folder_outside_the_app_s_roots_is_not_read(suite: Path, tmp_path: Path) -> None:
    (shown,) = case_images([ref()], str(suite), [tmp_path / "elsewhere"])
    assert shown.data is None and "not among the suite folders this app may read" in shown.why


def test_a_path_that_leads_out_of_the_suite_folder_is_not_read(suite: Path) -> None:
    (suite.parent / "secret.png").write_bytes(PIXELS)
    (shown,) = case_images([ref("../secret.png")], str(suite), [suite.parent])
    assert shown.data is None and "is not in the suite folder" in shown.why


def test_an_inline_image_shows_its_hash_and_says_its_bytes_are_not_in_the_run(suite: Path) -> None:
    (shown,) = case_images([ref(None)], str(suite), [suite.parent])
    assert shown.label == "inline image" and shown.data is None and "not in the run" in shown.why


def test_the_cases_list_previews_an_input_s_text_without_its_image_references() -> None:
    case = Case("receipts", "r", "file", {"text": "What is the total?", "images": [ref()]}, "6.00")
    result = Result("fake/vision", "receipts", "r", 0, "scored", 1.0, output="6.00")
    run = make_run(n_contenders=1, n_cases=1)
    run = dataclasses.replace(run, cases=[case], results=[result], contenders=[Contender("fake/vision", "fake/vision")])
    assert list(cases_view(run)["input"]) == ["What is the total?"]


def test_the_bundled_receipts_example_shows_its_images_under_the_default_roots(monkeypatch) -> None:
    from evalcore.core.images import image_refs
    from evalcore.explorer.suite_roots import suite_roots
    from evalcore.suite.loader import load_suite

    repo = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(repo)
    suite = load_suite("docs/examples/receipts")
    case = next(c for d in suite.datasets.values() for c in d.cases if c.id == "cafe")
    (shown,) = case_images(image_refs(case.input), "docs/examples/receipts", suite_roots({}))
    pixels = (repo / "docs/examples/receipts/datasets/receipts/images/cafe.png").read_bytes()
    assert shown.why is None and shown.data == pixels
