"""JSON to dataclasses and back, checked against the dataclasses' own type hints.

The types in :mod:`ralph_verify.records` are the schema of every file under ``.ralph/``:
nothing here names a field, so a field added to a type is read, checked and written
without a second list to keep in step. A value of the wrong type is a :class:`ShapeError`
naming where it sits (``checks[0].status is a number``); keys the type does not know are
left out (a file written by a newer version still reads).
"""

from __future__ import annotations

import dataclasses
import enum
import math
import types
import typing
from pathlib import Path
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

T = TypeVar("T")

#: A field's ``metadata``: the field lives on the object only (a folder, a handle), never
#: in the file.
NOT_SAVED: dict[str, object] = {"saved": False}


class ShapeError(ValueError):
    """A document that is not what its type says; the message names where and what."""


def kind(value: object) -> str:
    """``a number``, ``text``, ``a list``...: what a wrong value is, in a message."""
    if value is None:
        return "null"
    names = {dict: "an object", list: "a list", str: "text", bool: "true/false"}
    return names.get(type(value), "a number")


@dataclasses.dataclass(frozen=True)
class _Field:
    """A saved field: its name, its resolved type, whether the file must hold it."""

    name: str
    hint: Any
    required: bool


_FIELDS: dict[type, tuple[_Field, ...]] = {}


def _fields(cls: type) -> tuple[_Field, ...]:
    """The saved fields of ``cls`` with their resolved types (worked out once per type)."""
    found = _FIELDS.get(cls)
    if found is None:
        hints = get_type_hints(cls)
        found = _FIELDS[cls] = tuple(
            _Field(f.name, hints[f.name], f.default is dataclasses.MISSING
                   and f.default_factory is dataclasses.MISSING)
            for f in dataclasses.fields(cls) if f.init and f.metadata.get("saved", True))
    return found


def decode(cls: type[T], data: object, where: str = "", **given: Any) -> T:
    """An instance of the dataclass ``cls`` from a JSON object; ``given``: the fields that
    are not in the file (see :data:`NOT_SAVED`)."""
    if not isinstance(data, dict):
        raise ShapeError(f"{where[:-1]} is {kind(data)}" if where
                         else f"it holds {kind(data)}, not an object")
    values = dict(given)
    for spec in _fields(cls):
        if spec.name in data:
            values[spec.name] = _value(spec.hint, data[spec.name], where + spec.name)
        elif spec.required:
            raise ShapeError(f"{where[:-1] or 'it'} has no {spec.name}")
    return cls(**values)


def _value(hint: Any, value: object, where: str) -> Any:
    origin = get_origin(hint)
    if hint is Any or hint is object:
        return value  # a JSON value its owner reads (a plugin's state, a frozen copy)
    if origin is Union or origin is types.UnionType:
        arms = [arm for arm in get_args(hint) if arm is not type(None)]
        if value is None and len(arms) < len(get_args(hint)):
            return None
        if len(arms) == 1:
            return _value(arms[0], value, where)
        for arm in arms:
            try:
                return _value(arm, value, where)
            except ShapeError:
                continue
        raise ShapeError(f"{where} is {kind(value)}")
    if origin is list:
        if not isinstance(value, list):
            raise ShapeError(f"{where} is {kind(value)}")
        (item,) = get_args(hint)
        return [_value(item, v, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ShapeError(f"{where} is {kind(value)}")
        _, item = get_args(hint)
        return {str(k): _value(item, v, f"{where}.{k}") for k, v in value.items()}
    if origin is Literal:
        if value not in get_args(hint):
            raise ShapeError(f"{where} is {value!r}, not one of {list(get_args(hint))}")
        return value
    if dataclasses.is_dataclass(hint):
        return decode(typing.cast("type[Any]", hint), value, where + ".")
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:
            raise ShapeError(f"{where} is {value!r}, not one of "
                             f"{[member.value for member in hint]}") from None
    return _scalar(hint, value, where)


def _scalar(hint: Any, value: object, where: str) -> Any:
    if hint is bool and isinstance(value, bool):
        return value
    if hint is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if hint is float and isinstance(value, (int, float)) and not isinstance(value, bool) \
            and not math.isnan(value):
        return float(value)
    if hint is str and isinstance(value, str):
        return value
    if hint is Path and isinstance(value, str):
        return Path(value)
    if hint not in (bool, int, float, str, Path):
        raise TypeError(f"{where}: {hint!r} has no JSON form")  # a type the schema cannot hold
    raise ShapeError(f"{where} is {kind(value)}")


def encode(value: object) -> Any:
    """The JSON form of a record: dataclasses as objects (their saved fields, in order)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {spec.name: encode(getattr(value, spec.name)) for spec in _fields(type(value))}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        return {str(key): encode(item) for key, item in value.items()}
    return value
