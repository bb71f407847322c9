"""evalcore's sub-packages depend on each other in one direction, and the engine never imports streamlit.

Every ``import`` counts, at module level or inside a function: an import hidden in a function is still a
dependency, and a cycle hidden that way is still a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "evalcore"

#: Lowest first: a package may import only the packages before it (and itself).
LAYERS = (
    "_util",
    "core",
    "models",
    "suite",
    "scoring",
    "storage",
    "runfile",
    "analysis",
    "execution",
    "explorer",
    "cli",
)


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py"))


def _layer_of(path: Path) -> str | None:
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else None


def _imported(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "evalcore":
                found += [(node.lineno, f"evalcore.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, node.module))
    return found


def test_every_module_lives_in_a_known_sub_package():
    stray = [
        str(p.relative_to(ROOT))
        for p in _modules()
        if _layer_of(p) is None
        and p.name not in ("__init__.py", "__main__.py")
        or (_layer_of(p) not in (None, *LAYERS))
    ]
    assert stray == []


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_imports_only_from_its_own_layer_or_below(path: Path):
    layer = _layer_of(path)
    if layer is None:  # evalcore/__init__.py re-exports the public API lazily by name
        return
    rank = LAYERS.index(layer)
    wrong = []
    for line, name in _imported(path):
        parts = name.split(".")
        if parts[0] == "streamlit":
            wrong.append(f"line {line}: imports streamlit")
        if parts[0] != "evalcore" or len(parts) < 2:
            continue
        target = parts[1]
        if target not in LAYERS:
            wrong.append(f"line {line}: imports {name}, which is in no sub-package")
        elif LAYERS.index(target) > rank:
            wrong.append(f"line {line}: {layer} imports {name}, a layer above it")
    assert wrong == []


def test_no_module_is_over_500_lines():
    long = {str(p.relative_to(ROOT)): n for p in _modules() if (n := len(p.read_text().splitlines())) > 500}
    assert long == {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_import_cycle_between_modules():
    names = {_module_name(p): p for p in _modules()}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        targets = set()
        for _, imported in _imported(path):
            # "from evalcore.analysis import leaderboard" names a module; "... import rank" names its package.
            while imported and imported not in names:
                imported = imported.rpartition(".")[0]
            if imported and imported != name and not name.startswith(imported + "."):
                targets.add(imported)
        graph[name] = targets
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*trail[trail.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert cycles == []
