"""The suite's own Python code: modules of the suite folder that its ``evalcore.yaml`` names (a custom adapter
or scorer, an agent's tools). evalcore runs no other user code, and this only because the suite names it."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from evalcore.core.errors import ConfigError


def import_suite_module(name: str, suite_dir: Path, kind: str) -> Any:
    """The module ``name``: a ``.py`` file of the suite folder (``a.b`` is ``a/b.py``), else one on the Python path.

    Raises:
        ConfigError: neither exists, naming ``kind`` (what the suite asked it for) and where it looked.
    """
    local = suite_dir / (name.replace(".", "/") + ".py")
    if local.is_file():
        unique = f"evalcore_suite_{abs(hash(str(local)))}_{name.replace('.', '_')}"
        spec = importlib.util.spec_from_file_location(unique, local)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[unique] = module
        spec.loader.exec_module(module)
        return module
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ConfigError(
            f"evalcore.yaml: {kind}: cannot import {name!r} (looked for {local} and on the Python path): {exc}"
        ) from None
