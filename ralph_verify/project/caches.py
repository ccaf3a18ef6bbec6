"""Caches kept outside the project, never stale: Python's ``.pyc`` and mypy's cache judge a
file by its size and whole-second mtime, so an agent's same-size rewrite within a second would
be judged on the old code; these caches drop whatever changed in content."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ralph_verify.project.snapshot import digest, project_files, walk_files

#: Folders no check reads as input: tool caches, ralph-verify's records, git's store, and
#: tox/nox (their environments hold no project file). Virtual environments are left out
#: too: their distributions are part of the key instead.
CACHE_FOLDERS = frozenset({".git", ".ralph", "__pycache__", ".pytest_cache", ".mypy_cache",
                           ".ruff_cache", ".tox", ".nox"})


def user_cache_dir() -> Path:
    """``$RALPH_VERIFY_CACHE_DIR``, else ``$XDG_CACHE_HOME/ralph-verify``, else ``~/.cache/...``."""
    configured = os.environ.get("RALPH_VERIFY_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ralph-verify"


#: A digest kept from the last run is trusted only for a file whose size, times and inode are
#: unchanged and that was last changed this long before that run took its digests: file
#: times tick coarsely (a clock tick of the kernel), so a rewrite just after a digest was
#: taken could keep every one of them. Git's "racily clean" rule, with a margin.
SETTLED_NS = 2_000_000_000


def vouched_digest(path: Path, stat: os.stat_result, before: object, taken_ns: int) -> list[object]:
    """``[size, mtime_ns, ctime_ns, inode, sha1]`` of ``path``: the sha1 from ``before`` (the
    same list from the run that began at ``taken_ns``) when that still vouches for the
    content, else read now. A warm tree is then not read at all before its tools start.
    ``ctime`` cannot be set back: a rewrite that restores size and mtime still moves it."""
    stamp: list[object] = [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]
    if (isinstance(before, list) and len(before) == 5 and before[:4] == stamp
            and max(stat.st_mtime_ns, stat.st_ctime_ns) < taken_ns - SETTLED_NS):
        return before
    return [*stamp, digest(path)]


#: What ralph-verify keeps beside mypy's cache: each source's digest at the last run.
MYPY_MANIFEST = "ralph-verify-sources.json"


def project_key(root: Path) -> str:
    return hashlib.sha1(str(root.resolve()).encode(), usedforsecurity=False).hexdigest()[:16]


def bytecode_prefix(root: Path) -> Path:
    """A ``PYTHONPYCACHEPREFIX`` in which no bytecode of ``root`` can be stale: the project's
    ``__pycache__`` folders are never read nor written, and a ``.pyc`` is kept only while its
    source's content is the one recorded at the last verification (a manifest of hashes)."""
    prefix = user_cache_dir() / "pycache"
    resolved = root.resolve()
    mirror = prefix / resolved.relative_to(resolved.anchor)
    manifest_path = user_cache_dir() / "pycache-sources" / f"{project_key(root)}.json"
    kept, taken_ns = read_manifest(manifest_path)
    started_ns = time.time_ns()
    entries = _digests(root, [rel for rel in project_files(root) if rel.endswith(".py")],
                       kept, taken_ns)
    previous = {rel: entry[-1] for rel, entry in kept.items() if isinstance(entry, list)}
    current = {rel: str(entry[-1]) for rel, entry in entries.items()}
    if mirror.is_dir():
        _drop_unvouched(mirror, resolved, Path(), previous, current)
    mirror.mkdir(parents=True, exist_ok=True)
    _write_manifest(manifest_path, started_ns, entries)
    return prefix


def _digests(root: Path, rels: Iterable[str], previous: dict[str, object],
             taken_ns: int) -> dict[str, list[Any]]:
    """:func:`vouched_digest` of each of ``rels`` that can be read."""
    found: dict[str, list[Any]] = {}
    for rel in rels:
        with contextlib.suppress(OSError):
            path = root / rel
            found[rel] = vouched_digest(path, path.stat(), previous.get(rel), taken_ns)
    return found


def _write_manifest(path: Path, taken_ns: int, files: dict[str, list[object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    partial.write_text(json.dumps({"taken_ns": taken_ns, "files": files}), encoding="utf-8")
    os.replace(partial, path)


def read_manifest(path: Path) -> tuple[dict[str, object], int]:
    """A manifest's files and when its digests were taken; nothing vouched for when it is
    missing, unreadable or of an older form."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}, 0
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict) \
            or not isinstance(data.get("taken_ns"), int):
        return {}, 0
    return data["files"], data["taken_ns"]


def _drop_unvouched(folder: Path, root: Path, rel: Path, previous: dict[str, object],
                    current: dict[str, str]) -> None:
    """Delete under ``folder`` (the mirror of ``root / rel``) every ``.pyc`` whose source's
    content is not both current and the one recorded last time."""
    try:
        children = list(folder.iterdir())
    except OSError:
        return
    for child in children:
        if child.is_dir() and not child.is_symlink():
            if (root / rel / child.name / "pyvenv.cfg").is_file():
                continue  # a virtual environment's own bytecode
            _drop_unvouched(child, root, rel / child.name, previous, current)
            continue
        # calc.cpython-312.pyc, calc.cpython-312.opt-1.pyc, test_x.cpython-312-pytest-8.3.pyc
        source = (rel / f"{child.name.split('.', 1)[0]}.py").as_posix()
        digest = current.get(source)
        if digest is None or previous.get(source) != digest:
            child.unlink(missing_ok=True)


def mypy_cache_is_warm(root: Path) -> bool:
    """Whether :func:`mypy_cache_dir` holds a cache of an earlier run for ``root`` (mypy
    without one checks every module from scratch: often the longest tool of a first run)."""
    return (user_cache_dir() / "mypy" / project_key(root) / MYPY_MANIFEST).is_file()


def mypy_cache_dir(root: Path) -> Path:
    """mypy's ``--cache-dir`` for ``root``, kept warm between runs, dropped first if mypy could
    be fooled: mypy trusts a module whose size and whole-second mtime are unchanged, so when a
    file's content changed without either (or no manifest vouches for the cache) it all goes."""
    folder = user_cache_dir() / "mypy" / project_key(root)
    manifest_path = folder / MYPY_MANIFEST
    previous, taken_ns = read_manifest(manifest_path)
    started_ns = time.time_ns()
    current = _digests(root, [rel for rel in walk_files(root, CACHE_FOLDERS)
                              if rel.endswith((".py", ".pyi"))], previous, taken_ns)
    fooled = not taken_ns and folder.is_dir() and any(folder.iterdir())
    for rel, entry in current.items():
        before = previous.get(rel)
        # mypy's own test: the same size and whole second of the mtime, another content.
        fooled = fooled or (isinstance(before, list) and len(before) == 5
                            and before[0] == entry[0] and before[4] != entry[4]
                            and int(before[1]) // 10**9 == int(entry[1]) // 10**9)
    if fooled:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
    _write_manifest(manifest_path, started_ns, current)
    return folder
