import pytest

from evalcore.core.errors import ConfigError
from evalcore.suite.loader import load_suite
from tests.suites import write_suite


def test_scorer_and_scorers_together_are_a_config_error(tmp_path):
    root = write_suite(tmp_path / "s", {"scorer": "fields", "scorers": ["fields", "json_valid"]})
    with pytest.raises(ConfigError, match="not both"):
        load_suite(root)


def _suite_with_scorers(root, scorers):
    """A suite naming ``scorers:`` only (the helper's suite names ``scorer:``)."""
    root = write_suite(root, {"scorers": scorers})
    text = (root / "evalcore.yaml").read_text()
    assert "scorer: fields\n" in text
    (root / "evalcore.yaml").write_text(text.replace("scorer: fields\n", ""))
    return root


def test_two_primary_entries_are_a_config_error(tmp_path):
    entries = [{"name": "fields", "primary": True}, {"name": "json_valid", "primary": True}]
    root = _suite_with_scorers(tmp_path / "s", entries)
    with pytest.raises(ConfigError, match="exactly one may"):
        load_suite(root)


def test_scorers_list_gives_every_ref_and_the_primary_one(tmp_path):
    root = _suite_with_scorers(tmp_path / "s", ["json_valid", {"name": "fields", "primary": True}])
    suite = load_suite(root)
    assert [r.name for r in suite.scorer_refs] == ["json_valid", "fields"]
    assert suite.scorer_ref.name == "fields"


def test_the_single_scorer_key_keeps_working(tmp_path):
    suite = load_suite(write_suite(tmp_path / "s"))
    assert [r.name for r in suite.scorer_refs] == ["fields"] and suite.scorer_ref.name == "fields"
