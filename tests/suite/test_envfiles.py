from pathlib import Path

import pytest

from evalcore.core.errors import ConfigError
from evalcore.suite.envfiles import parse_env_file, read_env_files


def _env_file(tmp_path: Path, text: str, name: str = ".env") -> Path:
    (tmp_path / name).write_text(text)
    return tmp_path / name


def test_an_env_file_gives_keys_with_comments_export_and_quotes(tmp_path):
    path = _env_file(tmp_path, "# keys\n\nexport A=1\nB = \"two words\"\nC=three # note\nD='#4'\n")
    assert parse_env_file(path) == {"A": "1", "B": "two words", "C": "three", "D": "#4"}


def test_a_variable_already_set_beats_the_env_file(tmp_path):
    _env_file(tmp_path, "OPENAI_API_KEY=from-file\nOTHER=x\n")
    environ = {"OPENAI_API_KEY": "from-shell"}
    assert read_env_files(tmp_path, [".env"], environ) == ["OTHER"]
    assert environ == {"OPENAI_API_KEY": "from-shell", "OTHER": "x"}


def test_a_missing_env_file_is_skipped(tmp_path):
    environ: dict[str, str] = {}
    assert read_env_files(tmp_path, [".env"], environ) == [] and environ == {}


def test_a_malformed_line_is_named_by_number_never_by_its_text(tmp_path):
    path = _env_file(tmp_path, "A=1\nsk-secret-value\n")
    with pytest.raises(ConfigError, match=r"\.env: line 2: not a KEY=VALUE line") as caught:
        parse_env_file(path)
    assert "sk-secret" not in str(caught.value)
