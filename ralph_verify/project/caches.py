"""Caches the checks keep outside the project, and why each one is safe.

Python's ``.pyc`` files and mypy's cache both decide that a source file is
unchanged by its size and its modification time in *whole seconds*. An agent
that rewrites a file within a second of the last verification, keeping its size
(``a - b`` → ``a + b``), would be judged on the old code: the loop could stop on
work that does not pass. So pytest runs with a persistent bytecode prefix of our
own in which, before every run, the bytecode of each source whose *content*
changed (or that is gone, or that we cannot vouch for) is deleted: unchanged
modules stay compiled, changed ones are always compiled again. mypy gets a cache
of its own, warm from one run to the next, that is dropped whenever a file changed
without changing its size or its second.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

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


def _project_key(root: Path) -> str:
    return hashlib.sha1(str(root.resolve()).encode(), usedforsecurity=False).hexdigest()[:16]


def bytecode_prefix(root: Path) -> Path:
    """A ``PYTHONPYCACHEPREFIX`` in which no bytecode of ``root`` can be stale.

    With the prefix set, Python never reads the project's ``__pycache__`` folders
    (where an agent's own runs may have left stale bytecode) and writes none there.
    The prefix persists between verifications; a manifest records each source's
    content hash. A ``.pyc`` (Python's own or pytest's rewritten tests) is kept only
    when its source is a project file whose content is the one recorded at the last
    verification: a changed, removed or unlisted (ignored) source loses its bytecode.
    Virtual environments inside the root keep theirs.
    """
    prefix = user_cache_dir() / "pycache"
    resolved = root.resolve()
    mirror = prefix / resolved.relative_to(resolved.anchor)
    manifest_path = user_cache_dir() / "pycache-sources" / f"{_project_key(root)}.json"
    try:
        previous = json.loads(manifest_path.read_text("utf-8"))
        if not isinstance(previous, dict):
            previous = {}
    except (OSError, ValueError):
        previous = {}
    current: dict[str, str] = {}
    for path in python_sources(root):
        if path.suffix != ".py":
            continue
        try:
            current[path.relative_to(root).as_posix()] = _content_hash(path)
        except OSError:
            continue
    if mirror.is_dir():
        _drop_unvouched(mirror, resolved, Path(), previous, current)
    mirror.mkdir(parents=True, exist_ok=True)
    manifest_path.parent.mkdir(parents=True, exist_ok=True)
    partial = manifest_path.with_name(f"{manifest_path.name}.{os.getpid()}.tmp")
    partial.write_text(json.dumps(current), encoding="utf-8")
    os.replace(partial, manifest_path)
    return prefix


def _content_hash(path: Path) -> str:
    return hashlib.sha1(path.read_bytes(), usedforsecurity=False).hexdigest()


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


def python_sources(root: Path) -> Iterator[Path]:
    """The project's ``.py``/``.pyi`` files (outside virtual environments and caches)."""
    from ralph_verify.project.snapshot import project_files

    for rel in project_files(root):
        if rel.endswith((".py", ".pyi")):
            yield root / rel


def mypy_cache_dir(root: Path) -> Path:
    """mypy's ``--cache-dir`` for ``root``, kept warm between runs, dropped first if mypy
    could be fooled.

    mypy trusts a cached module whose size and whole-second mtime are unchanged, without
    reading it. The manifest records each source's size, second and content hash at the
    last run, for every ``.py``/``.pyi`` under the root (git-ignored ones too: mypy checks
    them). A file whose content changed while size and second did not is exactly the case
    mypy's cache cannot see: then the whole cache goes (one cold run, rare), instead of a
    wrong "no errors". So does a cache whose manifest is missing or unreadable: nothing
    vouches for it.
    """
    from ralph_verify.project.snapshot import digest, walk_files

    folder = user_cache_dir() / "mypy" / _project_key(root)
    manifest_path = folder / "ralph-verify-sources.json"
    try:
        previous: dict[str, list[object]] | None = json.loads(manifest_path.read_text("utf-8"))
        if not isinstance(previous, dict):
            previous = None
    except (OSError, ValueError):
        previous = None
    current: dict[str, list[object]] = {}
    fooled = previous is None and folder.is_dir() and any(folder.iterdir())
    for rel in walk_files(root, CACHE_FOLDERS):
        if not rel.endswith((".py", ".pyi")):
            continue
        path = root / rel
        try:
            stat = path.stat()
            entry: list[object] = [stat.st_size, int(stat.st_mtime), digest(path)]
        except OSError:
            continue
        current[rel] = entry
        before = (previous or {}).get(rel)
        if isinstance(before, list) and before[:2] == entry[:2] and before[2:] != entry[2:]:
            fooled = True
    if fooled:
        shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    partial = manifest_path.with_name(f"{manifest_path.name}.{os.getpid()}.tmp")
    partial.write_text(json.dumps(current), encoding="utf-8")
    os.replace(partial, manifest_path)
    return folder
