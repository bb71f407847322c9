"""A prompt makes the messages in place of the adapter: what its template sees, and the bundled suite's
``default`` prompt asking exactly what the extract adapter asks on its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.core.records import Case
from evalcore.core.schema import FieldSpec
from evalcore.execution.plan import suite_contexts
from evalcore.scoring.adapters import ChatAdapter, Context, ExtractAdapter, prompt_messages, prompt_variables
from evalcore.suite.loader import load_suite
from evalcore.suite.prompts import load_prompts

INTAKE = Path(__file__).resolve().parents[2] / "data" / "suites" / "intake"
FIELDS = (FieldSpec("name", "string", "Who wrote"), FieldSpec("kind", "enum", "", ("a", "b"), nullable=False))
CASE = Case("shop", "vague/001", "vague", "Ann wants a.", {"name": "Ann", "kind": "a"}, {"lang": "en"})


def test_a_template_sees_the_case_the_instructions_and_the_schema():
    variables = prompt_variables(CASE, Context("Fill in the form.", FIELDS))
    assert variables["input"] == "Ann wants a."
    assert variables["metadata"] == {"lang": "en"}
    assert variables["instructions"] == "Fill in the form."
    assert (variables["dataset"], variables["variant"], variables["id"]) == ("shop", "vague", "vague/001")
    assert (
        "- kind (one of ['a', 'b'])" in variables["schema"]
        and "- name (string or null): Who wrote" in variables["schema"]
    )
    assert [f.name for f in variables["fields"]] == ["name", "kind"]


def test_without_fields_the_schema_is_empty():
    assert prompt_variables(CASE, Context("Answer.", ()))["schema"] == ""


def test_prompt_messages_render_the_prompt_over_the_case(tmp_path):
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "p.txt").write_text(
        "{{ instructions }} [{{ metadata.lang }}]\n"
        "{% for f in fields %}{{ f.name }}={{ f.values | join('|') }};{% endfor %}\n{{ input }}"
    )
    prompt = load_prompts(tmp_path)["p"]
    (message,) = prompt_messages(prompt, CASE, Context("Read.", FIELDS))
    assert message == {"role": "user", "content": "Read. [en]\nname=;kind=a|b;\nAnn wants a."}


def test_a_prompt_can_write_out_the_chat_adapters_own_messages(tmp_path):
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "p.yaml").write_text(
        "- {role: system, content: '{{ instructions }}'}\n- {role: user, content: '{{ input }}'}\n"
    )
    context = Context("Answer briefly.", ())
    prompt = load_prompts(tmp_path)["p"]
    assert prompt_messages(prompt, CASE, context) == ChatAdapter().build_messages(CASE, context)


@pytest.fixture(scope="module")
def intake():
    return load_suite(INTAKE)


def test_the_intake_suite_offers_its_default_and_a_terser_prompt(intake):
    assert set(intake.prompts) == {"default", "terse"}
    asked = [entry for entry in intake.config.lineup if entry.prompt is not None]
    assert [(e.model, e.prompt) for e in asked] == [("fake/guesser", ["default", "terse"])]  # the demo's comparison


def test_the_intake_default_prompt_asks_exactly_what_the_extract_adapter_asks(intake):
    contexts = suite_contexts(intake)
    adapter = ExtractAdapter()
    for case in intake.cases:
        context = contexts[case.dataset]
        assert prompt_messages(intake.prompts["default"], case, context) == adapter.build_messages(case, context)


def test_the_intake_terse_prompt_is_one_shorter_user_message(intake):
    contexts = suite_contexts(intake)
    for case in intake.cases:
        context = contexts[case.dataset]
        (terse,) = prompt_messages(intake.prompts["terse"], case, context)
        built = ExtractAdapter().build_messages(case, context)
        assert terse["role"] == "user" and terse["content"].endswith(case.input)
        assert len(terse["content"]) < sum(len(m["content"]) for m in built)
