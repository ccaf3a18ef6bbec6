"""The git object store under the sandbox: old objects cannot be destroyed, new ones land in
a side store and are adopted, each checked against its id, after the turn (docs/safety.md)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import zlib
from pathlib import Path

SIDE = "ralph-verify-new"
_HEX = frozenset("0123456789abcdef")


def prepare(objects: Path, view: str) -> Path:
    """The side store of ``objects`` (made empty but for what a killed run left), its
    alternate set to ``view``, where the sandbox shows ``objects`` read-only."""
    side = objects / SIDE
    adopt(objects)  # a run killed mid-turn left objects here: they are the agent's work
    (side / "info").mkdir(parents=True, exist_ok=True)
    (side / "pack").mkdir(exist_ok=True)
    (side / "info" / "alternates").write_text(view + "\n", encoding="utf-8")
    return side


def adopt(objects: Path) -> list[str]:
    """Move the side store's objects into ``objects``; what could not be adopted, said."""
    side = objects / SIDE
    if not side.is_dir():
        return []
    problems: list[str] = []
    for folder in sorted(side.iterdir()):
        if len(folder.name) == 2 and set(folder.name) <= _HEX and folder.is_dir():
            for loose in folder.iterdir():
                problems += _adopt_loose(loose, objects / folder.name / loose.name)
    for pack in sorted((side / "pack").glob("*.pack")):
        problems += _adopt_pack(pack, objects.parent)
    for entry in side.iterdir():
        if entry.name != "info":
            shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() and not \
                entry.is_symlink() else entry.unlink(missing_ok=True)
    return problems


def _adopt_loose(loose: Path, target: Path) -> list[str]:
    name = loose.parent.name + loose.name
    if target.exists() or loose.is_symlink():
        return []
    try:
        data = zlib.decompress(loose.read_bytes())
    except (OSError, zlib.error):
        return [f"object {name}: unreadable, left out"]
    algorithm = "sha1" if len(name) == 40 else "sha256"
    if hashlib.new(algorithm, data).hexdigest() != name:
        return [f"object {name}: its content does not match its id, left out"]
    target.parent.mkdir(exist_ok=True)
    os.replace(loose, target)
    return []


def _adopt_pack(pack: Path, git_dir: Path) -> list[str]:
    with pack.open("rb") as stream, contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(["git", f"--git-dir={git_dir}", "index-pack", "--stdin",
                               "--strict"], stdin=stream, capture_output=True, text=True,
                              timeout=600, check=False)
        if done.returncode == 0:
            return []
        return [f"pack {pack.name}: {done.stderr.strip() or 'git index-pack failed'}"]
    return [f"pack {pack.name}: git index-pack could not run"]
