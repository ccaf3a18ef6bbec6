"""A registry of named things plugins declare through a hook: agents, executors, ``init``
targets. One name, one owner: a second declaration of a name is a usage error that says
which kind of thing was declared twice, instead of the later plugin silently winning.

(Check types have a registry of their own, :mod:`ralph_verify.checks.registry`: they also
have aliases and specs to resolve.)
"""

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
