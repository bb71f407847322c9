"""Load a suite folder: ``evalcore.yaml`` plus its datasets of cases.

Every problem raises :class:`~evalcore.core.errors.ConfigError` naming the file, the key (with its line
when the YAML has one), what is wrong and how to fix it. Nothing is half-loaded.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from evalcore._util.suggest import did_you_mean
from evalcore.core.errors import ConfigError
from evalcore.core.records import Case
from evalcore.core.schema import FieldSpec, check_value
from evalcore.suite._keys import allowed_keys
from evalcore.suite.cases import load_dataset_cases
from evalcore.suite.config import FieldModel, NamedRef, ScorerRef, SuiteModel
from evalcore.suite.envfiles import read_env_files
from evalcore.suite.fieldrules import all_fit, names_of
from evalcore.suite.images import attach_images
from evalcore.suite.prompts import Prompt, load_prompts
from evalcore.suite.settings import settings_problem

SUITE_FILE = "evalcore.yaml"
#: The environment variable naming the suite of a command run without one (:func:`find_suite`).
SUITE_ENV = "EVALCORE_SUITE"


@dataclass
class Dataset:
    """A dataset of a suite, with its own instructions and field schema."""

    name: str
    description: str
    instructions: str
    fields: tuple[FieldSpec, ...]
    cases: list[Case]


@dataclass
class Suite:
    """A loaded, checked suite."""

    name: str
    path: Path
    config: SuiteModel
    datasets: dict[str, Dataset]
    #: sha256 of evalcore.yaml, and of each dataset's files, for provenance.
    suite_hash: str = ""
    dataset_hashes: dict[str, str] = field(default_factory=dict)
    #: The templates in ``prompts/`` by name; ``{}`` when the suite has none (the adapter builds the messages).
    prompts: dict[str, Prompt] = field(default_factory=dict)

    @property
    def adapter_ref(self) -> NamedRef:
        return _as_ref(self.config.adapter)

    @property
    def scorer_ref(self) -> NamedRef:
        """The scorer whose primary metric is the suite's (the one scorer, when there is one)."""
        refs = self.scorer_refs
        return next((r for r in refs if r.primary), refs[0])

    @property
    def scorer_refs(self) -> list[ScorerRef]:
        """Every scorer of the suite, in order (``scorers:``, or the one ``scorer:``)."""
        return self.config.scorer_entries()

    @property
    def cases(self) -> list[Case]:
        return [c for d in self.datasets.values() for c in d.cases]

    @property
    def weights(self) -> dict[str, float]:
        return dict(self.config.weighted_score.weights)


def _as_ref(value: str | NamedRef) -> NamedRef:
    return NamedRef(name=value) if isinstance(value, str) else value


def find_suite(start: Path, environ: Mapping[str, str] | None = None) -> Path:
    """The suite folder a command run without one means: ``$EVALCORE_SUITE`` when set, else the nearest folder
    holding an ``evalcore.yaml``, from ``start`` upward.

    Raises:
        ConfigError: ``$EVALCORE_SUITE`` is not a suite, or no folder from ``start`` up holds an ``evalcore.yaml``.
    """
    env = os.environ if environ is None else environ
    named = env.get(SUITE_ENV)
    if named:
        folder = Path(named)
        folder = folder.parent if folder.name == SUITE_FILE else folder
        if not (folder / SUITE_FILE).is_file():
            raise ConfigError(f"${SUITE_ENV}={named}: no {SUITE_FILE} there; point it at a suite folder or unset it")
        return folder
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / SUITE_FILE).is_file():
            return folder
    raise ConfigError(
        f"no {SUITE_FILE} in {start} or any folder above it: name the suite folder "
        f"(e.g. evalcore run data/suites/intake), set ${SUITE_ENV}, or run from inside a suite"
    )


def load_suite(path: str | Path) -> Suite:
    """Read and check the suite folder at ``path`` (or the ``evalcore.yaml`` itself); its ``env_files`` are read
    into the environment (:func:`~evalcore.suite.envfiles.read_env_files`)."""
    folder = Path(path)
    if folder.name == SUITE_FILE:
        folder = folder.parent
    config_path = folder / SUITE_FILE
    if not config_path.is_file():
        raise ConfigError(
            f"{folder}: no {SUITE_FILE} here. A suite is a folder with {SUITE_FILE} "
            "and datasets/<name>/cases/ (see docs/suites.md)."
        )
    text = config_path.read_text(encoding="utf-8")
    config = parse_suite_config(text, str(config_path))
    read_env_files(folder, config.env_files)
    datasets = _load_datasets(folder, config, str(config_path))
    return Suite(
        name=config.suite,
        path=folder,
        config=config,
        datasets=datasets,
        suite_hash=_sha(text.encode()),
        dataset_hashes={name: _hash_tree(folder / "datasets" / name) for name in datasets},
        prompts=load_prompts(folder),
    )


def parse_suite_config(text: str, where: str) -> SuiteModel:
    """Validate the text of an ``evalcore.yaml``; ``where`` names it in errors."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f": line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(
            f"{where}{line}: not valid YAML: {problem}. Check the indentation and quoting around that line."
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(
            f"{where}: expected a mapping of keys (suite:, adapter:, lineup: …), got {type(data).__name__}"
        )
    try:
        config = SuiteModel.model_validate(data)
    except ValidationError as exc:
        lines = [_describe_error(err, text) for err in exc.errors()]
        raise ConfigError(
            f"{where}: " + ("\n".join(lines) if len(lines) == 1 else f"{len(lines)} problems:\n  " + "\n  ".join(lines))
        ) from None
    _check_setting_ranges(config, text, where)
    return config


def _check_setting_ranges(config: SuiteModel, text: str, where: str) -> None:
    """Refuse a setting outside its range (:mod:`evalcore.suite.settings`) in ``defaults`` or a lineup entry's
    ``settings``, with its line, as any other mistake in the file."""
    places: list[tuple[list[Any], dict[str, Any]]] = [(["defaults"], config.defaults)]
    places += [(["lineup", i, "settings"], entry.settings) for i, entry in enumerate(config.lineup)]
    for loc, settings in places:
        found = settings_problem(settings)
        if found:
            line = _line_of(text, [*loc, found[0]])
            key = ".".join(str(p) for p in [*loc, found[0]])
            raise ConfigError(f"{where}: {f'line {line}: ' if line else ''}{key}: {found[1]}")


def _describe_error(err: Any, text: str) -> str:
    parts = [p for p in err["loc"] if not str(p).startswith(("function-", "str", "NamedRef"))]
    key = ".".join(str(p) for p in parts) or "(top level)"
    line = _line_of(text, [p for p in err["loc"]])
    where = f"line {line}: " if line else ""
    if err["type"] == "extra_forbidden":
        guess = did_you_mean(str(parts[-1]), allowed_keys(parts[:-1])) if parts else ""
        return f"{where}{key}: unknown key{guess or '.'} Remove it or fix its spelling (see docs/suites.md)."
    if err["type"] == "missing":
        return f"{where}{key}: required key is missing."
    if err["type"] == "value_error" and isinstance(err.get("input"), dict | list):
        # A check across a whole mapping (a router, a limit) says what is wrong; echoing the mapping adds noise.
        return f"{where}{key}: {str(err['msg']).removeprefix('Value error, ')}"
    return f"{where}{key}: {err['msg']} (got {err.get('input')!r})"


def name_place(suite_dir: Path, keys: tuple[str, ...], name: str) -> str:
    """Where ``evalcore.yaml`` names ``name`` under one of ``keys`` (``scorer: fields``, ``scorers: [{name: …}]``):
    ``/path/evalcore.yaml: line 7``, or the file alone when the line cannot be found."""
    path = Path(suite_dir) / SUITE_FILE
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        root = None
    for key_node, node in root.value if isinstance(root, yaml.MappingNode) else []:
        if key_node.value not in keys:
            continue
        for item in node.value if isinstance(node, yaml.SequenceNode) else [node]:
            named = dict((k.value, v) for k, v in item.value) if isinstance(item, yaml.MappingNode) else {}
            scalar = named.get("name", item)
            if isinstance(scalar, yaml.ScalarNode) and scalar.value == name:
                return f"{path}: line {scalar.start_mark.line + 1}"
    return str(path)


def _line_of(text: str, loc: list[Any]) -> int | None:
    """The line of the YAML node at ``loc``, as far down as it exists."""
    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return None
    line = None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            match = [(k, v) for k, v in node.value if k.value == str(part)]
            if not match:
                break
            key_node, node = match[0]
            line = key_node.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


def _load_datasets(folder: Path, config: SuiteModel, where: str) -> dict[str, Dataset]:
    root = folder / "datasets"
    names = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    if not names:
        raise ConfigError(
            f"{root}: no datasets. Add datasets/<name>/cases/<variant>/input.txt "
            "with expected.json beside it (see docs/suites.md)."
        )
    unknown = sorted(set(config.datasets) - set(names))
    if unknown:
        raise ConfigError(f"{where}: datasets.{unknown[0]}: no folder {root / unknown[0]}. Datasets on disk: {names}")
    return {name: _load_dataset(root / name, name, config, where) for name in names}


def _load_dataset(folder: Path, name: str, config: SuiteModel, where: str) -> Dataset:
    spec = config.datasets.get(name)
    raw_fields = spec.fields if spec and spec.fields is not None else config.fields
    fields = _field_specs(raw_fields or {}, where, name)
    cases = load_dataset_cases(folder, name)
    attach_images(cases, folder.parent.parent)  # image paths are relative to the suite folder
    if uses_fields(config):
        if not fields:
            raise ConfigError(
                f"{where}: the extract adapter and fields scorer need a field schema: add "
                f"`fields:` at the top level or under datasets.{name}.fields"
            )
        for case in cases:
            check_expected(case, fields)
    return Dataset(
        name=name,
        description=spec.description if spec else "",
        instructions=spec.instructions if spec else "",
        fields=fields,
        cases=cases,
    )


def uses_fields(config: SuiteModel) -> bool:
    """Whether the suite's cases have a field schema their expected answers must fit (extract, fields)."""
    return _as_ref(config.adapter).name == "extract" or any(r.name == "fields" for r in config.scorer_entries())


def _field_specs(raw: dict[str, FieldModel], where: str, dataset: str) -> tuple[FieldSpec, ...]:
    specs = []
    for name, model in raw.items():
        needs_values = model.type in ("enum", "multi_enum")
        if needs_values and not model.values:
            raise ConfigError(f"{where}: fields.{name}: type {model.type} needs `values: [...]`")
        if not needs_values and model.values:
            raise ConfigError(f"{where}: fields.{name}: `values` only applies to enum and multi_enum, not {model.type}")
        specs.append(FieldSpec(name, model.type, model.description, tuple(model.values or ()), model.nullable))
    return tuple(specs)


def check_expected(case: Case, fields: tuple[FieldSpec, ...]) -> None:
    """Raise when a case's expected answer does not fit the field schema."""
    where = case.source or f"{case.dataset}/{case.id}"
    expected = case.expected
    if not isinstance(expected, dict):
        raise ConfigError(
            f"{where}: expected answer must be a JSON object with one key per field, got {type(expected).__name__}"
        )
    if expected.keys() != names_of(fields):  # the usual case (every field, nothing else) skips this
        names = [f.name for f in fields]
        missing = [n for n in names if n not in expected]
        if missing:
            raise ConfigError(
                f"{where}: {missing[0]}: missing. Every field appears in the expected answer; "
                "use null when the text does not settle it."
            )
        extra = [k for k in expected if k not in names]
        raise ConfigError(
            f"{where}: {extra[0]}: not a field of the schema {names}. Remove it or add the field to evalcore.yaml."
        )
    if all_fit(fields, expected):  # the usual case: every value plainly fits (check_value words the rest)
        return
    for spec in fields:
        problem = check_value(spec, expected[spec.name])
        if problem:
            raise ConfigError(f"{where}: {spec.name}: {problem}. {_expected_fix(spec)}")


def _expected_fix(spec: FieldSpec) -> str:
    if spec.type in ("enum", "multi_enum"):
        return f"Use one of the values, or add it to fields.{spec.name}.values in evalcore.yaml."
    null = " or null" if spec.nullable else ""
    article = "an" if spec.type[0] in "aeiou" else "a"
    return f"Write {article} {spec.type}{null} here, or change fields.{spec.name}.type in evalcore.yaml."


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _hash_tree(folder: Path) -> str:
    top = str(folder)
    files = sorted(os.path.join(d[len(top) + 1 :], f) for d, _, fs in os.walk(top) for f in fs)
    digest = hashlib.sha256()
    for name in files:
        digest.update(name.encode() + b"\0")
        with open(os.path.join(folder, name), "rb") as handle:
            digest.update(handle.read())
    return "sha256:" + digest.hexdigest()
