"""The few git operations the loop needs, through the ``git`` command. Checkpoint commits
are the loop's own bookkeeping: ``--no-verify``, unsigned, as ``ralph-verify`` when git has
no identity."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from ralph_verify.errors import UsageError

#: Paths that are never the agent's work nor the user's: caches tools write while verifying.
NOISE_PARTS = frozenset({".ralph", ".git", "__pycache__", ".pytest_cache", ".mypy_cache",
                         ".ruff_cache", ".venv", "venv", "node_modules", ".tox", ".nox",
                         ".hypothesis", "site-packages", ".eggs"})


#: What git sets for its hooks (or a shell exports) to point git at a repository, index or
#: object store: ralph-verify started from another repository's hook would otherwise read,
#: commit to and back up *that* repository. Every git command of ralph-verify, of its agent and
#: of the project's tests names the project by its folder instead (pre-commit drops the same).
REPOSITORY_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
                        "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
                        "GIT_PREFIX", "GIT_QUARANTINE_PATH")


def git_env(**extra: str) -> dict[str, str]:
    """The environment of our git commands: this process's, without
    :data:`REPOSITORY_VARIABLES`, never prompting, in the C locale, literal pathspecs, and
    blind to ``git replace`` (a commit of the session's start reads as it was written)."""
    env = {name: value for name, value in os.environ.items()
           if name not in REPOSITORY_VARIABLES}
    return {**env, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_LITERAL_PATHSPECS": "1",
            "GIT_NO_REPLACE_OBJECTS": "1", **extra}


def is_noise(path: str) -> bool:
    parts = path.replace("\\", "/").split("/")
    name = parts[-1]
    return bool(NOISE_PARTS.intersection(parts)) or name == ".coverage" \
        or name.startswith(".coverage.") or name.endswith((".pyc", ".pyo"))


class GitError(UsageError):
    """A git command failed: ``said`` is git's own words, ``returncode`` its exit status."""

    def __init__(self, root: Path | str, args: Sequence[str], returncode: int, said: str) -> None:
        super().__init__(f"git {' '.join(args)} failed in {root}: {said}")
        self.returncode, self.said = returncode, said


def git(root: Path, *args: str, check: bool = True, identity: bool = False,
        magic: bool = False) -> str:
    """Run ``git ARGS`` in ``root`` and return stdout; raise :class:`GitError` on failure.
    ``magic``: the pathspecs are git's patterns (``:(exclude,glob)``), not literal paths."""
    argv = ["git"]
    if identity:
        argv += ["-c", "commit.gpgsign=false"]
        if not _has_identity(root):
            argv += ["-c", "user.name=ralph-verify", "-c", "user.email=ralph-verify@localhost"]
    proc = subprocess.run([*argv, *args], cwd=root, capture_output=True, text=True,
                          env=git_env(GIT_LITERAL_PATHSPECS="0" if magic else "1"),
                          stdin=subprocess.DEVNULL, check=False)
    if check and proc.returncode != 0:
        raise GitError(root, args, proc.returncode, (proc.stderr or proc.stdout).strip())
    return proc.stdout


def _has_identity(root: Path) -> bool:
    return bool(git(root, "config", "user.email", check=False).strip())


def is_repo(root: Path) -> bool:
    """Whether ``root`` is the top of a git work tree (and git is installed)."""
    import shutil

    if shutil.which("git") is None:
        return False
    top = git(root, "rev-parse", "--show-toplevel", check=False).strip()
    return bool(top) and Path(top).resolve() == root.resolve()


def head(root: Path) -> str | None:
    out = git(root, "rev-parse", "--verify", "-q", "HEAD", check=False).strip()
    return out or None


def branch_tip(root: Path, branch: str) -> str:
    """The commit ``branch`` points at; "" when there is no such branch."""
    return git(root, "rev-parse", "--verify", "-q", f"refs/heads/{branch}", check=False).strip()


def current_branch(root: Path) -> str | None:
    out = git(root, "symbolic-ref", "--short", "-q", "HEAD", check=False).strip()
    return out or None


def dirty_paths(root: Path) -> list[str]:
    """Uncommitted changes (modified, staged, untracked), without tool caches and ``.ralph/``."""
    out = git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all")
    paths = []
    entries = iter(out.split("\0"))
    for entry in entries:
        if len(entry) < 4:
            continue
        if entry[0] in "RC":
            next(entries, None)  # the rename's source follows
        if not is_noise(entry[3:]):
            paths.append(entry[3:])
    return sorted(paths)


def exclude_ralph_dir(root: Path) -> None:
    """Keep ``.ralph/`` out of ``git status`` and commits, without touching .gitignore."""
    exclude(root, ".ralph/", "ralph-verify session files")


def exclude(root: Path, pattern: str, why: str) -> None:
    """Add ``pattern`` to the repository's own ``info/exclude`` (never shared, never part of
    the project, unlike .gitignore) unless it is there already. ``--git-path``, not
    ``--git-dir``: a linked worktree reads the main repository's ``info/exclude``."""
    found = Path(git(root, "rev-parse", "--git-path", "info/exclude").strip())
    path = found if found.is_absolute() else root / found
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    if pattern not in text.split():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + ("" if text.endswith("\n") or not text else "\n")
                        + f"# {why}\n{pattern}\n", encoding="utf-8")


def switch_new_branch(root: Path, branch: str) -> None:
    if branch_tip(root, branch):
        raise UsageError(f"branch {branch!r} already exists; choose another --branch-prefix")
    git(root, "switch", "-q", "-c", branch)


def switch(root: Path, branch: str) -> None:
    git(root, "switch", "-q", branch)


def commit_paths(root: Path, paths: Sequence[str], message: str) -> str | None:
    """Commit exactly ``paths`` (added, changed or deleted); the new HEAD, or None if nothing."""
    paths = [p for p in paths if not is_noise(p)]
    if not paths:
        return None
    # A path gone from the tree and the index needs no staging (and would fail `git add`).
    tracked = set(git(root, "ls-files", "-z", "--", *paths).split("\0"))
    to_add = [p for p in paths if p in tracked or (root / p).exists()]
    if to_add:
        git(root, "add", "-A", "--", *to_add)
    if not git(root, "diff", "--cached", "--name-only", "--", *paths).strip():
        return None
    git(root, "commit", "-q", "--no-verify", "-m", message, "--", *paths, identity=True)
    return head(root)


def commit_all(root: Path, message: str) -> str | None:
    """Commit every uncommitted change but tool caches; the new HEAD, or None if nothing."""
    return commit_paths(root, dirty_paths(root), message)


def restore_tree(root: Path, commit: str) -> None:
    """Make the work tree and index those of ``commit`` (files it lacks are removed)."""
    git(root, "restore", f"--source={commit}", "--staged", "--worktree", "--", ".")


def tracked_and_untracked(root: Path) -> list[str]:
    """Files git would consider: tracked plus untracked but not ignored."""
    out = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    return sorted({p for p in out.split("\0") if p and not is_noise(p)})
