"""Scorers and adapters a suite names: a misspelt name says where it is written and the name likely meant."""

from __future__ import annotations

import re

import pytest

from evalcore.core.errors import ConfigError
from evalcore.scoring.plugins import build_adapter, build_scorer
from evalcore.suite.config import NamedRef, ScorerRef
from tests.suites import write_suite


def _line_of(root, text):
    lines = (root / "evalcore.yaml").read_text().splitlines()
    return next(i for i, line in enumerate(lines, start=1) if text in line)


def test_a_misspelt_scorer_names_its_file_line_and_the_scorer_meant(tmp_path):
    root = write_suite(tmp_path / "s", config={"scorer": "feilds"})
    line = _line_of(root, "scorer: feilds")
    where = f"{root / 'evalcore.yaml'}: line {line}"
    expected = f"{where}: scorer: unknown scorer 'feilds'; did you mean `fields`? Built in"
    with pytest.raises(ConfigError, match=re.escape(expected)):
        build_scorer([NamedRef(name="feilds")], root)


def test_a_misspelt_scorer_in_a_scorers_list_names_its_line(tmp_path):
    root = write_suite(tmp_path / "s", config={"scorers": [{"name": "fields"}, {"name": "exacct"}]})
    line = _line_of(root, "name: exacct")
    with pytest.raises(ConfigError, match=rf"line {line}: scorer: unknown scorer 'exacct'; did you mean `exact`\?"):
        build_scorer([ScorerRef(name="fields"), ScorerRef(name="exacct")], root)


def test_an_unknown_adapter_far_from_any_name_lists_the_built_in_ones(tmp_path):
    root = write_suite(tmp_path / "s", config={"adapter": "zzz"})
    with pytest.raises(ConfigError, match=r"line \d+: adapter: unknown adapter 'zzz'\. Built in: \["):
        build_adapter(NamedRef(name="zzz"), root)
