"""The http adapter's options, templates and reply parsing (its calls: tests/execution/test_http_target_runs.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case, Contender
from evalcore.core.schema import FieldSpec
from evalcore.scoring.adapters import Context
from evalcore.scoring.http_adapter import HttpAdapter
from evalcore.scoring.plugins import build_adapter
from evalcore.suite.config import NamedRef

CASE = Case("faq", "single/001", "single", "When are you open?", "9am", {"lang": "en"})
CONTEXT = Context("Answer briefly.", ())
CONTENDER = Contender("http/faq · top_k=3", "http/faq", {"top_k": 3}, api_base="http://127.0.0.1:9")


def render(adapter: HttpAdapter, compiled, contender: Contender = CONTENDER, case: Case = CASE):
    variables = adapter._variables(case, CONTEXT, contender, [{"role": "user", "content": case.input}], 0)
    return adapter._render(compiled, variables, "test")


def test_it_is_built_in_and_its_options_are_checked_at_load(tmp_path: Path):
    adapter = build_adapter(NamedRef(name="http", options={"url": "http://x/ask"}), tmp_path)
    assert isinstance(adapter, HttpAdapter) and adapter.options.method == "POST"
    with pytest.raises(ConfigError) as caught:
        build_adapter(NamedRef(name="http", options={"url": "http://x", "outptu": "a"}), tmp_path)
    assert str(caught.value).startswith("evalcore.yaml: adapter.options.outptu: unknown option. Options: [")
    with pytest.raises(ConfigError, match="adapter.options.url: required option is missing"):
        build_adapter(NamedRef(name="http", options={}), tmp_path)
    with pytest.raises(ConfigError, match="adapter.options.method: Input should be"):
        HttpAdapter(url="http://x", method="FETCH")


def test_a_missing_environment_variable_is_a_config_error_naming_it(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("RAG_TOKEN", raising=False)
    with pytest.raises(ConfigError) as caught:
        HttpAdapter(url="http://x", headers={"Authorization": "Bearer ${RAG_TOKEN}"})
    assert str(caught.value) == (
        "evalcore.yaml: adapter.options.headers.Authorization: ${RAG_TOKEN} is not set in the environment. "
        "Set it (export RAG_TOKEN=...) or give a default: ${RAG_TOKEN:-...}"
    )


def test_environment_variables_and_defaults_fill_in_and_are_never_templates(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("RAG_TOKEN", "tok-{{ input }}")
    monkeypatch.delenv("RAG_URL", raising=False)
    adapter = HttpAdapter(
        url="${RAG_URL:-http://127.0.0.1:8765}/ask", headers={"Authorization": "Bearer ${RAG_TOKEN}", "X": "$${RAW}"}
    )
    assert render(adapter, adapter._url) == "http://127.0.0.1:8765/ask"
    assert render(adapter, adapter._headers["Authorization"]) == "Bearer tok-{{ input }}"
    assert render(adapter, adapter._headers["X"]) == "${RAW}"
    case = Case("faq", "x", "x", "${RAG_TOKEN}", None)
    body = HttpAdapter(url="http://x", body={"q": "{{ input }}"})
    assert render(body, body._body, case=case) == {"q": "${RAG_TOKEN}"}  # a case never reads the environment


def test_a_text_that_is_one_expression_keeps_its_value_and_others_are_text():
    adapter = HttpAdapter(
        url="{{ api_base }}/ask/{{ id | urlencode }}",
        body={
            "question": "{{ input }}",
            "top_k": "{{ settings.top_k }}",
            "messages": "{{ messages }}",
            "label": "top {{ settings.top_k }} for {{ target }}",
            "fixed": [1, True, None],
            "meta": "{{ metadata }}",
        },
        query={"lang": "{{ metadata.lang }}"},
    )
    assert render(adapter, adapter._url) == "http://127.0.0.1:9/ask/single/001"
    assert render(adapter, adapter._body) == {
        "question": "When are you open?",
        "top_k": 3,
        "messages": [{"role": "user", "content": "When are you open?"}],
        "label": "top 3 for faq",
        "fixed": [1, True, None],
        "meta": {"lang": "en"},
    }
    assert render(adapter, adapter._query) == {"lang": "en"}


def test_verify_finds_a_name_a_template_does_not_have_with_its_key_and_case():
    adapter = HttpAdapter(url="http://x", body={"question": "{{ inputs }}"})
    with pytest.raises(ConfigError) as caught:
        adapter.build_messages(CASE, CONTEXT)
    message = str(caught.value)
    assert message.startswith("evalcore.yaml: adapter.options.body.question: undefined: 'inputs' is undefined.")
    assert message.endswith("(case single/001)")


def test_settings_a_contender_may_have_pass_verify_and_fail_the_call_that_lacks_them():
    adapter = HttpAdapter(url="http://x", body={"k": "{{ settings.top_k }}"})
    assert adapter.build_messages(CASE, CONTEXT) == [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": "When are you open?"},
    ]
    with pytest.raises(ConfigError, match=r"adapter.options.body.k: undefined: .*top_k.* \(test\)"):
        render(adapter, adapter._body, contender=Contender("http/faq", "http/faq"))


def test_a_template_syntax_error_is_reported_when_the_suite_loads():
    with pytest.raises(ConfigError, match="adapter.options.body.q: template syntax error"):
        HttpAdapter(url="http://x", body={"q": "{{ input "})


def test_a_bad_output_path_is_a_config_error():
    with pytest.raises(ConfigError, match=r"adapter.options.output: path 'answer\.\.text'"):
        HttpAdapter(url="http://x", output="answer..text")
    with pytest.raises(ConfigError, match="adapter.options.usage.cost_usd: path"):
        HttpAdapter(url="http://x", usage={"cost_usd": "[x]"})


def test_the_output_path_picks_the_answer_and_its_absence_is_unusable():
    adapter = HttpAdapter(url="http://x", output="choices[0].message.content")
    reply = {"choices": [{"message": {"content": " 9am to 5pm "}}]}
    assert adapter.parse(json.dumps(reply), CONTEXT).output == "9am to 5pm"
    missing = adapter.parse(json.dumps({"choices": []}), CONTEXT)
    assert missing.output is None
    assert missing.problem == "the reply has no choices[0].message.content: choices has 0 items, no [0]"
    not_json = adapter.parse("<html>busy</html>", CONTEXT)
    assert not_json.output is None and not_json.problem.startswith("the reply is not JSON")


def test_without_an_output_path_the_answer_is_the_whole_reply():
    adapter = HttpAdapter(url="http://x")
    assert adapter.parse('{"a": 1}', CONTEXT).output == {"a": 1}
    assert adapter.parse("  plain text  ", CONTEXT).output == "plain text"


def test_with_a_field_schema_the_answer_is_an_object_checked_like_extract():
    context = Context("", (FieldSpec("city", "string"), FieldSpec("n", "integer")))
    adapter = HttpAdapter(url="http://x", output="result")
    assert adapter.parse('{"result": {"city": "Rome", "n": 2}}', context).output == {"city": "Rome", "n": 2}
    as_text = adapter.parse(json.dumps({"result": '```json\n{"city": "Rome", "n": "two"}\n```'}), context)
    assert as_text.output == {"city": "Rome", "n": "two"} and as_text.type_errors == {"n": "'two' is not an integer"}
    assert adapter.parse('{"result": 3}', context).problem == "the answer is int, not an object of fields"


def test_usage_comes_from_its_paths_and_the_cost_from_prices_when_the_reply_has_none():
    adapter = HttpAdapter(
        url="http://x", usage={"input_tokens": "usage.in", "output_tokens": "usage.out", "cost_usd": "cost"}
    )
    priced = Contender("c", "http/x", prices={"input_cost_per_token": 0.5, "output_cost_per_token": 1.0})
    text = json.dumps({"usage": {"in": 10, "out": 4}})
    usage = adapter._reply_usage(text, priced)
    assert (usage.input_tokens, usage.output_tokens, usage.cost_usd) == (10, 4, 9.0)
    with_cost = adapter._reply_usage(json.dumps({"usage": {"in": 10, "out": 4}, "cost": 0.25}), priced)
    assert with_cost.cost_usd == 0.25
    odd = adapter._reply_usage(json.dumps({"usage": {"in": "ten"}}), CONTENDER)
    assert (odd.input_tokens, odd.output_tokens, odd.cost_usd) == (None, None, None)
