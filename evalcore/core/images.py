"""Images a case carries: how its input refers to them, and how they travel in chat messages.

A case's input object may hold ``images``: once the suite is loaded (:mod:`evalcore.suite.images`), each is a
reference ``{path, media_type, sha256, bytes}`` (``path`` relative to the suite folder; no ``path`` for an image
written inline in the case as base64). The run file keeps these references, never the pixels; the pixels stay in
memory on the case (:attr:`evalcore.core.records.Case.images`, by ``sha256``).

A message that carries images has OpenAI-style content parts, which litellm maps for every provider::

    [{"type": "text", "text": "..."},
     {"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}]

Nothing here reads files.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case

#: The key of a case's input object that holds its images.
IMAGES_KEY = "images"
#: The key that holds the text of an input object with images (``{text: ..., images: [...]}``).
TEXT_KEY = "text"
#: Media types a model is sent, by the file suffixes that imply them.
MEDIA_TYPES = {
    "image/png": (".png",),
    "image/jpeg": (".jpg", ".jpeg"),
    "image/gif": (".gif",),
    "image/webp": (".webp",),
}
#: The reference fields the run file keeps for each image.
REFERENCE_KEYS = ("path", "media_type", "sha256", "bytes")


def image_refs(value: Any) -> list[dict[str, Any]]:
    """The image references of a case's input (``[]`` for a string or an object without ``images``)."""
    if not isinstance(value, dict):
        return []
    refs = value.get(IMAGES_KEY)
    return [r for r in refs if isinstance(r, dict)] if isinstance(refs, list) else []


def text_input(value: Any) -> Any:
    """A case's input without its images: what a prompt reads as ``input``. ``{text: ..., images: [...]}`` is its
    text; any other object keeps its other keys."""
    if not isinstance(value, dict) or IMAGES_KEY not in value:
        return value
    rest = {k: v for k, v in value.items() if k != IMAGES_KEY}
    if set(rest) == {TEXT_KEY} and isinstance(rest[TEXT_KEY], str):
        return rest[TEXT_KEY]
    return rest


def input_text(value: Any) -> str:
    """A case's input as the text of a message: a string as it is, an object as indented JSON (images left out)."""
    value = text_input(value)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1)


def sha256_of(data: bytes) -> str:
    """``sha256:<hex>`` of ``data``: how a reference names its pixels."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def data_url(media_type: str, data: bytes) -> str:
    """``data:<media type>;base64,<data>``."""
    return f"data:{media_type};base64,{base64.b64encode(data).decode('ascii')}"


def image_parts(case: Case) -> list[dict[str, Any]]:
    """The ``image_url`` content parts of the case's images, in the order its input lists them.

    Raises:
        ConfigError: an image's pixels are not in memory (a case read back from a run file, which keeps only
            references), naming the case and the image: a model is never sent a prompt without its images.
    """
    parts = []
    for ref in image_refs(case.input):
        data = case.images.get(str(ref.get("sha256")))
        if data is None:
            where = ref.get("path") or f"inline image {ref.get('sha256')}"
            raise ConfigError(
                f"{case.dataset}/{case.id}: {where}: the image is not available here (a run file keeps only its "
                "reference and hash). Run from the suite folder that holds it."
            )
        parts.append({"type": "image_url", "image_url": {"url": data_url(str(ref["media_type"]), data)}})
    return parts


def with_images(messages: list[dict[str, Any]], case: Case) -> list[dict[str, Any]]:
    """``messages`` with the case's images added to the last user message (as content parts after its text), or
    in a user message of their own when there is none; ``messages`` unchanged when the case has no images."""
    value = case.input
    if not isinstance(value, dict) or IMAGES_KEY not in value:  # no images: image_refs would find none
        return messages
    parts = image_parts(case)
    if not parts:
        return messages
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    if not users:
        return [*messages, {"role": "user", "content": parts}]
    last = users[-1]
    content = messages[last].get("content")
    text = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    return [*messages[:last], {**messages[last], "content": text + parts}, *messages[last + 1 :]]


def message_text(content: Any) -> str:
    """The text of a message's content: a string as it is; content parts' text parts joined by newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return "" if content is None else str(content)


def shown_content(content: Any) -> str:
    """A message's content for a person to read: its text, each image part as one line ``[image image/png,
    3,246 bytes]`` instead of its base64."""
    if not isinstance(content, list):
        return message_text(content)
    lines = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            lines.append(str(part.get("text", "")))
        elif kind == "image_url":
            url = str(part.get("image_url", {}).get("url", ""))
            media, _, data = url.removeprefix("data:").partition(";base64,")
            size = len(base64.b64decode(data)) if data else 0
            lines.append(f"[image {media}, {size:,} bytes]" if data else f"[image {url}]")
    return "\n".join(lines)


def sent_images(messages: list[dict[str, Any]]) -> list[bytes]:
    """The pixels of every ``data:`` image part in ``messages``, in order (what a fake model "sees")."""
    found = []
    for message in messages:
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            url = part.get("image_url", {}).get("url", "") if isinstance(part, dict) else ""
            if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
                try:
                    found.append(base64.b64decode(url.split(";base64,", 1)[1], validate=True))
                except (binascii.Error, ValueError):
                    continue
    return found
