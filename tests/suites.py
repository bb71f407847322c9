"""Small suites written into a temporary folder, for tests."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import yaml

FIELDS = {
    "name": {"type": "string"},
    "kind": {"type": "enum", "values": ["a", "b", "c"]},
    "count": {"type": "integer"},
    "amount": {"type": "number"},
    "urgent": {"type": "boolean"},
    "tags": {"type": "multi_enum", "values": ["x", "y", "z"]},
}

CASES = {
    "complete/001": (
        "Ann needs kind a, 2 units, $10.5, urgent, tags x and y.",
        {"name": "Ann", "kind": "a", "count": 2, "amount": 10.5, "urgent": True, "tags": ["x", "y"]},
    ),
    "complete/002": (
        "Bob wants kind b, 1 unit, $3, not urgent, tag z.",
        {"name": "Bob", "kind": "b", "count": 1, "amount": 3, "urgent": False, "tags": ["z"]},
    ),
    "vague/001": (
        "Someone may want something soon-ish.",
        {"name": None, "kind": None, "count": None, "amount": None, "urgent": None, "tags": None},
    ),
}


def write_suite(
    root: Path, config: dict[str, Any] | None = None, cases: dict[str, Any] | None = None, dataset: str = "shop"
) -> Path:
    """A suite folder with one dataset; ``config`` entries replace the defaults."""
    suite = {
        "suite": "mini",
        "adapter": "extract",
        "instructions": "Fill in the form.",
        "scorer": "fields",
        "fields": FIELDS,
        "run": {"max_attempts": 2, "backoff_s": 0},
        "lineup": [{"model": "fake/oracle", "settings": {"temperature": [0, 0.7]}}, {"model": "fake/guesser"}],
        "weighted_score": {"weights": {"score": 1, "cost": -0.2}},
    }
    suite.update(config or {})
    root.mkdir(parents=True, exist_ok=True)
    (root / "evalcore.yaml").write_text(yaml.safe_dump(suite, sort_keys=False))
    for case_id, (text, expected) in (CASES if cases is None else cases).items():
        folder = root / "datasets" / dataset / "cases" / case_id
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "input.txt").write_text(text)
        (folder / "expected.json").write_text(json.dumps(expected))
        (folder / "metadata.json").write_text(json.dumps({"difficulty": "easy"}))
    return root


#: The intake demo suite, which :func:`skill_suite` copies.
INTAKE = Path(__file__).resolve().parents[1] / "data" / "suites" / "intake"


def skill_suite(root: Path, skills: tuple[float, ...] = (0.9, 0.6, 0.3), race: dict[str, Any] | None = None) -> Path:
    """The intake demo suite with a lineup of ``fake/skill`` at these skills, for races offline; with ``race``,
    the suite asks for an adaptive run with these settings (``run.adaptive``: a seed makes the race repeatable)."""
    shutil.copytree(INTAKE, root)
    config = yaml.safe_load((root / "evalcore.yaml").read_text())
    config["lineup"] = [{"model": "fake/skill", "settings": {"skill": list(skills)}}]
    if race is not None:
        config["run"] = {**config.get("run", {}), "adaptive": race}
    (root / "evalcore.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return root
