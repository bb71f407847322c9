"""The run file's JSON Schema, made from its models: ``python -m evalcore.runfile.jsonschema --schema``.

``docs/run-file.schema.json`` is this command's output; a test keeps the two the same.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pydantic import BaseModel

from evalcore.runfile import models as runfile_models
from evalcore.runfile.models import RunFileV1


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of run files, schema version 1.

    The cross-field rules (references, uniqueness, one primary metric, status rules) are beyond
    JSON Schema; :func:`evalcore.runfile.read.read_run_file` checks them.
    """
    schema = RunFileV1.model_json_schema()
    # Every field's docstring as its description, as pydantic's use_attribute_docstrings would put it: a
    # field inherits its base class's, a reference drops a description its target has, and keys stay sorted.
    docs = runfile_models.attribute_docstrings()
    models = {m.__name__: m for m in vars(runfile_models).values() if isinstance(m, type) and issubclass(m, BaseModel)}
    defs = schema.get("$defs", {})
    for name, definition in [(RunFileV1.__name__, schema), *defs.items()]:
        texts = {f: t for base in reversed(models[name].__mro__) for f, t in docs.get(base.__name__, {}).items()}
        properties = definition.get("properties", {})
        for field, text in texts.items():
            prop = properties.get(field)
            target = defs.get(str(prop.get("$ref", "")).rpartition("/")[2], {}) if prop else {}
            if prop is not None and "description" not in prop and target.get("description") != text:
                properties[field] = dict(sorted({**prop, "description": text}.items()))
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


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
