"""The http adapter's ``numbers`` option: numbers read beside the answer, for the ``numbers`` scorer."""

from __future__ import annotations

import json

import pytest

from evalcore.core.errors import ConfigError
from evalcore.scoring.adapters import Context
from evalcore.scoring.http_adapter import HttpAdapter

CONTEXT = Context("Answer briefly.", ())
REPLY = {"answer": "9am", "stats": {"tool_errors": 0.25, "calls": 4, "note": "slow", "ok": True}, "ms": 812}


def test_each_number_is_read_at_its_path_beside_the_answer():
    adapter = HttpAdapter(url="http://x", output="answer", numbers={"tool_error_rate": "stats.tool_errors", "ms": "ms"})
    parsed = adapter.parse(json.dumps(REPLY), CONTEXT)
    assert parsed.output == "9am" and parsed.numbers == {"tool_error_rate": 0.25, "ms": 812.0}


def test_a_path_with_nothing_there_or_no_number_is_left_out():
    paths = {"missing": "stats.nope", "text": "stats.note", "flag": "stats.ok", "calls": "stats.calls"}
    parsed = HttpAdapter(url="http://x", output="answer", numbers=paths).parse(json.dumps(REPLY), CONTEXT)
    assert parsed.numbers == {"calls": 4.0}


def test_without_the_option_no_numbers_are_read():
    assert HttpAdapter(url="http://x", output="answer").parse(json.dumps(REPLY), CONTEXT).numbers is None


def test_a_bad_number_path_is_a_config_error_naming_it():
    with pytest.raises(ConfigError, match=r"adapter.options.numbers.ms: path"):
        HttpAdapter(url="http://x", numbers={"ms": "[x]"})
