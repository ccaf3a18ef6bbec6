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
from collections.abc import Callable
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


class _Wrong(Exception):
    """A value of the wrong shape, on its way up to :func:`decode`: where it sits is added
    level by level (built only when a document is wrong)."""

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
    for spec, read in _readers(cls):
        if spec.name in data:
            try:
                values[spec.name] = read(data[spec.name])
            except _Wrong as wrong:
                wrong.path.append("." + spec.name)
                raise
        elif spec.required:
            raise _Wrong(f"has no {spec.name}")
    return cls(**values)


_READERS: dict[type, tuple[tuple[_Field, Callable[[object], Any]], ...]] = {}


def _readers(cls: type) -> tuple[tuple[_Field, Callable[[object], Any]], ...]:
    found = _READERS.get(cls)
    if found is None:
        found = _READERS[cls] = tuple((spec, _reader(spec.hint)) for spec in _fields(cls))
    return found


#: A JSON value's reader, by the type it must be: worked out once per type.
_BY_HINT: dict[Any, Callable[[object], Any]] = {}


def _reader(hint: Any) -> Callable[[object], Any]:
    try:
        found = _BY_HINT.get(hint)
    except TypeError:  # an unhashable hint
        return _make(hint)
    if found is None:
        found = _BY_HINT[hint] = _make(hint)
    return found


def _same(value: object) -> object:
    return value  # a JSON value its owner reads (a plugin's state, a frozen copy)


def _make(hint: Any) -> Callable[[object], Any]:
    origin = get_origin(hint)
    if hint is Any or hint is object:
        return _same
    if origin is Union or origin is types.UnionType:
        return _union(hint)
    if origin is list:
        return _list(get_args(hint)[0])
    if origin is dict:
        return _dict(get_args(hint)[1])
    if origin is Literal:
        allowed = get_args(hint)

        def literal(value: object) -> object:
            if value not in allowed:
                raise _Wrong(f"is {value!r}, not one of {list(allowed)}")
            return value
        return literal
    if dataclasses.is_dataclass(hint):
        cls = typing.cast("type[Any]", hint)
        return lambda value: _object(cls, value, {})
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        enum_type = hint

        def member(value: object) -> object:
            try:
                return enum_type(value)
            except ValueError:
                raise _Wrong(f"is {value!r}, not one of "
                             f"{[m.value for m in enum_type]}") from None
        return member
    return _scalar(hint)


def _union(hint: Any) -> Callable[[object], Any]:
    arms = [_reader(arm) for arm in get_args(hint) if arm is not type(None)]
    optional = len(arms) < len(get_args(hint))
    if len(arms) == 1:
        (only,) = arms

        def one(value: object) -> Any:
            return None if value is None and optional else only(value)
        return one

    def either(value: object) -> Any:
        if value is None and optional:
            return None
        for arm in arms:
            try:
                return arm(value)
            except _Wrong:
                continue
        raise _Wrong(f"is {kind(value)}")
    return either


def _list(item_hint: Any) -> Callable[[object], Any]:
    item = _reader(item_hint)
    plain = _PLAIN.get(item_hint)

    def read(value: object) -> list[Any]:
        if not isinstance(value, list):
            raise _Wrong(f"is {kind(value)}")
        if item is _same or (plain is not None and all(type(v) is plain for v in value)):
            return list(value)
        out = []
        for index, one in enumerate(value):
            try:
                out.append(item(one))
            except _Wrong as wrong:
                wrong.path.append(f"[{index}]")
                raise
        return out
    return read


def _dict(item_hint: Any) -> Callable[[object], Any]:
    item = _reader(item_hint)
    plain = _PLAIN.get(item_hint)

    def read(value: object) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise _Wrong(f"is {kind(value)}")
        if item is _same or (plain is not None and all(type(v) is plain
                                                       for v in value.values())):
            return {str(k): v for k, v in value.items()}
        out = {}
        for key, one in value.items():
            try:
                out[str(key)] = item(one)
            except _Wrong as wrong:
                wrong.path.append(f".{key}")
                raise
        return out
    return read


#: Types whose JSON values are taken as they are when every item is exactly of it.
_PLAIN: dict[Any, type] = {str: str, int: int, bool: bool}


def _scalar(hint: Any) -> Callable[[object], Any]:
    if hint is bool:
        def read_bool(value: object) -> object:
            if isinstance(value, bool):
                return value
            raise _Wrong(f"is {kind(value)}")
        return read_bool
    if hint is int:
        def read_int(value: object) -> object:
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            raise _Wrong(f"is {kind(value)}")
        return read_int
    if hint is float:
        def read_float(value: object) -> object:
            if isinstance(value, (int, float)) and not isinstance(value, bool) \
                    and not math.isnan(value):
                return float(value)
            raise _Wrong(f"is {kind(value)}")
        return read_float
    if hint is str:
        def read_str(value: object) -> object:
            if isinstance(value, str):
                return value
            raise _Wrong(f"is {kind(value)}")
        return read_str
    if hint is Path:
        def read_path(value: object) -> object:
            if isinstance(value, str):
                return Path(value)
            raise _Wrong(f"is {kind(value)}")
        return read_path

    def unknown(value: object) -> object:
        raise TypeError(f"{hint!r} has no JSON form")  # a type the schema cannot hold
    return unknown


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
