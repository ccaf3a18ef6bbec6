"""The ``ralph_verify`` entry points (third-party plugins), found without importlib.metadata
on most starts.

Importing ``importlib.metadata`` (it pulls in the ``email`` package) and reading every
installed distribution costs some 50 ms of every start. What it found is kept in the user
cache, keyed by the distributions' metadata folders on ``sys.path`` and their modification
times: installing, upgrading or removing a distribution adds, replaces or removes a
``*.dist-info`` folder, and the scan runs again. Any doubt (an unreadable cache, a folder
that cannot be read) scans.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ralph_verify.project.caches import user_cache_dir

_METADATA = (".dist-info", ".egg-info")
#: Keys kept per environment (``python -m`` from different folders has different paths).
_KEPT = 8


@dataclass(frozen=True)
class Dist:
    """The distribution an entry point came from: what ``plugins`` and errors show (pluggy's
    ``DistFacade`` reads ``metadata["name"]``)."""

    name: str
    version: str
    metadata: dict[str, str] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class EntryPoint:
    """``name = module:attr`` of one distribution, loaded like importlib's."""

    name: str
    value: str
    dist: Dist | None

    def load(self) -> Any:
        module, _, attrs = self.value.partition(":")
        loaded: Any = importlib.import_module(module.strip())
        for attr in filter(None, attrs.strip().split(".")):
            loaded = getattr(loaded, attr)
        return loaded


def _key(group: str) -> str | None:
    """What decides which entry points exist: the distributions' metadata folders
    (``*.dist-info``, ``*.egg-info``) in each folder on ``sys.path``, with their times (a
    zip or egg on the path: its own time). None, never cached, when one cannot be read."""
    parts = [group, sys.prefix]
    for entry in sys.path:
        folder = entry or os.getcwd()
        parts.append(folder)
        try:
            if not os.path.isdir(folder):
                parts.append(str(os.stat(folder).st_mtime_ns) if os.path.exists(folder) else "-")
                continue
            with os.scandir(folder) as entries:
                parts += sorted(f"{item.name}:{item.stat().st_mtime_ns}" for item in entries
                                if item.name.endswith(_METADATA))
        except OSError:
            return None
    return "\0".join(parts)


def _cache_path() -> Path:
    """One file per Python environment (``sys.prefix``): two environments do not take turns."""
    import hashlib


    prefix = hashlib.sha1(sys.prefix.encode("utf-8", "surrogateescape"),
                          usedforsecurity=False).hexdigest()[:16]
    return user_cache_dir() / "entry-points" / f"{prefix}.json"


def _scan(group: str) -> list[EntryPoint]:
    from importlib.metadata import entry_points

    found = []
    for entry_point in entry_points(group=group):
        dist = getattr(entry_point, "dist", None)
        info = None
        if dist is not None:
            name = str(dist.metadata["Name"] or dist.name)
            info = Dist(name, str(dist.version), {"name": name, "version": str(dist.version)})
        found.append(EntryPoint(entry_point.name, entry_point.value, info))
    return found


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def entry_points(group: str) -> Iterator[EntryPoint]:
    """The entry points of ``group``: from the cache while the distributions are unchanged."""
    key = _key(group)
    path = _cache_path()
    kept = _read(path) if key is not None else {}
    if key is not None and key in kept:
        with contextlib.suppress(TypeError, KeyError):
            yield from [EntryPoint(item["name"], item["value"],
                                   Dist(**item["dist"]) if item["dist"] else None)
                        for item in kept[key]]
            return
    found = _scan(group)
    if key is not None:
        kept.pop(key, None)
        kept[key] = [{"name": e.name, "value": e.value,
                      "dist": ({"name": e.dist.name, "version": e.dist.version,
                                "metadata": e.dist.metadata} if e.dist else None)}
                     for e in found]  # last: the oldest keys are the first dropped
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            temporary.write_text(json.dumps(dict(list(kept.items())[-_KEPT:])),
                                 encoding="utf-8")
            os.replace(temporary, path)
    yield from found
