"""``evalcore plan`` says which contenders share each rate limit of the suite."""

from __future__ import annotations

import json
from pathlib import Path

from evalcore.cli import main
from tests.suites import write_suite


def test_plan_names_the_contenders_each_limit_applies_to(capsys, tmp_path: Path) -> None:
    limits = {"fake/oracle": {"rpm": 500, "concurrency": 4}, "openai/gpt-4o-mini": {"tpm": 200000}}
    suite = write_suite(tmp_path / "suite", {"limits": limits})
    assert main(["plan", str(suite), "--db", str(tmp_path / "none.db")]) == 0
    out = capsys.readouterr().out
    assert "limit fake/oracle: rpm 500, concurrency 4 (shared by fake/oracle · t=0, fake/oracle · t=0.7)" in out
    assert "limit openai/gpt-4o-mini: tpm 200000 (no contender of this plan)" in out
    assert main(["plan", str(suite), "--db", str(tmp_path / "none.db"), "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)["limits"]
    assert shown == {"fake/oracle": ["fake/oracle · t=0", "fake/oracle · t=0.7"], "openai/gpt-4o-mini": []}
