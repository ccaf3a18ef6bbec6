"""JSON to dataclasses and back, checked against the dataclasses' own type hints: the types
are the schema, with no second list of fields to keep in step. A wrong value is a
:class:`ShapeError` naming where it sits (``checks[0].status is a number``); unknown keys are
left out (a newer version's file still reads)."""

from __future__ import annotations

import dataclasses
import enum
import functools
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


@functools.cache
def _fields(cls: type) -> tuple[tuple[str, Any, bool], ...]:
    """The saved fields of ``cls``: name, resolved type, whether the file must hold it."""
    hints = get_type_hints(cls)
    return tuple((f.name, hints[f.name], f.default is dataclasses.MISSING
                  and f.default_factory is dataclasses.MISSING)
                 for f in dataclasses.fields(cls) if f.init and f.metadata.get("saved", True))


class _Wrong(Exception):
    """A value of the wrong shape, on its way up to :func:`decode`: where it sits is added
    level by level."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.path: list[str] = []  # innermost first


def decode(cls: type[T], data: object, where: str = "", **given: Any) -> T:
    """An instance of the dataclass ``cls`` from a JSON object; ``given``: the fields that
    are not in the file (see :data:`NOT_SAVED`)."""
    try:
        return typing.cast(T, _object(cls, data, given))
    except _Wrong as wrong:
        path = "".join(reversed(wrong.path)).removeprefix(".")
        path = where + path if path else where[:-1]
        if not path and wrong.what.startswith("is "):
            raise ShapeError(f"it holds {wrong.what[3:]}, not an object") from None
        raise ShapeError(f"{path or 'it'} {wrong.what}") from None


def _object(cls: type, data: object, given: dict[str, Any]) -> Any:
    if not isinstance(data, dict):
        raise _Wrong(f"is {kind(data)}")
    values = dict(given)
    for name, hint, required in _fields(cls):
        if name in data:
            values[name] = _at("." + name, hint, data[name])
        elif required:
            raise _Wrong(f"has no {name}")
    return cls(**values)


def _at(step: str, hint: Any, value: object) -> Any:
    """:func:`_read`, naming ``step`` in the path of a wrong value."""
    try:
        return _read(hint, value)
    except _Wrong as wrong:
        wrong.path.append(step)
        raise


def _read(hint: Any, value: object) -> Any:
    """``value`` as the type ``hint`` says, or :class:`_Wrong`."""
    origin = get_origin(hint)
    if hint is Any or hint is object:
        return value  # a JSON value its owner reads (a plugin's state, a frozen copy)
    if origin is Union or origin is types.UnionType:
        arms = [arm for arm in get_args(hint) if arm is not type(None)]
        if value is None and len(arms) < len(get_args(hint)):
            return None
        for arm in arms:
            try:
                return _read(arm, value)
            except _Wrong:
                if len(arms) == 1:
                    raise
        raise _Wrong(f"is {kind(value)}")
    if origin in (list, tuple):  # a tuple's JSON form is a list (``tuple[X, ...]``)
        if not isinstance(value, list):
            raise _Wrong(f"is {kind(value)}")
        items = [_at(f"[{index}]", get_args(hint)[0], item) for index, item in enumerate(value)]
        return items if origin is list else tuple(items)
    if origin is dict:
        if not isinstance(value, dict):
            raise _Wrong(f"is {kind(value)}")
        return {str(key): _at(f".{key}", get_args(hint)[1], item) for key, item in value.items()}
    if origin is Literal:
        if value not in get_args(hint):
            raise _Wrong(f"is {value!r}, not one of {list(get_args(hint))}")
        return value
    if dataclasses.is_dataclass(hint):
        return _object(typing.cast("type[Any]", hint), value, {})
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:
            raise _Wrong(f"is {value!r}, not one of {[m.value for m in hint]}") from None
    if hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool) \
                and not math.isnan(value):
            return float(value)
    elif hint is Path:
        if isinstance(value, str):
            return Path(value)
    elif hint in (bool, int, str):
        if isinstance(value, hint) and (hint is bool or not isinstance(value, bool)):
            return value
    else:
        raise TypeError(f"{hint!r} has no JSON form")  # a type the schema cannot hold
    raise _Wrong(f"is {kind(value)}")


def encode(value: object) -> Any:
    """The JSON form of a record: dataclasses as objects (their saved fields, in order)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: encode(getattr(value, name)) for name, _, _ in _fields(type(value))}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        return {str(key): encode(item) for key, item in value.items()}
    return value
