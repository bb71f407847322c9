"""Records as run file entries, made from the models: the keys, their order and the number types are the model's.

:func:`entry_maker` turns a model of :mod:`evalcore.runfile.models` into a function from a record with the same
attribute names (:class:`~evalcore.core.records.Result` for :class:`~evalcore.runfile.models.ResultEntry`, …)
to the entry's JSON object, so the writer writes what the reader reads without a second list of fields:

- the keys come in the model's field order (the spec's order, which makes the canonical bytes);
- a number the spec types as a float is written as one (an int would read back as a float and break
  byte-identity);
- a nested closed model is made the same way; a nested open model (the run's ``provenance``) is a dict in
  the record, written with the model's keys first, in order, then the rest as they come.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from functools import cache
from operator import attrgetter
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

Convert = Callable[[Any], Any]


@cache
def entry_maker(model: type[BaseModel]) -> Callable[[Any], dict[str, Any]]:
    """The function from a record to its entry of ``model`` (made once per model)."""
    names = tuple(model.model_fields)
    values = attrgetter(*names)
    converts = tuple(
        (name, convert)
        for name, info in model.model_fields.items()
        if (convert := _convert(info.annotation)) is not None
    )

    def make(record: Any) -> dict[str, Any]:
        entry = dict(zip(names, values(record), strict=True))
        for name, convert in converts:
            entry[name] = convert(entry[name])
        return entry

    return make


def _convert(annotation: Any) -> Convert | None:
    """How a value of ``annotation`` is written, or None: as it is."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _convert(get_args(annotation)[0])
    if annotation is float:
        return _float
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _ordered(annotation) if annotation.model_config.get("extra") == "allow" else entry_maker(annotation)
    if origin in (Union, types.UnionType):
        converts = [c for arg in get_args(annotation) if arg is not type(None) and (c := _convert(arg)) is not None]
        if not converts:
            return None
        if len(converts) > 1:
            raise TypeError(f"{annotation!r}: a union of several converted types has no entry maker")
        convert = converts[0]
        return convert if convert is _float else lambda value: None if value is None else convert(value)
    if origin in (dict, list):
        item = _convert(get_args(annotation)[-1])
        if item is None:
            return None
        if origin is dict:
            return lambda value: {k: item(v) for k, v in value.items()}
        return lambda value: [item(v) for v in value]
    return None


def _float(value: Any) -> Any:
    return float(value) if type(value) is int else value


def _ordered(model: type[BaseModel]) -> Convert:
    """An open model's dict with the model's keys first, in its order (each written as its type says), then
    the rest: the order the reader gives back."""
    converts = {name: _convert(info.annotation) for name, info in model.model_fields.items()}

    def order(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        head = {}
        for key, convert in converts.items():
            if key in value:
                head[key] = value[key] if convert is None else convert(value[key])
        return {**head, **{k: v for k, v in value.items() if k not in head}}

    return order
