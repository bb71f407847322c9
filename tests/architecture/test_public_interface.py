"""evalcore's public names: an explicit allowlist, each name importable, and each one typed for mypy and editors.

A name added to or dropped from a package's ``__all__`` fails here until this list says so too: the
public API changes on purpose, with a CHANGELOG line, never by accident.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PUBLIC = {
    "evalcore": [
        "CallFailed",
        "Case",
        "ConfigError",
        "Contender",
        "EvalcoreError",
        "Metric",
        "Plan",
        "Progress",
        "Result",
        "Run",
        "RunFileError",
        "RunOptions",
        "Store",
        "StoreError",
        "Suite",
        "WeightsError",
        "__version__",
        "aggregate",
        "bootstrap",
        "execute_plan",
        "load_suite",
        "make_plan",
        "pairwise_significance",
        "pareto_front",
        "parse_weights",
        "rank",
        "read_run_file",
        "register_provider",
        "results_frame",
        "resume_plan",
        "run_suite",
        "start_run",
        "weight_shares",
        "weight_stability",
        "write_run_file",
    ],
    "evalcore.core": [
        "CallFailed",
        "Case",
        "ConfigError",
        "Contender",
        "EvalcoreError",
        "FieldSpec",
        "Metric",
        "Result",
        "Run",
        "RunFileError",
        "RunInfo",
        "StoreError",
        "Usage",
        "WeightsError",
        "__version__",
    ],
    "evalcore.models": ["Provider", "Reply", "Request", "get_provider", "register_provider"],
    "evalcore.suite": ["Overrides", "Prompt", "Suite", "expand_lineup", "load_prompts", "load_suite"],
    "evalcore.scoring": [
        "Adapter",
        "CallingAdapter",
        "Client",
        "Context",
        "Parsed",
        "Scored",
        "Scorer",
        "build_adapter",
        "build_scorer",
    ],
    "evalcore.storage": ["Store", "default_db_path", "results_frame", "status_label"],
    "evalcore.runfile": ["dump_run", "export_run", "read_run_file", "read_upload", "write_run_file"],
    "evalcore.runfile.importers": ["import_notes", "iter_files", "read_import", "records_claimed", "source_label"],
    "evalcore.analysis": [
        "Filters",
        "StoredRun",
        "aggregate",
        "bootstrap",
        "leaderboard",
        "leaderboard_view",
        "pairwise_significance",
        "pareto_front",
        "parse_weights",
        "rank",
        "rank_run",
        "select_results",
        "validate_weights",
        "weight_shares",
        "weight_stability",
    ],
    "evalcore.execution": [
        "Plan",
        "Progress",
        "RunOptions",
        "estimate_cost",
        "estimate_plan_cost",
        "execute_plan",
        "make_plan",
        "open_replay",
        "resume_plan",
        "run_suite",
        "start_run",
        "verify_suite",
    ],
    "evalcore.trackers": [
        "GROUP",
        "RunEnded",
        "RunStarted",
        "Tracker",
        "TrackerHub",
        "Unsent",
        "available_trackers",
        "build_trackers",
        "ended_run",
        "open_trackers",
        "send_stored_run",
        "tracker_refs",
    ],
    "evalcore.cli": ["COMMANDS", "build_parser", "main"],
}


def _init_of(package: str) -> Path:
    return ROOT.joinpath(*package.split("."), "__init__.py")


def _lazy_packages() -> list[str]:
    return sorted(p for p in PUBLIC if "lazy_exports" in _init_of(p).read_text())


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_a_package_exports_exactly_its_allowlisted_names(package: str):
    assert sorted(importlib.import_module(package).__all__) == PUBLIC[package]


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_every_public_name_resolves(package: str):
    module = importlib.import_module(package)
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert missing == []


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_an_unknown_name_is_an_attribute_error_that_names_it(package: str):
    with pytest.raises(AttributeError, match="rnak"):
        _ = importlib.import_module(package).rnak


def _type_checking_imports(tree: ast.Module) -> dict[str, str]:
    found = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module
                found |= {alias.name: imp.module for alias in imp.names}
    return found


@pytest.mark.parametrize("package", _lazy_packages())
def test_a_lazy_package_shows_mypy_the_same_names_it_loads(package: str):
    """The ``TYPE_CHECKING`` imports (what mypy sees) and ``_EXPORTS`` (what loads on use) name the same modules."""
    tree = ast.parse(_init_of(package).read_text())
    exports = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "_EXPORTS"
    )
    assert _type_checking_imports(tree) == {name: f"{package}.{module}" for name, module in exports.items()}


def test_importing_evalcore_loads_no_heavy_dependency():
    code = "import sys, evalcore; print(sorted({'pandas', 'litellm', 'plotly', 'streamlit'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_mypy_sees_the_real_types_of_public_names_and_rejects_a_misspelt_one(tmp_path: Path):
    snippet = tmp_path / "uses_evalcore.py"
    snippet.write_text(
        "import evalcore\nimport evalcore.analysis\n"
        "reveal_type(evalcore.Store)\nreveal_type(evalcore.analysis.rank)\n"
        "evalcore.rnak\nevalcore.analysis.rnak\n"
    )
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", str(snippet)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    lines = out.stdout.splitlines()
    assert "evalcore.storage.store.Store" in lines[0]
    assert "Mapping[str, float]" in lines[1]  # rank's weights argument: the function itself, not Any
    misspelt = 'error: Module has no attribute "rnak"  [attr-defined]'
    assert [line.split(": ", 1)[1] for line in lines[2:]] == [misspelt, misspelt]
