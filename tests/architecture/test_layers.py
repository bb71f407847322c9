"""evalcore's sub-packages depend on each other in one direction, and the engine never imports streamlit.

Every import counts: at module level or inside a function, under ``if TYPE_CHECKING:``, an
``importlib.import_module("evalcore....")`` with a literal name, and a name a package re-exports lazily
(its ``_EXPORTS``), which counts as an import of the module that defines it. An import hidden in a
function is still a dependency, and a cycle hidden that way (or behind a package's facade, or in the
annotations only) is still a cycle: neither module of it can be read or changed alone.
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
    "trackers",
    "execution",
    "explorer",
    "cli",
)


def _modules(package: Path = PACKAGE) -> list[Path]:
    return sorted(p for p in package.rglob("*.py"))


def _layer_of(path: Path) -> str | None:
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else None


#: Names no engine module may import: the app's pages, the tests and benches, and process-wide switches
#: (the garbage collector is shared by every session's thread in a Streamlit server).
FORBIDDEN = {
    "streamlit": "imports streamlit",
    "pages": "imports the app's pages",
    "app": "imports the app",
    "tests": "imports the tests",
    "bench": "imports the benches",
    "gc": "switches the process-wide garbage collector",
}


def _package_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1]) if parts[-1] == "__init__" else ".".join(parts[:-1])


def _lazy_exports(tree: ast.Module, package: str) -> list[tuple[int, str]]:
    """A facade's ``_EXPORTS = {name: submodule}``, as imports of ``package.submodule.name``."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "_EXPORTS":
            exports = ast.literal_eval(node.value)
            return [(node.lineno, f"{package}.{module}.{name}") for name, module in exports.items()]
    return []


def _imported(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """Every name ``path`` imports, dotted in full (``evalcore.analysis.rank``), with its line."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, f"relative import from {'.' * node.level}{node.module or ''}"))
        elif (
            isinstance(node, ast.Call)
            and (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.append((node.lineno, str(node.args[0].value)))
    if path.name == "__init__.py":
        found += _lazy_exports(tree, _package_name(path, root))
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
def test_a_module_imports_nothing_forbidden_to_the_engine(path: Path):
    wrong = [
        f"line {line}: {FORBIDDEN[name.split('.')[0]]} ({name})"
        for line, name in _imported(path)
        if name.split(".")[0] in FORBIDDEN or name.startswith("relative import")
    ]
    assert wrong == []


#: The rooms of ``evalcore/analysis/``, lowest first: a room may import only the rooms before it (and itself).
ANALYSIS_ROOMS = ("scores", "stats", "ranking", "people", "tables", "decisions")


def _upward_imports(path: Path, root: Path = ROOT) -> list[str]:
    """The imports of ``path`` that run up: to a higher layer of :data:`LAYERS`, or, inside ``evalcore/analysis/``,
    to a higher room of :data:`ANALYSIS_ROOMS` (or to the ``evalcore.analysis`` facade, which sits above them)."""
    parts = path.relative_to(root / "evalcore").parts
    if len(parts) < 2:  # evalcore/__init__.py and __main__.py sit above every layer
        return []
    layer = parts[0]
    room = parts[1] if layer == "analysis" and len(parts) > 2 else None
    wrong = []
    for line, name in _imported(path, root):
        target = name.split(".")
        if target[0] != "evalcore" or len(target) < 2:
            continue
        if target[1] not in LAYERS:
            wrong.append(f"line {line}: imports {name}, which is in no sub-package")
        elif LAYERS.index(target[1]) > LAYERS.index(layer):
            wrong.append(f"line {line}: {layer} imports {name}, a layer above it")
        elif room is not None and target[1] == "analysis":
            to = target[2] if len(target) > 3 else None
            if to not in ANALYSIS_ROOMS:
                wrong.append(f"line {line}: analysis/{room} imports {name}, through the facade above every room")
            elif ANALYSIS_ROOMS.index(to) > ANALYSIS_ROOMS.index(room):
                wrong.append(f"line {line}: analysis/{room} imports {name}, from analysis/{to}, a room above it")
    return wrong


def test_every_analysis_module_lives_in_a_room():
    analysis = PACKAGE / "analysis"
    stray = [
        str(p.relative_to(analysis))
        for p in _modules(analysis)
        if p.parent == analysis and p.name != "__init__.py" or p.parent.name not in ("analysis", *ANALYSIS_ROOMS)
    ]
    assert stray == []


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_imports_only_from_its_own_layer_or_below(path: Path):
    assert _upward_imports(path) == []


def _plant(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_an_import_of_a_higher_layer_is_refused(tmp_path: Path):
    _plant(tmp_path, {"evalcore/core/records.py": "from evalcore.cli.main import main\n"})
    assert _upward_imports(tmp_path / "evalcore/core/records.py", tmp_path) == [
        "line 1: core imports evalcore.cli.main.main, a layer above it"
    ]


def test_an_import_of_a_higher_analysis_room_is_refused(tmp_path: Path):
    _plant(tmp_path, {"evalcore/analysis/stats/paired.py": "def f():\n    from evalcore.analysis.tables import view\n"})
    assert _upward_imports(tmp_path / "evalcore/analysis/stats/paired.py", tmp_path) == [
        "line 2: analysis/stats imports evalcore.analysis.tables.view, from analysis/tables, a room above it"
    ]


def test_an_analysis_room_importing_the_analysis_facade_is_refused(tmp_path: Path):
    _plant(tmp_path, {"evalcore/analysis/scores/weights.py": "from evalcore.analysis import rank\n"})
    assert _upward_imports(tmp_path / "evalcore/analysis/scores/weights.py", tmp_path) == [
        "line 1: analysis/scores imports evalcore.analysis.rank, through the facade above every room"
    ]


def test_an_import_of_a_lower_analysis_room_passes(tmp_path: Path):
    _plant(tmp_path, {"evalcore/analysis/decisions/gate.py": "from evalcore.analysis.scores.formats import DASH\n"})
    assert _upward_imports(tmp_path / "evalcore/analysis/decisions/gate.py", tmp_path) == []


def test_no_module_is_over_500_lines():
    long = {str(p.relative_to(ROOT)): n for p in _modules() if (n := len(p.read_text().splitlines())) > 500}
    assert long == {}


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _facades(names: dict[str, Path]) -> dict[str, str]:
    """``evalcore.analysis.rank`` → ``evalcore.analysis.ranking.leaderboard``: where each lazily re-exported name
    lives."""
    facades = {}
    for name, path in names.items():
        if path.name == "__init__.py":
            for _, target in _lazy_exports(ast.parse(path.read_text()), name):
                module, _, public = target.rpartition(".")
                facades[f"{name}.{public}"] = module
    return facades


def _import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Which modules each module of ``root``'s ``evalcore`` imports, by dotted name."""
    names = {_module_name(p, root): p for p in _modules(root / "evalcore")}
    facades = _facades(names)
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        targets = set()
        for _, imported in _imported(path, root):
            # A name a facade re-exports leads to the module that defines it, so a cycle through the facade shows.
            imported = facades.get(imported, imported)
            # "from evalcore.analysis import leaderboard" names a module; "... import Filters" names its package.
            while imported and imported not in names:
                imported = imported.rpartition(".")[0]
            if imported and imported != name and not name.startswith(imported + "."):
                targets.add(imported)
        graph[name] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph``, each as the modules on it, the first one again at the end."""
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append([*trail[trail.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return cycles


#: Circles still being taken apart, each as the set of its modules; no other may appear.
def test_no_import_cycle_between_modules():
    cycles = [" -> ".join(c) for c in _cycles(_import_graph())]
    assert cycles == []


def test_a_cycle_in_annotations_or_inside_a_function_is_found(tmp_path: Path):
    package = tmp_path / "evalcore" / "storage"
    package.mkdir(parents=True)
    (tmp_path / "evalcore" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "store.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from evalcore.storage.spend import Spend\n"
    )
    (package / "spend.py").write_text("def spent():\n    from evalcore.storage import store\n\n    return store\n")
    assert _cycles(_import_graph(tmp_path)) == [
        ["evalcore.storage.spend", "evalcore.storage.store", "evalcore.storage.spend"]
    ]


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_imports_no_private_name_of_another_module(path: Path):
    """A name with a leading underscore is its module's own; one another module needs is public, or moves.

    A private module (``scoring/_base.py``) serves its own sub-package: modules of that sub-package may import
    it and its names, the rest of evalcore goes through the sub-package's public names. ``evalcore._util`` is
    every sub-package's.
    """
    modules = {_module_name(p) for p in _modules()}
    wrong = []
    for line, name in _imported(path):
        if not name.startswith("evalcore.") or name.endswith(".__version__"):
            continue
        parts = name.split(".")
        if parts[-1].startswith("_") and name not in modules:
            wrong.append(f"line {line}: imports {name}, a private name of another module")
        elif any(p.startswith("_") for p in parts[2:]) and parts[1] != _layer_of(path):
            wrong.append(f"line {line}: imports {name}, from a private module of another sub-package")
    assert wrong == []
