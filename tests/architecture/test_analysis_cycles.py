"""The analysis modules import one another in one direction, type-only imports included.

``test_layers`` counts only the imports that run; a cycle through ``if TYPE_CHECKING:`` never fails at import
time, yet the two modules still cannot be read or changed alone. Within :mod:`evalcore.analysis` none is left.
"""

from __future__ import annotations

from tests.architecture.test_layers import _facades, _imported, _module_name, _modules

PACKAGE = "evalcore.analysis"


def _analysis_graph() -> dict[str, set[str]]:
    names = {_module_name(p): p for p in _modules()}
    facades = _facades(names)
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        if not name.startswith(PACKAGE + "."):
            continue
        targets = set()
        for _, imported in _imported(path, run_time_only=False):
            imported = facades.get(imported, imported)
            while imported and imported not in names:
                imported = imported.rpartition(".")[0]
            if imported.startswith(PACKAGE + ".") and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[str]:
    cycles: list[str] = []
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*trail[trail.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return cycles


def test_a_planted_type_only_cycle_is_found():
    assert _cycles({"a": {"b"}, "b": {"a"}}) == ["a -> b -> a"]


def test_no_analysis_module_is_in_an_import_cycle_even_through_type_only_imports():
    assert _cycles(_analysis_graph()) == []
