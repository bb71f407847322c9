"""``evalcore verify``: what it says of a suite's lineup before any model is called."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalcore.execution.verify import verify_suite
from tests.suites import write_suite

RECEIPTS = Path(__file__).resolve().parents[2] / "docs" / "examples" / "receipts"


def _verify(tmp_path, lineup):
    return verify_suite(write_suite(tmp_path / "s", config={"lineup": lineup}))


def test_a_misspelt_fake_model_fails_verify_with_the_fake_it_was_meant_to_be(tmp_path):
    report = _verify(tmp_path, [{"model": "fake/oracle"}, {"model": "fake/cautous"}])
    assert not report.ok
    assert any(
        line.startswith("error:") and "fake/cautous" in line and "did you mean `fake/cautious`?" in line
        for line in report.lines
    ), report.lines


def test_an_unknown_provider_fails_verify_with_the_provider_it_was_meant_to_be(tmp_path):
    report = _verify(tmp_path, [{"model": "fake/oracle"}, {"model": "opnai/gpt-4o-mini"}])
    assert not report.ok
    assert any(line.startswith("error:") and "`openai`" in line for line in report.lines), report.lines


def test_an_unknown_model_of_a_known_provider_is_a_warning_with_the_model_it_was_meant_to_be(tmp_path):
    report = _verify(tmp_path, [{"model": "fake/oracle"}, {"model": "openai/gpt-4o-minii"}])
    assert report.ok, report.lines
    assert any(
        "warning:" in line and "openai/gpt-4o-minii" in line and "did you mean `openai/gpt-4o-mini`?" in line
        for line in report.lines
    ), report.lines


@pytest.mark.parametrize(
    "entry",
    [
        {"model": "openai/my-local-llama", "api_base": "http://127.0.0.1:8000/v1"},
        {"model": "openai/gpt-4o-mini"},
        {"model": "gpt-4o-mini"},
    ],
)
def test_a_model_litellm_can_route_passes_verify_without_a_warning_about_its_name(tmp_path, entry):
    report = _verify(tmp_path, [{"model": "fake/oracle"}, entry])
    assert report.ok, report.lines
    assert not any("did you mean" in line or "not know" in line for line in report.lines), report.lines


def test_a_refused_entry_without_settings_reads_without_a_stray_separator(tmp_path):
    root = tmp_path / "receipts"
    shutil.copytree(RECEIPTS, root)  # fake/vision and fake/oracle, which takes no images
    report = verify_suite(root)
    assert "  refused: fake/oracle: fake/oracle does not take images" in "\n".join(report.lines), report.lines


def test_verify_of_a_fake_lineup_does_not_import_litellm(tmp_path):
    root = write_suite(tmp_path / "s", config={"lineup": [{"model": "fake/oracle"}, {"model": "fake/cautous"}]})
    code = (
        "import json, sys\n"
        "from evalcore.cli import main\n"
        f"main(['verify', {str(root)!r}])\n"
        "print(json.dumps('litellm' in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.splitlines()[-1]) is False


def test_a_setting_out_of_its_range_is_the_first_thing_verify_says(tmp_path):
    report = _verify(tmp_path, [{"model": "fake/oracle", "settings": {"temperature": "hot"}}])
    assert not report.ok
    assert report.lines[0].startswith("error: ") and "line " in report.lines[0], report.lines
    assert "'hot' is not a number from 0 to 2" in report.lines[0]
