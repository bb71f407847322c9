"""What the importers share: how a run imported from another tool is named, stamped and checked.

An imported run's id comes from the file's SHA-256, so importing the same file twice gives the same id
(the store then refuses a duplicate unless told to replace it). Its provenance names the tool that made
it, the tool's own run id, the file's hash and the import time. Scores are turned into metric values in
[0, 1] by :func:`unit_value`; anything else becomes null with a note, never a refusal of the file.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from evalcore.core import records
from evalcore.core.version import __version__

#: At most this many notes are kept in a run's settings; the last one counts the rest.
MAX_NOTES = 200
#: The run's settings key that holds what the import did (notes, the source's own counts).
IMPORT_KEY = "import"
#: A metric's name: lower case letters, digits and underscores, starting with a letter.
_NAME_RUN = re.compile(r"[^a-z0-9]+")
#: Words in an error message that say which kind of failure it was; the first match wins.
_ERROR_KINDS = (
    ("rate_limit", re.compile(r"\b429\b|rate.?limit|too many requests|quota", re.I)),
    ("timeout", re.compile(r"time[ds]?[ _-]?out|deadline exceeded", re.I)),
    ("auth", re.compile(r"\b40[13]\b|unauthori[sz]ed|forbidden|api.?key|authenticat|permission", re.I)),
    ("bad_request", re.compile(r"\b400\b|\b404\b|\b422\b|bad request|invalid request|not found", re.I)),
    (
        "transport",
        re.compile(r"\b50[0-4]\b|connect|network|socket|ECONN|ENOTFOUND|EAI_AGAIN|fetch failed|unavailable", re.I),
    ),
)


@dataclass
class Notes:
    """What an import changed or left out, one line each (``samples/3_epoch_1.json: scores.x: NaN → null``)."""

    lines: list[str] = field(default_factory=list)
    dropped: int = 0

    def add(self, line: str) -> None:
        if len(self.lines) < MAX_NOTES:
            self.lines.append(line)
        else:
            self.dropped += 1

    def as_list(self) -> list[str]:
        more = [f"… and {self.dropped} more notes"] if self.dropped else []
        return [*self.lines, *more]


def obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one: files from other tools hold what they hold."""
    return value if isinstance(value, dict) else {}


def run_id(tool: str, digest: str) -> str:
    """The id of the run imported from a file with this SHA-256: the same file always gives the same id."""
    return f"{tool}-{digest[:16]}"


def utc_timestamp(value: Any) -> str | None:
    """An RFC 3339 UTC timestamp (``2026-11-29T18:04:05.123Z``) of an ISO 8601 text or epoch milliseconds.

    Returns None for anything that is not a time (an empty string, a number out of range, other text).
    """
    if isinstance(value, bool) or value is None or value == "":
        return None
    try:
        if isinstance(value, int | float):
            moment = datetime.fromtimestamp(value / 1000, tz=UTC)
        else:
            moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
            if moment.tzinfo is None:  # a time without an offset is taken as UTC, as the tools write it
                moment = moment.replace(tzinfo=UTC)
    except (ValueError, OverflowError, OSError):
        return None
    text = moment.astimezone(UTC).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def plus_seconds(timestamp: str | None, seconds: Any) -> str | None:
    """``timestamp`` moved on by ``seconds`` (None when either is unknown)."""
    if timestamp is None or not _finite(seconds):
        return None
    moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    return utc_timestamp(moment.timestamp() * 1000 + float(seconds) * 1000)


def metric_name(label: str, taken: Iterable[str] = ()) -> str:
    """A valid, free metric name for a label from another tool: ``Accuracy (strict)`` → ``accuracy_strict``.

    Reserved leaderboard names and names already ``taken`` get a suffix (``score`` → ``score_2``).
    """
    base = _NAME_RUN.sub("_", label.lower()).strip("_") or "metric"
    if not base[0].isalpha():
        base = f"m_{base}"
    used = set(taken)
    name, n = base, 1
    while name in records.RESERVED_NAMES or name in used:
        n += 1
        name = f"{base}_{n}"
    return name


def unit_value(value: Any) -> tuple[float | None, str | None]:
    """A score as a metric value in [0, 1], or None with why.

    Booleans are 1 and 0; numbers in [0, 1] stay; Inspect's letters ``C``, ``P``, ``I`` and ``N`` are 1,
    0.5, 0 and 0 (as Inspect's own accuracy counts them); ``yes``/``true`` and ``no``/``false`` are 1 and
    0, and a number written as text is read as a number. NaN, numbers outside [0, 1], lists, objects and
    other text have no value here.
    """
    if isinstance(value, bool):
        return float(value), None
    if isinstance(value, int | float):
        number = float(value)
        if not math.isfinite(number):
            return None, f"{value} is not a number"
        if 0.0 <= number <= 1.0:
            return number, None
        return None, f"{value} is outside [0, 1]"
    if isinstance(value, str):
        word = value.strip()
        if word in _LETTERS:
            return _LETTERS[word], None
        if word.lower() in _WORDS:
            return _WORDS[word.lower()], None
        try:
            return unit_value(float(word))
        except ValueError:
            return None, f"{short(value)} is not a score"
    if value is None:
        return None, "no value"
    return None, f"{short(value)} is not a single score"


_LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}


def error_kind(message: str) -> str:
    """The evalcore error kind (``rate_limit``, ``timeout``, ``auth``, …) a tool's error message names."""
    for kind, pattern in _ERROR_KINDS:
        if pattern.search(message):
            return kind
    return "other"


def count(value: Any) -> int | None:
    """A token count, or None when the value is not a non-negative whole number."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not _finite(value) or value < 0:
        return None
    return int(value) if float(value).is_integer() else None


def money(value: Any) -> float | None:
    """A cost in USD, or None when the value is not a non-negative number."""
    if isinstance(value, bool) or not _finite(value) or value < 0:
        return None
    return float(value)


def seconds(value: Any) -> float | None:
    """A duration in seconds, or None when the value is not a non-negative number."""
    return money(value)


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def short(value: Any, limit: int = 60) -> str:
    """A value as JSON, cut to ``limit`` characters, for a note."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def digest_of(value: Any) -> str:
    """The SHA-256 of a value's canonical JSON."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=repr)
    # JSON may hold a lone surrogate ("\ud800"), which UTF-8 cannot encode: hashed as its code unit, not refused.
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def contender_label(model: str, settings: dict[str, Any]) -> str:
    """``model · t=0.2 · effort=low``: the model plus its settings, as evalcore names its own contenders."""
    parts = [model] + [f"{records.SHORT_NAMES.get(k, k)}={_show(v)}" for k, v in settings.items()]
    return " · ".join(parts)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def unique(label: str, taken: set[str]) -> str:
    """``label``, or ``label #2``, ``label #3`` … when it is taken; the result is added to ``taken``."""
    name, n = label, 1
    while name in taken:
        n += 1
        name = f"{label} #{n}"
    taken.add(name)
    return name


@dataclass
class Stamp:
    """Where an imported run came from: the file and the tool that wrote it."""

    tool: str
    """The tool's package name: ``promptfoo`` or ``inspect_ai``."""
    version: str
    """The tool's version as the file states it, or ``unknown``."""
    layout: str
    """The layout that was recognised, for a person: ``promptfoo eval -o (results version 3)``."""
    digest: str
    """The SHA-256 of the file's bytes, as read."""
    file_name: str
    """The file's name (never a path to open)."""
    original_id: str | None
    """The tool's own id of the run (promptfoo's evalId, Inspect's run id), when the file has one."""
    imported_at: str
    """When the import happened."""


def provenance(stamp: Stamp, run: records.Run, revision: str | None, extra: dict[str, Any]) -> dict[str, Any]:
    """The run's provenance: the tool, hashes of its cases (so two imports of the same cases compare as one
    suite), and where the file came from."""
    dataset_hashes: dict[str, list[Any]] = {}
    for case in run.cases:
        dataset_hashes.setdefault(case.dataset, []).append([case.id, case.input, case.expected])
    hashes = {name: digest_of(items)[:16] for name, items in sorted(dataset_hashes.items())}
    return {
        "tool": {"name": stamp.tool, "version": stamp.version},
        "suite_hash": digest_of([run.info.suite, hashes])[:16],
        "dataset_hashes": hashes,
        "revision": revision,
        "source": {
            "tool": stamp.tool,
            "version": stamp.version,
            "layout": stamp.layout,
            "run_id": stamp.original_id,
            "file": stamp.file_name,
            "file_sha256": stamp.digest,
            "imported_at": stamp.imported_at,
            "imported_by": f"evalcore {__version__}",
            **extra,
        },
    }


def sort_results(run: records.Run) -> None:
    """Put the run's results in the order the store gives them back (contender, case, sample), so a stored
    import compares equal to the same file imported again."""
    contenders = {c.id: i for i, c in enumerate(run.contenders)}
    cases = {c.key: i for i, c in enumerate(run.cases)}
    run.results.sort(key=lambda r: (contenders[r.contender], cases[(r.dataset, r.case)], r.sample))


def now() -> str:
    """The current time as an RFC 3339 UTC timestamp."""
    return utc_timestamp(datetime.now(tz=UTC).isoformat()) or ""
