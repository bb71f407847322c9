"""Cases added to a dataset's files: what ``evalcore generate review --accept`` writes, in the dataset's own form.

A dataset keeps its cases in one of three forms (:mod:`evalcore.suite.cases`): a ``cases.jsonl`` file gets one
more line, a folder of ``cases/*.yaml`` files one more file, and case folders one more numbered folder
``cases/<variant>/<NNN>/`` (``input.txt`` or ``input.json``, ``expected.json``, ``metadata.json``). Each addition
is written beside its place and moved there whole (``os.replace``), so a crash leaves the dataset as it was or
with the whole case, never half of one.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import yaml

from evalcore.core.errors import ConfigError

JSONL, YAML, FOLDERS = "jsonl", "yaml", "folders"
_SAFE = re.compile(r"[^a-z0-9_-]+")


def dataset_form(folder: Path) -> str:
    """How the dataset at ``folder`` keeps its cases: :data:`JSONL`, :data:`YAML` or :data:`FOLDERS`."""
    cases = folder / "cases"
    if (folder / "cases.jsonl").is_file():
        return JSONL
    if cases.is_dir() and any(cases.glob("*.y*ml")):
        return YAML
    if cases.is_dir():
        return FOLDERS
    raise ConfigError(f"{folder}: no cases.jsonl or cases/ folder to add a case to (see docs/suites.md)")


def safe_name(text: str, default: str = "generated") -> str:
    """``text`` as a file or folder name: lower case letters, digits, ``_`` and ``-``."""
    return _SAFE.sub("-", text.lower()).strip("-")[:40] or default


def next_case_id(folder: Path, variant: str, stem: str) -> str:
    """The id the next added case gets: ``<variant>/<NNN>`` (the next free number) for case folders, else
    ``stem``."""
    if dataset_form(folder) != FOLDERS:
        return stem
    root = folder / "cases" / safe_name(variant)
    taken = [int(p.name) for p in root.iterdir() if p.name.isdigit()] if root.is_dir() else []
    return f"{safe_name(variant)}/{max(taken, default=0) + 1:03d}"


def add_case(folder: Path, case: dict[str, Any]) -> Path:
    """Write ``case`` (``id``, ``variant``, ``input``, ``expected``, ``metadata``) into the dataset at ``folder``.

    Returns:
        The file or folder that now holds it.

    Raises:
        ConfigError: the dataset has no form to add to, or the place is taken.
    """
    form = dataset_form(folder)
    case = {key: case[key] for key in ("id", "variant", "input", "expected", "metadata")}
    if form == JSONL:
        return _append_line(folder / "cases.jsonl", case)
    if form == YAML:
        path = folder / "cases" / f"{safe_name(case['id'])}.yaml"
        if path.exists():
            raise ConfigError(f"{path}: exists already; the case was not added")
        _write_whole(path, yaml.safe_dump(case, sort_keys=False, allow_unicode=True).encode())
        return path
    # Staged in the suite's folder, which the loader does not walk for cases (same file system: one rename).
    return _add_folder(folder / "cases" / case["id"], case, staging_in=folder.parent.parent)


def _append_line(path: Path, case: dict[str, Any]) -> Path:
    old = path.read_bytes()
    line = json.dumps(case, ensure_ascii=False).encode() + b"\n"
    _write_whole(path, old + (b"" if not old or old.endswith(b"\n") else b"\n") + line)
    return path


def _add_folder(target: Path, case: dict[str, Any], staging_in: Path) -> Path:
    if target.exists():
        raise ConfigError(f"{target}: exists already; the case was not added")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".adding-", dir=staging_in))
    value = case["input"]
    if isinstance(value, str):
        (staging / "input.txt").write_text(value, encoding="utf-8")
    else:
        (staging / "input.json").write_text(json.dumps(value, ensure_ascii=False, indent=1), encoding="utf-8")
    (staging / "expected.json").write_text(json.dumps(case["expected"], ensure_ascii=False, indent=1), encoding="utf-8")
    (staging / "metadata.json").write_text(json.dumps(case["metadata"], ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(staging, target)
    return target


def _write_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to a file beside ``path`` and move it over ``path``: readers see the old or the new file."""
    handle, name = tempfile.mkstemp(prefix=".adding-", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
