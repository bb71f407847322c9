"""A case's images travel as OpenAI-style ``image_url`` content parts: in the adapters' messages, in a prompt's
last user message and in the judges' prompts; a case whose pixels are not at hand is never asked without them."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.images import data_url, message_text, sha256_of, shown_content
from evalcore.core.records import Case
from evalcore.scoring.adapters import ChatAdapter, Context, ExtractAdapter, prompt_messages
from evalcore.scoring.judge_prompt import judge_messages
from evalcore.scoring.pairwise_prompt import pair_messages
from evalcore.suite.prompts import load_prompts

PIXELS = b"\x89PNG\r\n\x1a\n not really a png"
REF = {"path": "images/r.png", "media_type": "image/png", "sha256": sha256_of(PIXELS), "bytes": len(PIXELS)}
PART = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(PIXELS).decode()}}
CONTEXT = Context("Read the receipt.", ())


def receipt_case(pixels: bool = True) -> Case:
    case = Case("receipts", "r", "file", {"text": "What is the total?", "images": [REF]}, "6.00")
    if pixels:
        case.images[REF["sha256"]] = PIXELS
    return case


def test_the_chat_adapter_sends_the_text_then_the_image_in_the_user_message() -> None:
    messages = ChatAdapter().build_messages(receipt_case(), CONTEXT)
    assert messages == [
        {"role": "system", "content": "Read the receipt."},
        {"role": "user", "content": [{"type": "text", "text": "What is the total?"}, PART]},
    ]


def test_the_extract_adapter_leaves_the_image_references_out_of_the_text() -> None:
    user = ExtractAdapter().build_messages(receipt_case(), CONTEXT)[-1]["content"]
    assert user == [{"type": "text", "text": "What is the total?"}, PART]


def test_an_input_object_with_more_keys_than_text_keeps_them_as_json_without_the_images() -> None:
    case = receipt_case()
    case.input = {"question": "total?", "currency": "EUR", "images": [REF]}
    text = ChatAdapter().build_messages(case, CONTEXT)[-1]["content"][0]["text"]
    assert json.loads(text) == {"question": "total?", "currency": "EUR"}


def test_a_prompt_sees_the_text_and_its_last_user_message_carries_the_images(tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "chat.yaml").write_text(
        "- {role: system, content: 'You read receipts.'}\n- {role: user, content: 'Q: {{ input }}'}\n"
    )
    messages = prompt_messages(load_prompts(tmp_path)["chat"], receipt_case(), CONTEXT)
    assert messages[-1] == {"role": "user", "content": [{"type": "text", "text": "Q: What is the total?"}, PART]}


def test_the_judge_is_shown_the_images_with_its_prompt_text_unchanged() -> None:
    case = receipt_case()
    messages = judge_messages("Is it the total?", ["correct"], (1, 5), case, "6.00", reference=True)
    user = messages[-1]["content"]
    assert user[1:] == [PART]
    assert "## Question\nWhat is the total?\n" in user[0]["text"] and "<answer>\n6.00\n</answer>" in user[0]["text"]


def test_the_pairwise_judge_is_shown_the_images() -> None:
    messages = pair_messages("Which is the total?", receipt_case(), "6.00", "9.99", reference=False)
    assert messages[-1]["content"][1:] == [PART]
    assert "<answer_a>\n6.00\n</answer_a>" in message_text(messages[-1]["content"])


def test_a_case_without_its_pixels_is_refused_not_sent_without_its_image() -> None:
    with pytest.raises(ConfigError, match=r"receipts/r: images/r\.png: the image is not available here"):
        ChatAdapter().build_messages(receipt_case(pixels=False), CONTEXT)


def test_a_case_without_images_keeps_plain_text_messages() -> None:
    case = Case("d", "c", "v", "What is 6 times 7?", "42")
    assert ChatAdapter().build_messages(case, CONTEXT)[-1] == {"role": "user", "content": "What is 6 times 7?"}


def test_a_data_url_holds_the_media_type_and_the_base64_bytes() -> None:
    assert data_url("image/jpeg", b"abc") == "data:image/jpeg;base64,YWJj"


def test_a_message_with_an_image_reads_as_its_text_and_one_line_per_image() -> None:
    content = ChatAdapter().build_messages(receipt_case(), CONTEXT)[-1]["content"]
    assert shown_content(content) == f"What is the total?\n[image image/png, {len(PIXELS)} bytes]"
