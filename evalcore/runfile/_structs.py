"""The run file's models as :class:`msgspec.Struct` types, made from them: the same rules, decoded at msgspec's speed.

:mod:`evalcore.runfile.models` is the one place where a field, its type and its constraint are written. A big
section (cases, results) is read faster by msgspec straight from the bytes than by pydantic, so
:func:`struct_of` turns a model into a struct type when it is first asked for: each field keeps its type, its
constraints become :class:`msgspec.Meta`, ``extra="forbid"`` forbids unknown keys, ``allow_inf_nan=False``
bounds every number, and the model's field validators and :attr:`~evalcore.runfile.models.Entry.entry_rules`
run in the struct's ``__post_init__``. msgspec stops at the first problem and words it its own way, so a
struct only ever *accepts*: what it refuses is read again by the model, which names every problem.

A model using what this module cannot carry over (a validator nested in a list, an open model) raises
:class:`TypeError` when its struct is made, so a new rule cannot be silently left out of the fast path.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from functools import cache
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import msgspec
from pydantic import AfterValidator, BaseModel, WithJsonSchema
from pydantic.fields import FieldInfo

_MAX_FLOAT = sys.float_info.max
_BOUNDS = ("ge", "le", "gt", "lt", "min_length", "max_length", "pattern")
Check = Callable[[Any], Any]


@cache
def struct_of(model: type[BaseModel]) -> type[msgspec.Struct]:
    """The struct type that holds what ``model`` holds and accepts only what it accepts (made once)."""
    config = model.model_config
    if config.get("extra") != "forbid":
        raise TypeError(f"{model.__name__}: only closed models (extra='forbid') have a struct")
    finite = config.get("allow_inf_nan") is False
    fields: list[tuple[str, Any]] = []
    checks: list[tuple[str, Check]] = []
    for name, info in model.model_fields.items():
        if not info.is_required():
            raise TypeError(f"{model.__name__}.{name}: a field with a default has no struct")
        kind, check = _translate(info.annotation, info.metadata, finite, f"{model.__name__}.{name}")
        fields.append((name, kind))
        if check is not None:
            checks.append((name, check))
    rules = tuple(getattr(model, "entry_rules", ()))
    namespace = {"__post_init__": _post_init(tuple(checks), rules)} if checks or rules else {}
    # gc=False: a struct holds JSON values and is held by no one but its reader, so it is never part of a
    # cycle, and the collector need not walk a section's worth of them.
    return msgspec.defstruct(model.__name__, fields, namespace=namespace, forbid_unknown_fields=True, gc=False)


def _post_init(checks: tuple[tuple[str, Check], ...], rules: tuple[Callable[[Any], Any], ...]) -> Callable:
    def post_init(self: Any) -> None:
        for name, check in checks:
            check(getattr(self, name))
        for rule in rules:
            for _, message in rule(self):
                raise ValueError(message)  # msgspec reports it; the model words every problem

    return post_init


def _translate(annotation: Any, metadata: list[Any], finite: bool, where: str) -> tuple[Any, Check | None]:
    """A field's struct type, and the check its validators make (None: none)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        base, *extra = get_args(annotation)
        return _translate(base, [*metadata, *extra], finite, where)
    bounds, validators = _constraints(metadata, where)
    if annotation is float and finite:
        bounds = {"ge": -_MAX_FLOAT, "le": _MAX_FLOAT, **bounds}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        kind: Any = struct_of(annotation)
    elif origin in (Union, types.UnionType):
        parts = [_translate(arg, [], finite, where) for arg in get_args(annotation)]
        kind = Union[tuple(part for part, _ in parts)]  # noqa: UP007 (a union built at run time)
        validators += _optional_check(parts, where)
    elif origin in (list, dict):
        parts = [_translate(arg, [], finite, where) for arg in get_args(annotation)]
        if any(check is not None for _, check in parts):
            raise TypeError(f"{where}: a validator inside a {origin.__name__} has no struct")
        kind = origin[tuple(part for part, _ in parts)]
    elif annotation in (str, int, float, bool, type(None), Any) or origin is Literal:
        kind = annotation
    else:
        raise TypeError(f"{where}: {annotation!r} has no struct type")
    if bounds:
        kind = Annotated[kind, msgspec.Meta(**bounds)]
    return kind, _chain(validators)


def _constraints(metadata: list[Any], where: str) -> tuple[dict[str, Any], list[Check]]:
    bounds: dict[str, Any] = {}
    validators: list[Check] = []
    for item in metadata:
        if isinstance(item, FieldInfo):
            more, checks = _constraints(item.metadata, where)
            bounds.update(more)
            validators += checks
        elif isinstance(item, AfterValidator):
            validators.append(item.func)  # type: ignore[arg-type]
        elif isinstance(item, WithJsonSchema):
            continue
        else:
            found = {key: getattr(item, key) for key in _BOUNDS if getattr(item, key, None) is not None}
            if not found:
                raise TypeError(f"{where}: {item!r} has no struct constraint")
            bounds.update(found)
    if isinstance(pattern := bounds.get("pattern"), str) and pattern.endswith("$") and not pattern.endswith("\\$"):
        # pydantic's regex ends at "$"; Python's would also match before a final newline.
        bounds["pattern"] = pattern[:-1] + r"\Z"
    return bounds, validators


def _optional_check(parts: list[tuple[Any, Check | None]], where: str) -> list[Check]:
    """A union's check: only ``X | None`` with a validated ``X`` is carried over (the validator skips null)."""
    checks = [check for _, check in parts if check is not None]
    if not checks:
        return []
    if len(parts) != 2 or not any(kind is type(None) for kind, _ in parts):
        raise TypeError(f"{where}: a validator inside a union other than X | None has no struct")
    check = checks[0]
    return [lambda value: value if value is None else check(value)]


def _chain(validators: list[Check]) -> Check | None:
    if not validators:
        return None
    if len(validators) == 1:
        return validators[0]

    def chained(value: Any) -> Any:
        for validator in validators:
            value = validator(value)
        return value

    return chained
