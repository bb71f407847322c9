"""``evalcore`` as a user runs it: a real process, from the repository's root, offline."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def evalcore(
    *argv: object, db: Path | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``python -m evalcore ARGV [--db DB]``, its output captured as text; ``env`` adds to the environment."""
    extra = ["--db", str(db)] if db is not None else []
    return subprocess.run(
        [sys.executable, "-m", "evalcore", *map(str, argv), *extra],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", **(env or {})},
        timeout=timeout,
    )
