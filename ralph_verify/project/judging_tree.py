"""A private tree to judge the project in: today's files, some as they were at a base. Built
beside the project of hard links, fresh files and symlinks: the user's files are never opened
for writing."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ralph_verify.project import git
from ralph_verify.project.caches import user_cache_dir

#: Ignored entries never linked into a judging tree: the caches a tool run writes.
_CACHES = frozenset({".ralph", ".git", "__pycache__", ".pytest_cache", ".mypy_cache",
                     ".ruff_cache", ".hypothesis"})


def _git(root: Path, *args: str) -> bytes:
    # GIT_OPTIONAL_LOCKS=0: a diff must not refresh (write) the user's index.
    proc = subprocess.run(["git", *args], cwd=root, env=git.git_env(GIT_OPTIONAL_LOCKS="0"),
                          capture_output=True, stdin=subprocess.DEVNULL, check=False)
    if proc.returncode != 0:
        raise git.GitError(root, args, proc.returncode,
                           proc.stderr.decode(errors="replace").strip())
    return proc.stdout


def _names(out: bytes) -> list[str]:
    return [name for name in os.fsdecode(out).split("\0") if name]


def changed_since(root: Path, base: str) -> set[str]:
    """Paths whose content differs between *base* and the working tree now (tracked files
    modified, added or deleted), plus every untracked file git does not ignore; never a
    virtual environment's or a tool cache's (:func:`ralph_verify.project.git.is_noise`)."""
    tracked = _names(_git(root, "diff", "--name-only", "-z", "--no-renames", "--relative",
                          base))
    untracked = _names(_git(root, "ls-files", "-z", "--others", "--exclude-standard"))
    return {rel for rel in (*tracked, *untracked) if not git.is_noise(rel)}


def _base_files(root: Path, base: str) -> dict[str, tuple[str, str]]:
    """Each file of *base*: its mode and object id."""
    files: dict[str, tuple[str, str]] = {}
    for line in os.fsdecode(_git(root, "ls-tree", "-r", "-z", base)).split("\0"):
        if line:
            meta, path = line.split("\t", 1)
            mode, _kind, sha = meta.split(" ")
            files[path] = (mode, sha)
    return files


def _place(tree: Path, rel: str) -> Path:
    target = tree / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    return target


def _link(source: Path, target: Path) -> None:
    """*target* as a hard link of *source* (a copy across file systems; symlinks as symlinks)."""
    if source.is_symlink():
        target.symlink_to(os.readlink(source))
        return
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _write_from_base(root: Path, tree: Path, wanted: dict[str, tuple[str, str]]) -> None:
    """Write each wanted blob of the base as a new file (one ``git cat-file`` for all)."""
    if not wanted:
        return
    order = sorted(wanted)
    request = "".join(f"{wanted[path][1]}\n" for path in order).encode()
    proc = subprocess.run(["git", "cat-file", "--batch"], cwd=root, input=request,
                          capture_output=True, check=True, env=git.git_env())
    out, at = proc.stdout, 0
    for path in order:
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split(b" ")[2])
        data = out[header_end + 1:header_end + 1 + size]
        at = header_end + 1 + size + 1
        mode = wanted[path][0]
        try:
            target = _place(tree, path)
            if mode == "120000":
                target.symlink_to(os.fsdecode(data))
            elif mode == "160000":
                continue  # a submodule: its checkout is not in the base's objects
            else:
                target.write_bytes(data)
                if mode == "100755":
                    target.chmod(0o755)
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            continue  # a file of the base where today's tree has a folder, or the reverse


def _ignored(root: Path) -> list[str]:
    """Ignored entries, a wholly ignored folder as one entry ending in ``/``."""
    return _names(_git(root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard",
                       "--directory"))


def _is_cache(rel: str) -> bool:
    return any(part in _CACHES or part == ".coverage" or part.startswith(".coverage.")
               or part.endswith(".pyc") for part in rel.rstrip("/").split("/"))


def scratch(root: Path) -> Path:
    """A new folder on the project's file system when one is at hand, so links are cheap
    (the caller removes it)."""
    device = root.stat().st_dev
    for where in (Path(tempfile.gettempdir()), user_cache_dir() / "judging"):
        try:
            where.mkdir(parents=True, exist_ok=True)
            if where.stat().st_dev == device:
                return Path(tempfile.mkdtemp(prefix="ralph-judging-", dir=where))
        except OSError:
            continue
    return Path(tempfile.mkdtemp(prefix="ralph-judging-"))  # files are copied, not linked


def _noise_top(rel: str) -> str | None:
    """The folder of a virtual environment or a tool's cache *rel* is in (git does not
    ignore them in every project), or None."""
    parts = rel.split("/")
    for index, part in enumerate(parts[:-1]):
        if part in git.NOISE_PARTS:
            return "/".join(parts[:index + 1])
    return None


@contextmanager
def judging_tree(root: Path, base: str, *, keep_now: Callable[[str], bool],
                 at: Path | None = None) -> Iterator[Path]:
    """A private temporary tree of *root*'s working tree as it is now, except that each path that
    differs from the git tree-ish *base* and for which ``keep_now(path)`` is False is as it was
    at *base* (absent when *base* has none); removed on exit. *at*: where to build it, so that
    two trees built one after the other have the same paths (their coverage data combine)."""
    folder = scratch(root) if at is None else at
    tree = folder / root.resolve().name if at is None else at
    try:
        tree.mkdir(parents=True)
        differs = changed_since(root, base)
        now = _names(_git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"))
        linked: set[str] = set()
        for rel in now:
            top = _noise_top(rel)
            if top is not None:
                linked.add(top + "/")
                continue
            if _is_cache(rel) or (rel in differs and not keep_now(rel)):
                continue
            source = root / rel
            if source.is_symlink() or source.is_file():
                _link(source, _place(tree, rel))
            elif source.is_dir():  # a submodule's checkout
                _place(tree, rel).symlink_to(source.resolve(), target_is_directory=True)
        base_files = _base_files(root, base)
        _write_from_base(root, tree, {rel: base_files[rel] for rel in differs if rel in base_files
                                      and not keep_now(rel) and not _is_cache(rel)
                                      and _noise_top(rel) is None})
        for entry in sorted(linked.union(_ignored(root))):
            rel = entry.rstrip("/")
            target = tree / rel
            if _is_cache(entry) or target.exists() or target.is_symlink():
                continue
            _place(tree, rel).symlink_to(root.resolve() / rel,
                                         target_is_directory=entry.endswith("/"))
        yield tree
    finally:
        shutil.rmtree(folder, ignore_errors=True)
