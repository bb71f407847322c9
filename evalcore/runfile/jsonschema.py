"""The run file's JSON Schema, made from its models: ``python -m evalcore.runfile.jsonschema --schema``.

``docs/run-file.schema.json`` is this command's output; a test keeps the two the same.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import BaseModel

from evalcore.runfile import models as runfile_models
from evalcore.runfile import pairwise as runfile_pairwise
from evalcore.runfile import ratings as runfile_ratings
from evalcore.runfile.models import ResultEntryV5, RunFileV5

#: The modules whose models make up a run file.
_MODULES = (runfile_models, runfile_pairwise, runfile_ratings)


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of run files, schema versions 1 to 5 (version 2 adds ``pairwise``, version
    3 ``ratings``, version 4 each result's ``trace``, version 5 conversations' transcripts in it).

    The cross-field rules (references, uniqueness, one primary metric, status rules, ``pairwise`` only from
    version 2, ``ratings`` only from version 3, a result's ``trace`` only and always from version 4, a
    transcript's user steps only in version 5, a rating of one reply or of two) are beyond this schema;
    :func:`evalcore.runfile.read.read_run_file` checks them.
    """
    schema = RunFileV5.model_json_schema()
    schema["title"] = "RunFile"
    schema["description"] = (
        "An evalcore run file: the whole record of one run. Schema version 1, 2 when it holds pairwise verdicts,"
        " 3 when it holds people's ratings, 4 when its results hold agents' traces, 5 when a trace is a"
        " conversation's transcript."
    )
    schema["properties"]["schema_version"] = {
        "description": (
            "The schema version (an integer): 1; 2 with pairwise verdicts; 3 with ratings; 4 with traces; 5 with"
            " conversations."
        ),
        "enum": [1, 2, 3, 4, 5],
        "title": "Schema Version",
        "type": "integer",
    }
    result = schema["$defs"][ResultEntryV5.__name__]
    result["required"] = [name for name in result["required"] if name != "trace"]  # only version 4 and 5 have it
    # Every field's docstring as its description, as pydantic's use_attribute_docstrings would put it: a
    # field inherits its base class's, a reference drops a description its target has, and keys stay sorted.
    docs = {name: fields for module in _MODULES for name, fields in attribute_docstrings(module).items()}
    models = {
        m.__name__: m
        for module in _MODULES
        for m in vars(module).values()
        if isinstance(m, type) and issubclass(m, BaseModel)
    }
    defs = schema.get("$defs", {})
    for name, definition in [(RunFileV5.__name__, schema), *defs.items()]:
        texts = {f: t for base in reversed(models[name].__mro__) for f, t in docs.get(base.__name__, {}).items()}
        properties = definition.get("properties", {})
        for field, text in texts.items():
            prop = properties.get(field)
            target = defs.get(str(prop.get("$ref", "")).rpartition("/")[2], {}) if prop else {}
            if prop is not None and "description" not in prop and target.get("description") != text:
                properties[field] = dict(sorted({**prop, "description": text}.items()))
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def attribute_docstrings(module: ModuleType) -> dict[str, dict[str, str]]:
    """Each model's field docstrings in ``module``, class name → field → text, read from its source.

    The string right after an annotated field is its docstring, cleaned as :func:`inspect.cleandoc`
    does: the rule pydantic's ``use_attribute_docstrings`` follows.
    """
    import ast
    import inspect

    docs: dict[str, dict[str, str]] = {}
    for node in ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.ClassDef):
            continue
        fields = docs.setdefault(node.name, {})
        for field, after in zip(node.body, node.body[1:], strict=False):
            if (
                isinstance(field, ast.AnnAssign)
                and isinstance(field.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                fields[field.target.id] = inspect.cleandoc(after.value.value)
    return docs


def main(argv: list[str] | None = None) -> int:
    """``python -m evalcore.runfile.jsonschema --schema``: print the JSON Schema."""
    parser = argparse.ArgumentParser(
        prog="python -m evalcore.runfile.jsonschema", description="Print the JSON Schema of evalcore run files."
    )
    parser.add_argument("--schema", action="store_true", help="print the run file's JSON Schema")
    args = parser.parse_args(argv)
    if not args.schema:
        parser.print_help()
        return 2
    sys.stdout.write(json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
