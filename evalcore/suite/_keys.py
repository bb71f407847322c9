"""The keys ``evalcore.yaml`` allows at a place (:func:`evalcore._util.suggest.did_you_mean` names a misspelt one)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from evalcore.suite.config import SuiteModel


def allowed_keys(loc: Sequence[Any]) -> list[str]:
    """The keys the mapping at ``loc`` of ``evalcore.yaml`` may hold (``[]`` for ``("datasets", "tax")``'s
    parent, a free mapping), read from the models' JSON schema so that it follows them."""
    schema = _schema()
    nodes = _expand(schema)
    for part in loc:
        nodes = [child for node in nodes for sub in _children(node, part) for child in _expand(sub)]
    return sorted({key for node in nodes for key in node.get("properties", {})})


@cache
def _schema() -> dict[str, Any]:
    return SuiteModel.model_json_schema()


def _expand(node: dict[str, Any]) -> list[dict[str, Any]]:
    """The schemas a node stands for: its ``$ref`` followed, each branch of a union."""
    if "$ref" in node:
        return _expand(_schema()["$defs"][node["$ref"].rsplit("/", 1)[-1]])
    for union in ("anyOf", "oneOf", "allOf"):
        if union in node:
            return [branch for sub in node[union] for branch in _expand(sub)]
    return [node]


def _children(node: dict[str, Any], part: Any) -> list[dict[str, Any]]:
    properties = node.get("properties", {})
    if isinstance(part, str) and part in properties:
        return [properties[part]]
    if isinstance(part, int) and isinstance(node.get("items"), dict):
        return [node["items"]]
    extra = node.get("additionalProperties")
    return [extra] if isinstance(extra, dict) else []
