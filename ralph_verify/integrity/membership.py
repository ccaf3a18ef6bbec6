"""Whether a tool reads a file at all: a suppression in a file it never reads hides nothing.
Decided by the tools' effective settings; when they could not be resolved the file counts
as read, so a doubt never lets a suppression through."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path
from typing import Any

from ralph_verify.integrity import effective
from ralph_verify.integrity.sources import read_text
from ralph_verify.records.integrity import Picture


def _effective(picture: Picture, tool: str) -> dict[str, Any] | None:
    found = picture.tools.effective.get(tool) if picture.tools is not None else None
    return found if found and "error" not in found else None


def _files(picture: Picture) -> list[str]:
    return sorted(picture.facts.files) if picture.facts is not None else []


def measured(root: Path, picture: Picture, path: str) -> bool:
    """Whether coverage measures ``path`` under the picture's effective settings."""
    config = _effective(picture, "coverage")
    if config is None or not path.endswith(".py"):
        return True
    return path in effective.measured(root, config, [path])


def type_checked(root: Path, picture: Picture, path: str) -> bool:
    """Whether mypy reports errors in ``path``: a file of its targets that no per-module
    section silences, or a project module a checked file imports (mypy follows imports and
    reports their errors too)."""
    config = _effective(picture, "mypy")
    if config is None:
        return True
    module = effective.module_name(path)
    if any(fnmatch.fnmatch(module, p) or fnmatch.fnmatch(module, p.removesuffix(".*"))
           for p in config.get("silenced", [])):
        return False  # ignore_errors / follow_imports = skip: its errors are never shown
    files = _files(picture)
    checked = effective.checked_files(root, config, files)
    if path in checked:
        return True
    return _imported(root, module, sorted(checked))


def _imported(root: Path, module: str, checked: list[str]) -> bool:
    """Whether any of ``checked`` may import ``module`` (by its last name: a doubt counts)."""
    leaf = re.compile(rf"\b{re.escape(module.rsplit('.', 1)[-1])}\b")
    for rel in checked:
        text = read_text(root / rel)
        if leaf.search(text) and any(leaf.search(s) for s in _IMPORTS.findall(text)):
            return True
    return False


#: An import statement, with the parenthesised names of ``from x import (...)``.
_IMPORTS = re.compile(r"^[ \t]*(?:from|import)[ \t][^\n(]*(?:\([^)]*\)|[^\n]*)", re.M)
