"""Typed per-run state plugins share through ``config.stash``, as pytest's ``Stash``: a key is
an object declared beside what it holds, so mypy checks every reader and writer."""

from __future__ import annotations

from typing import Any, Generic, TextIO, TypeVar, cast, overload

__all__ = ["PROMISES_KEY", "REPORT_STREAM_KEY", "Stash", "StashKey"]

T = TypeVar("T")
D = TypeVar("D")


class StashKey(Generic[T]):
    """A key of :class:`Stash`; ``StashKey[int]()`` stores and returns an ``int``."""

    __slots__ = ("name",)

    def __init__(self, name: str = "") -> None:
        #: Only for ``repr``: keys compare by identity.
        self.name = name

    def __repr__(self) -> str:
        return f"StashKey({self.name!r})"


class Stash:
    """A mapping from :class:`StashKey` to values of the key's type."""

    __slots__ = ("_data",)

    def __init__(self) -> None:
        self._data: dict[StashKey[Any], object] = {}

    def __setitem__(self, key: StashKey[T], value: T) -> None:
        self._data[key] = value

    def __getitem__(self, key: StashKey[T]) -> T:
        return cast("T", self._data[key])

    @overload
    def get(self, key: StashKey[T]) -> T | None: ...
    @overload
    def get(self, key: StashKey[T], default: D) -> T | D: ...
    def get(self, key: StashKey[T], default: object = None) -> object:
        """The value, or ``default`` when nothing is stored under ``key``."""
        return self._data.get(key, default)

    def setdefault(self, key: StashKey[T], default: T) -> T:
        return cast("T", self._data.setdefault(key, default))

    def __delitem__(self, key: StashKey[T]) -> None:
        del self._data[key]

    def __contains__(self, key: StashKey[T]) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)


#: Where the terminal reporter writes, when not stdout (``Loop(stream=...)``).
REPORT_STREAM_KEY: StashKey[TextIO] = StashKey("report_stream")
#: What the agent promised in this iteration's output (read by the ``promise`` check).
PROMISES_KEY: StashKey[list[str]] = StashKey("promises")
