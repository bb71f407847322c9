"""Which tool wrote a file, told from its content, never its name.

- a zip holding ``header.json`` or ``_journal/start.json``: an Inspect ``.eval`` log;
- a JSON object with ``"format": "evalcore.run"``: an evalcore run file;
- a JSON object with ``version``, ``eval`` (holding ``task`` or ``model``) and ``status`` or ``samples``: an
  Inspect ``.json`` log;
- a JSON object whose ``results`` holds a ``results`` list (``promptfoo eval -o``, ``promptfoo export``), or
  whose own ``results`` list sits next to ``version`` and ``stats``, ``prompts`` or ``table`` (the summary the
  Node API's ``evaluate()`` returns): a promptfoo result file.

Anything else is refused by :func:`unknown_layout` with one line that says what was found and what was
expected; Inspect's ``logs.json`` (a listing of a folder's logs: file name → log header, no samples) is refused
by :func:`listing_refused`, which says to import the folder instead.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any, Literal

from evalcore.core.errors import RunFileError

Kind = Literal["evalcore", "promptfoo", "inspect_json", "inspect_eval"]

EXPECTED = (
    "expected an evalcore run file (format: evalcore.run), a promptfoo result file (eval -o, export), an Inspect "
    "AI log (.json, .eval), an lm-evaluation-harness results_*.json (with its samples_*.jsonl), an Every Eval Ever "
    "record (<uuid>.json, with its _samples.jsonl) or OpenTelemetry traces (OTLP JSON)"
)
_INSPECT_EVAL_ENTRIES = ("header.json", "_journal/start.json")


class UnknownLayoutError(RunFileError):
    """A file that no importer knows: its one line says what was found and what was expected."""


class InspectListingError(UnknownLayoutError):
    """Inspect's ``logs.json``: a listing of a folder's logs, not a log."""


def kind_of_zip(names: list[str]) -> Kind | None:
    """``inspect_eval`` when a zip's entries are an Inspect log's, else None."""
    return "inspect_eval" if any(n in names for n in _INSPECT_EVAL_ENTRIES) else None


def kind_of_json(tree: Any) -> Kind | None:
    """The kind of a parsed JSON file, or None when no importer knows its layout."""
    if not isinstance(tree, dict):
        return None
    if tree.get("format") == "evalcore.run":
        return "evalcore"
    spec = tree.get("eval")
    if "version" in tree and isinstance(spec, dict) and ("task" in spec or "model" in spec):
        if "status" in tree or "samples" in tree or "results" in tree:
            return "inspect_json"
    if promptfoo_summary(tree) is not None:
        return "promptfoo"
    return None


def promptfoo_summary(tree: dict[str, Any]) -> dict[str, Any] | None:
    """The evaluation summary in a promptfoo file (``{version, timestamp, results, stats, …}``), or None."""
    inner = tree.get("results")
    if isinstance(inner, dict) and isinstance(inner.get("results"), list):
        return inner
    if isinstance(inner, list) and "version" in tree and any(k in tree for k in ("stats", "prompts", "table")):
        return tree
    return None


def inspect_listing(tree: Any) -> int | None:
    """How many logs an Inspect ``logs.json`` listing names, or None when the tree is no such listing."""
    if not isinstance(tree, dict) or not tree:
        return None
    for key, value in tree.items():
        if not key.endswith((".eval", ".json")) or not isinstance(value, dict) or "eval" not in value:
            return None
    return len(tree)


def listing_refused(name: str, logs: int) -> InspectListingError:
    """The error that refuses an Inspect ``logs.json`` listing: it holds no samples; its folder's logs do."""
    folder = str(PurePath(name).parent)
    return InspectListingError(
        f"{name}: not a file evalcore can import",
        problems=[
            f"(file): found Inspect's listing of {logs} {'log' if logs == 1 else 'logs'} (logs.json), which holds "
            f"no samples; import the folder of the logs instead: evalcore import {folder}"
        ],
    )


def unknown_layout(name: str, found: str) -> UnknownLayoutError:
    """The error that refuses a file no importer knows; its one problem line says what was found, then what was
    expected."""
    return UnknownLayoutError(
        f"{name}: not a file evalcore can import", problems=[f"(file): found {found}; {EXPECTED}"]
    )


def describe_json(tree: Any) -> str:
    """What a JSON file that no importer knows holds, for :func:`unknown_layout`."""
    if isinstance(tree, dict):
        keys = list(tree)
        shown = ", ".join(keys[:8]) + (f" and {len(keys) - 8} more" if len(keys) > 8 else "")
        return f"a JSON object with keys {shown}" if keys else "an empty JSON object"
    if isinstance(tree, list):
        return f"a JSON array of {len(tree):,} items"
    return "a single JSON value"


def describe_zip(names: list[str]) -> str:
    """What a zip that is not an Inspect log holds."""
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return f"a zip archive holding {shown}" if names else "an empty zip archive"
