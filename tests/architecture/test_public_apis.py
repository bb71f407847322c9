"""evalcore and the app use their dependencies' public APIs only: a private name breaks on a minor upgrade.

Each name below reaches into Streamlit, litellm, the json module or the operating system. A hit names
the file and line; use the dependency's documented API instead.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Private names of dependencies that once were used, and must not come back.
PRIVATE = re.compile(
    r"_use_warning_has_been_displayed|uses_pages_directory|c_make_encoder|scan_once|_hidden_params"
    r"|/proc/self/fd"
)


def _sources() -> list[Path]:
    return sorted([*(ROOT / "evalcore").rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"])


def test_no_private_name_of_a_dependency_is_used():
    hits = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _sources()
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if PRIVATE.search(line)
    ]
    assert hits == [], "private names of dependencies:\n" + "\n".join(hits)


def test_the_app_imports_streamlit_by_its_public_namespace_only():
    """``st.*`` is Streamlit's documented API; its submodules (``streamlit.runtime``, ``streamlit.file_util``)
    are internals that move between releases: one adapter, ``pages/_session_ends.py`` (whether a session has
    ended: no public API tells), may read them, with its own test that fails when they move."""
    hits = []
    adapter = ROOT / "pages" / "_session_ends.py"
    for path in [ROOT / "app.py", *sorted(p for p in (ROOT / "pages").glob("*.py") if p != adapter)]:
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            hits += [
                f"{path.relative_to(ROOT)}:{node.lineno}: {name}" for name in names if name.startswith("streamlit.")
            ]
    assert hits == [], "Streamlit internals imported:\n" + "\n".join(hits)
