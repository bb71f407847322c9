"""A setting whose name holds a secret (an API key, a token, a password) is refused wherever it is given: the
suite file or a command-line flag. Settings are stored, printed and sent to trackers, so a secret has no place
among them; the error says where to put it and never quotes it."""

import pytest

from evalcore.cli import main
from evalcore.suite.settings import is_secret_setting
from tests.suites import write_suite

SECRET = "sk-evalcore-SETTING-SECRET-0123456789"


@pytest.mark.parametrize(
    "name",
    [
        "api_key",
        "API_KEY",
        "apiKey",
        "openai_api_key",
        "token",
        "access_token",
        "hf-token",
        "authToken",
        "authorization",
        "client_secret",
        "secret",
        "password",
        "db_password",
        "passwd",
        "credentials",
    ],
)
def test_a_setting_named_for_a_secret_is_secret(name):
    assert is_secret_setting(name)


@pytest.mark.parametrize(
    "name",
    [
        "max_tokens",
        "max_completion_tokens",
        "max_output_tokens",
        "temperature",
        "top_p",
        "top_k",
        "seed",
        "reasoning_effort",
        "keyword",
        "monkey",
        "stop",
        "prompt",
    ],
)
def test_an_ordinary_setting_is_not_secret(name):
    assert not is_secret_setting(name)


@pytest.mark.parametrize("name", ["api_key", "access_token", "password"])
def test_a_secret_given_with_set_is_refused_without_quoting_it(capsys, tmp_path, name):
    suite = write_suite(tmp_path / "suite")
    code = main(["plan", str(suite), "-m", "fake/oracle", "--set", f"{name}={SECRET}"])
    out, err = capsys.readouterr()
    assert code == 2
    assert err.startswith(f"error: --set {name}: holds a secret")
    assert "environment" in err
    assert SECRET not in out + err


def test_max_tokens_given_with_set_is_still_a_setting(capsys, tmp_path):
    suite = write_suite(tmp_path / "suite")
    assert main(["plan", str(suite), "-m", "fake/oracle", "--set", "max_tokens=300"]) == 0


@pytest.mark.parametrize(
    ("config", "where"),
    [
        ({"defaults": {"api_key": SECRET}}, "defaults: api_key"),
        ({"lineup": [{"model": "fake/oracle", "settings": {"auth_token": SECRET}}]}, "lineup.0.settings: auth_token"),
        (
            {"pairwise": {"model": "fake/judge", "settings": {"password": SECRET}}},
            "pairwise.settings: password",
        ),
    ],
)
def test_a_secret_in_the_suite_file_is_refused_naming_where_without_quoting_it(capsys, tmp_path, config, where):
    suite = write_suite(tmp_path / "suite", config)
    code = main(["plan", str(suite)])
    out, err = capsys.readouterr()
    assert code == 2
    assert where in err and "holds a secret" in err
    assert SECRET not in out + err


def test_a_secret_in_a_judge_scorer_settings_is_refused_without_quoting_it(capsys, tmp_path):
    scorer = {"name": "llm_judge", "options": {"model": "fake/judge", "settings": {"api_key": SECRET}}}
    suite = write_suite(tmp_path / "suite", {"scorer": scorer})
    code = main(["run", str(suite), "--db", str(tmp_path / "evalcore.db")])
    out, err = capsys.readouterr()
    assert code == 2
    assert "settings.api_key" in err and "holds a secret" in err
    assert SECRET not in out + err


def test_a_secret_among_the_overrides_of_the_api_is_refused_without_quoting_it(tmp_path):
    from evalcore.core.errors import ConfigError
    from evalcore.suite.lineup import Overrides, expand_lineup
    from evalcore.suite.loader import load_suite

    suite = load_suite(write_suite(tmp_path / "suite"))
    with pytest.raises(ConfigError) as refused:
        expand_lineup(suite.config, Overrides(settings={"api_key": [SECRET]}))
    assert str(refused.value).startswith("settings.api_key: holds a secret") and SECRET not in str(refused.value)
