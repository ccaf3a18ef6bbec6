"""What the agent changed in one iteration: a before/after snapshot of the tree (git's file
list in a repository, else a walk); contents are hashed only when size or mtime changed."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ralph_verify.project import git


@dataclass(frozen=True)
class Entry:
    """One file of a snapshot: its size, modification time and content digest."""

    size: int
    mtime_ns: int
    digest: str


Snapshot = dict[str, Entry]


def digest(path: Path | str) -> str:
    """The SHA-1 of a file's content, read in blocks."""
    sha = hashlib.sha1(usedforsecurity=False)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def project_files(root: Path, *, use_git: bool | None = None) -> list[str]:
    """The project's files, relative, sorted: git's tracked and untracked-but-not-ignored
    ones in a repository (``use_git=None``: when ``root/.git`` exists), else a walk. Caches,
    ``.ralph/`` and virtual environments are never part of it."""
    if use_git is None:
        use_git = (root / ".git").exists()
    if use_git:
        try:
            return git.tracked_and_untracked(root)
        except (git.GitError, OSError, ValueError):
            pass  # not a repository after all, no git, or undecodable names: walk
    return [rel for rel in walk_files(root, git.NOISE_PARTS) if not git.is_noise(rel)]


def is_file(path: str) -> bool:
    """``Path(path).is_file()`` on a string: False when it is missing (or a dangling
    link), the other errors raised as pathlib raises them."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP) \
                or getattr(exc, "winerror", None) in (21, 123, 1921):
            return False
        raise
    except ValueError:
        return False


def walk_files(root: Path, skip: frozenset[str]) -> list[str]:
    """Every file under ``root``, relative, sorted, ignoring git: folders named in ``skip``
    and virtual environments (a ``pyvenv.cfg``) are left out."""
    # Strings, not Paths: a tree of a few hundred files is walked at each verification
    # (an editable install's too), and pathlib's objects cost some 5 ms of it.
    found: list[str] = []
    top = os.fspath(root)
    cut = len(os.path.join(top, ""))
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in skip
                         and not is_file(os.path.join(folder, d, "pyvenv.cfg")))
        base = folder[cut:].replace(os.sep, "/") + "/" if folder != top else ""
        found.extend(base + name for name in files)
    return sorted(found)


def take(root: Path, previous: Snapshot | None = None, *, use_git: bool = False) -> Snapshot:
    """A snapshot of ``root``; contents are re-hashed only where size or mtime moved."""
    paths = project_files(root, use_git=use_git)
    previous = previous or {}
    snap: Snapshot = {}
    for rel in paths:
        path = root / rel
        try:
            stat = path.stat()
        except OSError:
            continue  # listed by git but deleted
        if not path.is_file():
            continue
        old = previous.get(rel)
        if old is not None and old.size == stat.st_size and old.mtime_ns == stat.st_mtime_ns:
            snap[rel] = old
            continue
        try:
            snap[rel] = Entry(stat.st_size, stat.st_mtime_ns, digest(path))
        except OSError:
            continue
    return snap


def changed(before: Snapshot, after: Snapshot) -> list[str]:
    """Paths added, removed or whose content differs."""
    paths = set(before) | set(after)
    return sorted(p for p in paths
                  if before.get(p) is None or after.get(p) is None
                  or before[p].digest != after[p].digest)
