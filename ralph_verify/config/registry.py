"""A registry of named things plugins declare through a hook (agents, executors, ``init``
targets): a name declared twice is a usage error, never the later plugin silently winning."""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar

from ralph_verify.errors import UsageError


class Named(Protocol):
    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=Named)


class NamedRegistry(Generic[T]):
    """Items by name, listed in name order."""

    #: What an item is, for the error on a name declared twice ("agent", "executor"...).
    kind = "item"

    def __init__(self) -> None:
        self._items: dict[str, T] = {}

    def add(self, item: T) -> None:
        if item.name in self._items:
            raise UsageError(f"{self.kind} {item.name!r} is registered twice")
        self._items[item.name] = item

    def find(self, name: str) -> T | None:
        """The item called ``name``, else ``None``."""
        return self._items.get(name)

    def listed(self) -> list[T]:
        """Every item, in name order."""
        return [self._items[name] for name in sorted(self._items)]
