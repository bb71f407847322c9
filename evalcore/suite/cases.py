"""Read a dataset's cases from disk: case folders, ``cases.jsonl`` or one YAML file per case."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import yaml

from evalcore._util import jsonfast
from evalcore._util.suggest import did_you_mean
from evalcore.core.errors import ConfigError
from evalcore.core.records import Case
from evalcore.suite.conversations import CONVERSATION_KEYS, conversation_case

INPUT_FILES = ("input.txt", "input.json")
CASE_KEYS = {"id", "variant", "input", "expected", "metadata", "minimum_scores", *CONVERSATION_KEYS}
#: Where a case's ``minimum_scores`` go: its metadata (the run file keeps them with the case).
MINIMUM_SCORES = "minimum_scores"


def load_dataset_cases(folder: Path, dataset: str) -> list[Case]:
    """Every case of the dataset at ``folder``, in a stable order."""
    jsonl = folder / "cases.jsonl"
    cases_dir = folder / "cases"
    if jsonl.is_file():
        cases = _load_jsonl(jsonl, dataset)
    elif cases_dir.is_dir() and any(cases_dir.glob("*.y*ml")):
        cases = [_load_yaml_case(p, dataset) for p in sorted(cases_dir.glob("*.y*ml"))]
    elif cases_dir.is_dir():
        cases = _load_case_folders(cases_dir, dataset)
    else:
        raise ConfigError(
            f"{folder}: no cases. Add cases/<variant>/[NNN/]input.txt with expected.json, "
            "or cases.jsonl, or cases/*.yaml (see docs/suites.md)."
        )
    if not cases:
        raise ConfigError(f"{folder}: the dataset has no cases.")
    _check_unique(cases, folder)
    return cases


def _load_case_folders(root: Path, dataset: str) -> list[Case]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        names = set(filenames)
        if names.intersection(INPUT_FILES):
            found.append(Path(dirpath))
        elif "expected.json" in names:
            raise ConfigError(
                f"{dirpath}: expected.json without input.txt or input.json. Add the input, or remove the folder."
            )
    return [_load_case_folder(f, root, dataset) for f in sorted(found)]


def _load_case_folder(folder: Path, root: Path, dataset: str) -> Case:
    parts = folder.relative_to(root).parts
    if not parts:
        raise ConfigError(f"{folder}: inputs go in a variant folder: cases/<variant>/input.txt")
    variant = parts[-2] if parts[-1].isdigit() and len(parts) > 1 else parts[-1]
    if parts[-1].isdigit() and len(parts) == 1:
        raise ConfigError(f"{folder}: a numbered case needs a variant folder above it: cases/<variant>/{parts[-1]}/")
    return Case(
        dataset=dataset,
        id="/".join(parts),
        variant=variant,
        input=_read_input(folder),
        expected=_read_json(folder / "expected.json", required=True),
        metadata=_with_minimum_scores(_read_metadata(folder / "metadata.json"), None, str(folder / "metadata.json")),
        source=str(folder / "expected.json"),  # what check_expected reports on
    )


def _read_input(folder: Path) -> str | dict[str, Any]:
    both = [n for n in INPUT_FILES if (folder / n).is_file()]
    if len(both) > 1:
        raise ConfigError(f"{folder}: both input.txt and input.json; keep one.")
    path = folder / both[0]
    if path.suffix == ".json":
        value = _read_json(path, required=True)
        if not isinstance(value, str | dict):
            raise ConfigError(f"{path}: the input must be a JSON string or object, got {type(value).__name__}")
    else:
        value = _read_text(path)
    if value in ("", {}) or (isinstance(value, str) and not value.strip()):
        raise ConfigError(f"{path}: the input is empty. Write the text the model should read.")
    return value


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}). Save it as UTF-8.") from None


def _read_json(path: Path, required: bool) -> Any:
    if not path.is_file():
        if required:
            raise ConfigError(
                f"{path}: missing. Each case folder needs expected.json "
                "(the expected answer, JSON; null where the text does not say)."
            )
        return None
    try:
        return json.loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: {jsonfast.error_text(exc, 'not valid JSON: ')}") from None


def _read_metadata(path: Path) -> dict[str, Any]:
    value = _read_json(path, required=False)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f'{path}: metadata must be a JSON object like {{"difficulty": "hard"}}')
    return value


def _load_jsonl(path: Path, dataset: str) -> list[Case]:
    cases = []
    where = f"{path}: line "  # formatted once: a big suite has a line per case
    for lineno, line in enumerate(_read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = jsonfast.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}: {jsonfast.error_text(exc, 'not valid JSON: ', line=lineno)}") from None
        cases.append(case_from_mapping(data, dataset, f"{where}{lineno}", default_id=str(lineno)))
    return cases


def _load_yaml_case(path: Path, dataset: str) -> Case:
    try:
        data = yaml.safe_load(_read_text(path))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f": line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "cannot be parsed"
        raise ConfigError(
            f"{path}{line}: not valid YAML: {problem}. Check the indentation and quoting around that line."
        ) from None
    return case_from_mapping(data, dataset, str(path), default_id=path.stem)


def case_from_mapping(data: Any, dataset: str, where: str, default_id: str) -> Case:
    """A case read from one mapping (a line of ``cases.jsonl``, a YAML file), checked for its keys and input.

    Raises:
        ConfigError: naming ``where``, the bad key and how to fix it.
    """
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: a case is an object with keys {sorted(CASE_KEYS)}")
    if not data.keys() <= CASE_KEYS:  # the usual case skips building the sorted list
        unknown = sorted(set(data) - CASE_KEYS)
        guess = did_you_mean(unknown[0], CASE_KEYS) or "."
        raise ConfigError(f"{where}: {unknown[0]}: unknown key{guess} A case has {sorted(CASE_KEYS)}.")
    marker: dict[str, Any] = {}
    if "turns" in data or "user" in data:  # a conversation: its expected answer (the final state) is optional
        value, marker = conversation_case(data, where)
        data = {"expected": None, **data, "input": value}
    for key in ("input", "expected"):
        if key not in data:
            raise ConfigError(f"{where}: {key}: required key is missing.")
    value = data["input"]
    if not isinstance(value, (str, dict)) or not value or (isinstance(value, str) and not value.strip()):
        raise ConfigError(f"{where}: input: must be a non-empty string or object.")
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise ConfigError(f"{where}: metadata: must be an object.")
    if marker:
        metadata = {**metadata, **marker}
    variant = str(data.get("variant") or "default")
    return Case(
        dataset=dataset,
        id=str(data.get("id") or default_id),
        variant=variant,
        input=value,
        expected=_shared_keys(data["expected"]),
        metadata=_with_minimum_scores(_shared_keys(metadata), data.get(MINIMUM_SCORES), where),
        source=where,
    )


def _with_minimum_scores(metadata: dict[str, Any], given: Any, where: str) -> dict[str, Any]:
    """The metadata with the case's ``minimum_scores`` (given as a case key, or already in the metadata), checked:
    ``{metric: number}``."""
    if given is None:
        given = metadata.get(MINIMUM_SCORES)
        if given is None:
            return metadata
    elif MINIMUM_SCORES in metadata:
        raise ConfigError(f"{where}: minimum_scores: given twice (as a key and in metadata); keep one.")
    if (
        not isinstance(given, dict)
        or not given
        or not all(
            isinstance(k, str) and isinstance(v, int | float) and not isinstance(v, bool) for k, v in given.items()
        )
    ):
        raise ConfigError(
            f"{where}: minimum_scores: {given!r} is not a mapping of metric to number, e.g. {{score: 1.0}}"
        )
    return {**metadata, MINIMUM_SCORES: {k: float(v) for k, v in given.items()}}


def _shared_keys(value: Any) -> Any:
    """The object with its keys interned: each line of a JSONL file is parsed on its own, so without
    this every case would hold its own copy of every key."""
    if not isinstance(value, dict):
        return value
    intern = sys.intern
    try:
        return {intern(k): v for k, v in value.items()}
    except TypeError:  # a key that is not a str (YAML allows them): kept as it is
        return {sys.intern(k) if isinstance(k, str) else k: v for k, v in value.items()}


def _check_unique(cases: list[Case], folder: Path) -> None:
    seen: dict[str, str | None] = {}
    for case in cases:
        if case.id in seen:
            raise ConfigError(
                f"{folder}: case id {case.id!r} appears twice ({seen[case.id]} and "
                f"{case.source}). Give each case its own id."
            )
        seen[case.id] = case.source


def check_minimum_scores(cases: list[Case], names: list[str]) -> None:
    """Refuse a case whose ``minimum_scores`` names no metric of the suite (``names``: ``score`` and the metrics).

    Raises:
        ConfigError: naming the case, the bad name, a close name and the valid ones.
    """
    for case in cases:
        for name in case.metadata.get(MINIMUM_SCORES) or {}:
            if name not in names:
                guess = did_you_mean(name, names) or "."
                raise ConfigError(
                    f"{case.source or case.dataset + '/' + case.id}: minimum_scores: {name!r} is no metric of the "
                    f"suite{guess} The names are {', '.join(names)}."
                )
