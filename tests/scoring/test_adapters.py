"""evalcore.scoring.adapters: the extract adapter's messages, and what it makes of a reply."""

from __future__ import annotations

from evalcore.core.records import Case
from evalcore.core.schema import FieldSpec
from evalcore.scoring.adapters import Context, ExtractAdapter

FIELDS = (
    FieldSpec("name", "string"),
    FieldSpec("kind", "enum", values=("a", "b")),
    FieldSpec("count", "integer"),
    FieldSpec("tags", "multi_enum", values=("x", "y")),
)
CONTEXT = Context("", FIELDS)


def test_extract_adapter_unwraps_a_fenced_reply() -> None:
    context = Context("", (FieldSpec("city", "string"),))
    parsed = ExtractAdapter().parse('```json\n{"city": "Riverton"}\n```', context)
    assert parsed.output == {"city": "Riverton"} and parsed.problem is None


def test_extract_adapter_names_values_of_the_wrong_type() -> None:
    parsed = ExtractAdapter().parse('```json\n{"name": "Ann", "kind": "z"}\n```', CONTEXT)
    assert parsed.problem is None
    assert parsed.type_errors == {"kind": "'z' is not one of ['a', 'b']"}


def test_extract_adapter_calls_non_object_json_unusable() -> None:
    assert ExtractAdapter().parse("[1, 2]", CONTEXT).problem == "reply is JSON list, not an object"


def test_extract_adapter_calls_invalid_json_unusable() -> None:
    problem = ExtractAdapter().parse("Sure! {", CONTEXT).problem
    assert problem is not None and problem.startswith("reply is not valid JSON")


def test_extract_prompt_lists_every_field_with_its_type() -> None:
    messages = ExtractAdapter().build_messages(Case("d", "c", "v", "Hello", {}), Context("Do it.", FIELDS))
    system = messages[0]["content"]
    assert system.startswith("Do it.")
    assert "- kind (one of ['a', 'b'] or null)" in system
    assert messages[1] == {"role": "user", "content": "Hello"}


def test_extract_adapter_system_message_follows_the_instructions() -> None:
    fields = (FieldSpec("city", "string", "The city"),)
    adapter = ExtractAdapter()
    case = Case("d", "c", "v", "Hello", {})
    for instructions in ("Do it.", "Do it again.", "Do it."):
        system = adapter.build_messages(case, Context(instructions, fields))[0]
        assert system["role"] == "system"
        assert system["content"].startswith(f"{instructions}\n\nReply with one JSON object")
        assert system["content"].endswith("\n- city (string or null): The city")
