import pytest

from evalcore.core.errors import ConfigError
from evalcore.suite.loader import find_suite
from tests.suites import write_suite


def test_the_suite_is_found_in_a_folder_above(tmp_path):
    suite = write_suite(tmp_path / "project")
    deep = suite / "datasets" / "shop"
    assert find_suite(deep, environ={}) == suite.resolve()


def test_evalcore_suite_names_the_suite_wherever_the_command_runs(tmp_path):
    suite = write_suite(tmp_path / "project")
    assert find_suite(tmp_path, environ={"EVALCORE_SUITE": str(suite)}) == suite


def test_evalcore_suite_that_is_no_suite_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match=r"\$EVALCORE_SUITE=.*: no evalcore.yaml there"):
        find_suite(tmp_path, environ={"EVALCORE_SUITE": str(tmp_path)})


def test_no_suite_above_says_how_to_name_one(tmp_path):
    with pytest.raises(ConfigError, match="no evalcore.yaml in .* or any folder above it: name the suite folder"):
        find_suite(tmp_path, environ={})
