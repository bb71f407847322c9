"""Paths into a JSON reply, JSONPath-like: ``choices[0].message.content``, ``$.answer.text``, ``data["the key"]``.

A path is an optional ``$``, then keys and indexes: ``.name`` (or a bare ``name`` first), ``[0]`` (``[-1]`` is
the last item), ``["any key"]`` or ``['any key']`` for a key with dots, spaces or brackets. No wildcards or
filters: a path names one value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

Step = str | int
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_INDEX = re.compile(r"\[\s*(-?\d+)\s*\]")
_QUOTED = re.compile(r"""\[\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*\]""")


class PathError(ValueError):
    """A path that does not parse; the message says where."""


class Missing(LookupError):
    """The value a path names is not in the data; the message says which step failed."""


@dataclass(frozen=True)
class JsonPath:
    """A parsed path: its text and its steps (keys and indexes)."""

    text: str
    steps: tuple[Step, ...]

    def pick(self, data: Any) -> Any:
        """The value the path names in ``data``.

        Raises:
            Missing: a key is absent, an index out of range, or a step goes into a value that is not an object
                or a list (``no key 'text' in answer``).
        """
        value = data
        for i, step in enumerate(self.steps):
            where = _joined(self.steps[:i]) or "the reply"
            if isinstance(step, int):
                if not isinstance(value, list):
                    raise Missing(f"{where} is {_kind(value)}, not a list")
                if not -len(value) <= step < len(value):
                    raise Missing(f"{where} has {len(value)} items, no [{step}]")
                value = value[step]
            else:
                if not isinstance(value, dict):
                    raise Missing(f"{where} is {_kind(value)}, not an object")
                if step not in value:
                    raise Missing(f"no key {step!r} in {where}")
                value = value[step]
        return value


def parse_path(text: str) -> JsonPath:
    """Parse a path (see the module's docstring).

    Raises:
        PathError: the path does not parse, naming the character where it stops.
    """
    source = text.strip()
    pos = 1 if source.startswith("$") else 0
    steps: list[Step] = []
    while pos < len(source):
        rest = source[pos:]
        if rest.startswith("."):
            match = _NAME.match(source, pos + 1)
            if match is None:
                raise PathError(f"path {text!r}: a key name must follow '.' at character {pos + 1}")
            steps.append(match.group())
            pos = match.end()
        elif rest.startswith("["):
            index, quoted = _INDEX.match(source, pos), _QUOTED.match(source, pos)
            if index is not None:
                steps.append(int(index.group(1)))
                pos = index.end()
            elif quoted is not None:
                key = quoted.group(1) if quoted.group(1) is not None else quoted.group(2)
                steps.append(re.sub(r"\\(.)", r"\1", key))
                pos = quoted.end()
            else:
                raise PathError(f'path {text!r}: expected [N] or ["key"] at character {pos + 1}')
        elif not steps and pos == 0 and (match := _NAME.match(source)) is not None:
            steps.append(match.group())
            pos = match.end()
        else:
            raise PathError(f'path {text!r}: unexpected {rest[0]!r} at character {pos + 1}; use .key, [N] or ["key"]')
    return JsonPath(text, tuple(steps))


def _joined(steps: tuple[Step, ...]) -> str:
    out = ""
    for step in steps:
        if isinstance(step, int):
            out += f"[{step}]"
        elif _NAME.fullmatch(step):
            out += f".{step}" if out else step
        else:
            out += f"[{step!r}]"
    return out


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(type(value), "a number")
