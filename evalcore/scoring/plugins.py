"""Look up a suite's adapter and scorer: a built-in name, or ``module:attribute`` from the suite folder; and
a plugin an installed package registers under an entry-point group (:func:`find_plugin`: report formats).

A custom object is the only user code evalcore ever runs, and only because the suite's own
``evalcore.yaml`` names it, or because the user installed the package that registers it and named it.
"""

from __future__ import annotations

import importlib.metadata
import inspect
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evalcore._util.suggest import did_you_mean
from evalcore.core.errors import ConfigError
from evalcore.core.records import RESERVED_NAMES
from evalcore.scoring.adapters import ChatAdapter, ExtractAdapter
from evalcore.scoring.agent_adapter import AgentAdapter
from evalcore.scoring.http_adapter import HttpAdapter
from evalcore.scoring.scorer_set import NAME, ScorerSet, scorer_id
from evalcore.scoring.scorers import SCORERS
from evalcore.scoring.tools_adapter import ToolsAdapter
from evalcore.suite.code import import_suite_module
from evalcore.suite.config import NamedRef
from evalcore.suite.loader import name_place

ADAPTERS: dict[str, type] = {
    "extract": ExtractAdapter,
    "chat": ChatAdapter,
    "http": HttpAdapter,
    "tools": ToolsAdapter,
    "agent": AgentAdapter,
}


def build_adapter(ref: NamedRef, suite_dir: Path) -> Any:
    """The adapter object a suite names.

    A class whose ``__init__`` takes ``suite_dir`` gets the suite's folder (to read files of its own); its
    other parameters are the suite's ``adapter.options``.
    """
    adapter = build_named(ref, suite_dir, ADAPTERS, "adapter")
    for attr in ("build_messages", "parse"):
        if not callable(getattr(adapter, attr, None)):
            raise ConfigError(
                f"evalcore.yaml: adapter: {ref.name} has no {attr}() method (see evalcore.scoring.adapters.Adapter)"
            )
    call = getattr(adapter, "call", None)
    if call is not None and not inspect.iscoroutinefunction(call):
        raise ConfigError(
            f"evalcore.yaml: adapter: {ref.name}.call must be `async def call(self, case, contender, client)` "
            "(see evalcore.scoring.client.CallingAdapter)"
        )
    if not hasattr(adapter, "response_format"):
        adapter.response_format = None
    return adapter


def build_scorer(ref: NamedRef | Sequence[NamedRef], suite_dir: Path) -> Any:
    """The scorer object a suite names, with its metrics checked.

    Args:
        ref: one scorer, or a suite's ``scorers`` list (:attr:`Suite.scorer_refs`): a list of one gives that
            scorer itself (unless it compares with a key of the expected answer, ``expected:``), a longer list a
            :class:`~evalcore.scoring.scorer_set.ScorerSet` (naming rule there).

    Raises:
        ConfigError: an unknown scorer, bad options, or metric names that are reserved, repeat or are invalid.
    """
    if isinstance(ref, NamedRef):
        return _build_one(ref, suite_dir)
    refs = list(ref)
    if len(refs) == 1 and getattr(refs[0], "expected", None) is None:
        return _build_one(refs[0], suite_dir)
    members = []
    for r in refs:
        scorer = _build_one(r, suite_dir)
        members.append((scorer_id(getattr(r, "id", None), r.name, scorer), scorer))
    ids = [sid for sid, _ in members]
    repeated = sorted({sid for sid in ids if ids.count(sid) > 1})
    if repeated:
        raise ConfigError(
            f"evalcore.yaml: scorers: {repeated[0]!r} is listed twice; give each entry its own id, "
            f"e.g. {{name: {repeated[0]}, id: {repeated[0]}_2}}"
        )
    primary = next((i for i, r in enumerate(refs) if getattr(r, "primary", False)), 0)
    scorers = ScorerSet(members, primary, [getattr(r, "expected", None) for r in refs])
    for m in scorers.metrics:
        if not NAME.match(m.name):
            raise ConfigError(f"evalcore.yaml: scorers: metric name {m.name!r} is not of the form [a-z][a-z0-9_]*")
    _check_metrics(scorers.metrics, "scorers")
    return scorers


def _build_one(ref: NamedRef, suite_dir: Path) -> Any:
    scorer = build_named(ref, suite_dir, SCORERS, "scorer")
    if not callable(getattr(scorer, "score", None)) or not getattr(scorer, "metrics", None):
        raise ConfigError(
            f"evalcore.yaml: scorer: {ref.name} needs a score() method and a metrics list "
            "(see evalcore.scoring.scorers.Scorer)"
        )
    _check_metrics(scorer.metrics, ref.name)
    return scorer


def plugin_names(group: str, built_in: Mapping[str, Any]) -> list[str]:
    """Every name :func:`find_plugin` knows in ``group``, sorted: evalcore's own and the installed packages'."""
    return sorted({*built_in, *_entry_points(group)})


def find_plugin(name: str, group: str, built_in: Mapping[str, Any], kind: str) -> Any:
    """The object registered as ``name``: one of evalcore's own (``built_in``), else the one an installed
    package registers under the entry-point group ``group`` (its ``pyproject.toml``:
    ``[project.entry-points."<group>"]``, ``name = "module:attribute"``), imported only now.

    evalcore's own ``pyproject.toml`` registers its built-ins under the group too; ``built_in`` keeps them
    found in a source tree run without being installed, and a package cannot replace one by reusing its name.

    Raises:
        ConfigError: an unknown name (the message lists the known ones and the one likely meant), or a
            registered entry point that cannot be imported.
    """
    if name in built_in:
        return built_in[name]
    entry = _entry_points(group).get(name)
    if entry is None:
        known = plugin_names(group, built_in)
        raise ConfigError(
            f"unknown {kind} {name!r}{did_you_mean(name, known) or '.'} Known: {', '.join(known)}; a package adds "
            f"one by registering it under the entry-point group {group!r}"
        )
    try:
        return entry.load()
    except Exception as exc:  # a third party's import: any error is the plugin's, and is reported as such
        where = entry.dist.name if entry.dist is not None else "an installed package"
        raise ConfigError(
            f"{kind} {name!r} ({entry.value}, registered by {where}) cannot be loaded: {exc}; "
            "reinstall or fix that package"
        ) from None


def _entry_points(group: str) -> dict[str, importlib.metadata.EntryPoint]:
    """The entry points of ``group`` by name; of a name registered twice, the first found on the path."""
    found: dict[str, importlib.metadata.EntryPoint] = {}
    for entry in importlib.metadata.entry_points(group=group):
        found.setdefault(entry.name, entry)
    return found


def build_named(ref: NamedRef, suite_dir: Path, registry: Mapping[str, Any], kind: str) -> Any:
    """The object ``ref`` names: one of ``registry`` or a ``module:attribute`` (from the suite folder first),
    built with ``ref.options`` (and ``suite_dir`` when its ``__init__`` takes it); an object is returned as is.

    Raises:
        ConfigError: an unknown name (the valid ones listed), a module that cannot be imported, bad options.
    """
    if ":" in ref.name:
        target = _import_attribute(ref.name, suite_dir, kind)
    elif ref.name in registry:
        target = registry[ref.name]
    else:
        place = name_place(suite_dir, (kind, f"{kind}s"), ref.name)
        raise ConfigError(
            f"{place}: {kind}: unknown {kind} {ref.name!r}{did_you_mean(ref.name, registry) or '.'} Built in: "
            f"{sorted(registry)}; or name your own as module:attribute."
        )
    if not inspect.isclass(target):
        if ref.options:
            raise ConfigError(f"evalcore.yaml: {kind}: {ref.name} is an object, not a class: it takes no options")
        return target
    options = dict(ref.options)
    if "suite_dir" in inspect.signature(target.__init__).parameters:
        options["suite_dir"] = suite_dir
    try:
        return target(**options)
    except TypeError as exc:
        raise ConfigError(f"evalcore.yaml: {kind}.options: {ref.name} does not take these options: {exc}") from None


def _import_attribute(spec: str, suite_dir: Path, kind: str) -> Any:
    module_name, _, attribute = spec.partition(":")
    module = import_suite_module(module_name, suite_dir, kind)
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise ConfigError(f"evalcore.yaml: {kind}: module {module_name!r} has no attribute {attribute!r}") from None


def _check_metrics(metrics: list[Any], scorer: str) -> None:
    names = [m.name for m in metrics]
    primaries = [m.name for m in metrics if m.primary]
    if len(primaries) != 1:
        raise ConfigError(f"scorer {scorer}: exactly one metric must be primary, got {primaries}")
    reserved = [n for n in names if n in RESERVED_NAMES]
    if reserved:
        raise ConfigError(
            f"scorer {scorer}: metric name {reserved[0]!r} is reserved ({sorted(RESERVED_NAMES)}); rename it"
        )
    if len(set(names)) != len(names):
        raise ConfigError(f"scorer {scorer}: metric names repeat: {names}")
