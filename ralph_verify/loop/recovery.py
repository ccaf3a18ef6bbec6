"""A recovery point outside the working tree, and ``ralph-verify recover``.

An agent can delete ``.git``, check out another branch, ``git reset --hard`` or
``git clean -fdx``: the checkpoints inside the repository go with it. So before
the agent runs, the user's branch tip and their uncommitted work (tracked changes
and untracked, non-ignored files) are written as a git bundle under the user's
cache (``<cache>/recovery/<project>/<session>/``), next to a ``point.json`` that
names them. ``recover`` puts them back and says what it did: it re-creates
``.git`` from the bundle when it is gone, moves the user's branch back to its tip
(keeping any other position it had as a branch), and writes the uncommitted files
back where the tree still holds what the tip had there; a file that changed since
is left alone, and the work is then kept on a branch to merge by hand.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ralph_verify.errors import UsageError
from ralph_verify.project import git
from ralph_verify.project.caches import _project_key, user_cache_dir
from ralph_verify.records.codec import encode
from ralph_verify.records.files import load

WORK_REF = "refs/ralph-verify/recovery/{session}/work"
#: Recovery points kept per project; older ones are removed when a session starts.
KEEP = 10


def project_dir(root: Path) -> Path:
    return user_cache_dir() / "recovery" / _project_key(root)


@dataclass
class Point:
    """What :func:`create` kept (``point.json``): where, and the commits it names."""

    dir: Path
    branch: str | None
    tip: str | None
    work: str
    dirty: list[str] = field(default_factory=list)
    root: str = ""
    session: str = ""
    created: str = ""


def _git_env(index: Path) -> dict[str, str]:
    return {**os.environ, "GIT_INDEX_FILE": str(index), "GIT_TERMINAL_PROMPT": "0",
            "LC_ALL": "C", "GIT_LITERAL_PATHSPECS": "1"}


def _run(root: Path, env: dict[str, str], *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, check=False)
    if proc.returncode != 0:
        raise git.GitError(f"git {' '.join(args)} failed in {root}: "
                           f"{(proc.stderr or proc.stdout).strip()}")
    return proc.stdout


def snapshot_commit(root: Path, parent: str | None, paths: list[str], message: str) -> str:
    """A commit of ``parent``'s tree plus ``paths`` as they are in the work tree, made
    through a temporary index: neither the user's index nor any branch moves."""
    with tempfile.TemporaryDirectory(prefix="ralph-index-") as tmp:
        env = _git_env(Path(tmp) / "index")
        if parent:
            _run(root, env, "read-tree", parent)
        tracked = set(_run(root, env, "ls-files", "-z", "--", *paths).split("\0")) \
            if paths else set()
        to_add = [p for p in paths if p in tracked or (root / p).exists()
                  or (root / p).is_symlink()]
        if to_add:
            _run(root, env, "add", "-A", "-f", "--", *to_add)
        tree = _run(root, env, "write-tree").strip()
        argv = ["-c", "commit.gpgsign=false", "-c", "user.name=ralph-verify",
                "-c", "user.email=ralph-verify@localhost", "commit-tree", tree, "-m", message]
        if parent:
            argv += ["-p", parent]
        return _run(root, env, *argv).strip()


def create(root: Path, session: str) -> Point:
    """Keep the branch tip and the uncommitted work of ``root`` outside the tree."""
    where = project_dir(root) / session
    where.mkdir(parents=True, exist_ok=True)
    branch, tip = git.current_branch(root), git.head(root)
    dirty = git.dirty_paths(root)
    work = snapshot_commit(root, tip, dirty, f"ralph-verify recovery point of session {session}"
                                             f" (uncommitted work on {branch or 'HEAD'})")
    ref = WORK_REF.format(session=session)
    git.git(root, "update-ref", ref, work)
    refs = [ref] + ([f"refs/heads/{branch}"] if branch and tip else [])
    git.git(root, "bundle", "create", "-q", str(where / "repo.bundle"), *refs)
    point = Point(where, branch, tip, work, dirty, str(root.resolve()), session,
                  time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(time.time())))
    (where / "point.json").write_text(json.dumps(encode(point), indent=2) + "\n",
                                      encoding="utf-8")
    _prune(where.parent)
    return point


def _prune(base: Path) -> None:
    """Keep the newest :data:`KEEP` recovery points of a project, so the cache stays bounded."""
    import shutil

    points = sorted((p.parent for p in base.glob("*/point.json")),
                    key=lambda d: ((d / "point.json").stat().st_mtime_ns, d.name))
    for old in points[:-KEEP]:
        shutil.rmtree(old, ignore_errors=True)


def find(root: Path, session: str | None) -> Point:
    """The recovery point of ``session``, or the newest one of this project."""
    base = project_dir(root)
    if session:
        path = base / session / "point.json"
        if not path.is_file():
            raise UsageError(f"no recovery point for session {session} under {base}")
    else:
        points = sorted(base.glob("*/point.json"),
                        key=lambda p: (p.stat().st_mtime_ns, p.parent.name))
        if not points:
            raise UsageError(f"no recovery point for {root} under {base} (a run keeps one "
                             "when it starts in a git repository)")
        path = points[-1]
    point = load(Point, path)
    if point is None:
        raise UsageError(f"the recovery point {path} is gone")
    point.dir = path.parent
    return point


def _blob(root: Path, commit: str | None, path: str) -> tuple[bytes, str] | None:
    """The content and mode of ``path`` in ``commit``, or None when it has none."""
    if commit is None:
        return None
    line = git.git(root, "ls-tree", "-z", commit, "--", path, check=False).strip("\0")
    if not line:
        return None
    mode = line.split(" ", 1)[0]
    proc = subprocess.run(["git", "cat-file", "blob", f"{commit}:{path}"], cwd=root,
                          capture_output=True, check=True, stdin=subprocess.DEVNULL)
    return proc.stdout, mode


def _current(root: Path, path: str) -> bytes | None:
    file = root / path
    if file.is_symlink():
        return os.readlink(file).encode()
    return file.read_bytes() if file.is_file() else None


def _write(root: Path, path: str, blob: tuple[bytes, str] | None) -> None:
    file = root / path
    if blob is None:
        file.unlink(missing_ok=True)
        return
    data, mode = blob
    file.parent.mkdir(parents=True, exist_ok=True)
    if file.is_symlink() or mode == "120000":
        file.unlink(missing_ok=True)
    if mode == "120000":
        file.symlink_to(data.decode())
        return
    file.write_bytes(data)
    if mode == "100755":
        file.chmod(file.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def recover(root: Path, session: str | None) -> list[str]:
    """Restore the recovery point; the lines say what was done."""
    point = find(root, session)
    name, bundle = point.session, point.dir / "repo.bundle"
    branch, tip, work = point.branch, point.tip, point.work
    said: list[str] = []
    if not bundle.is_file():
        raise UsageError(f"the recovery bundle {bundle} is missing")
    if not git.is_repo(root):
        if (root / ".git").exists():
            raise UsageError(f"{root / '.git'} exists but is not a usable repository: move it "
                             "aside, then run 'ralph-verify recover' again")
        git.git(root, "init", "-q")
        said.append(f"re-created {root / '.git'} from {bundle}")
    recovered = f"refs/ralph-verify/recovered/{name}"
    git.git(root, "fetch", "-q", str(bundle), f"+refs/*:{recovered}/*")
    if branch and tip:
        said += _restore_branch(root, branch, tip, name)
    said += _restore_work(root, tip, work, name)
    return said


def _restore_branch(root: Path, branch: str, tip: str, name: str) -> list[str]:
    ref = f"refs/heads/{branch}"
    now = git.git(root, "rev-parse", "--verify", "-q", ref, check=False).strip() or None
    on_it = git.current_branch(root) == branch
    unborn = git.head(root) is None
    if now == tip:
        said = [f"your branch {branch} is at its tip {tip[:10]}"]
    elif now is not None and _is_ancestor(root, tip, now):
        return [f"your branch {branch} is at {now[:10]}, which holds its tip {tip[:10]} "
                "and newer commits: left as it is"]
    else:
        said = []
        if now is not None and not _is_ancestor(root, now, tip):
            keep = f"ralph-recover/{name}/{branch}-was"
            git.git(root, "branch", "-f", keep, now)
            said.append(f"your branch {branch} was at {now[:10]}; that commit is kept as "
                        f"branch {keep}")
        if on_it and not unborn:
            if git.dirty_paths(root):
                raise UsageError(f"your branch {branch} must go back to {tip[:10]}, but the "
                                 "tree has uncommitted changes: commit or stash them, then "
                                 "run 'ralph-verify recover' again")
            git.git(root, "reset", "-q", "--keep", tip)
        else:
            git.git(root, "update-ref", ref, tip)
        said.append(f"moved your branch {branch} back to its tip {tip[:10]}")
    if unborn:  # a re-created .git: HEAD is the user's branch, index as its tip, tree untouched
        git.git(root, "symbolic-ref", "HEAD", ref)
        git.git(root, "reset", "-q")
    elif not on_it and not git.dirty_paths(root):
        git.git(root, "switch", "-q", branch)
        said.append(f"switched to {branch} (the tree was clean)")
    elif not on_it:
        said.append(f"HEAD is not on {branch} and the tree has changes: not switched; "
                    f"'git switch {branch}' when you are ready")
    return said


def _is_ancestor(root: Path, older: str, newer: str) -> bool:
    proc = subprocess.run(["git", "merge-base", "--is-ancestor", older, newer], cwd=root,
                          capture_output=True, check=False, stdin=subprocess.DEVNULL)
    return proc.returncode == 0


def _restore_work(root: Path, tip: str | None, work: str, name: str) -> list[str]:
    base = tip or git.git(root, "hash-object", "-t", "tree", os.devnull).strip()
    out = git.git(root, "diff", "--name-only", "-z", "--no-renames", base, work)
    paths = [p for p in out.split("\0") if p]
    if not paths:
        return ["there was no uncommitted work at the session start"]
    restored, already, kept = [], [], []
    for path in paths:
        before, after = _blob(root, tip, path), _blob(root, work, path)
        current = _current(root, path)
        if current == (after[0] if after else None):
            already.append(path)
        elif current == (before[0] if before else None):
            _write(root, path, after)
            restored.append(path)
        else:
            kept.append(path)
    said = []
    if restored:
        said.append(f"wrote back {len(restored)} uncommitted file(s) of the session start: "
                    + ", ".join(restored[:10]) + (" ..." if len(restored) > 10 else ""))
    if already:
        said.append(f"{len(already)} uncommitted file(s) of the session start were still "
                    "in the tree")
    if kept:
        keep = f"ralph-recover/{name}/uncommitted"
        git.git(root, "branch", "-f", keep, work)
        said.append(f"{len(kept)} file(s) changed since the session start were left as they "
                    f"are ({', '.join(kept[:10])}); the uncommitted work of the start is on "
                    f"branch {keep} ('git diff HEAD {keep}' to compare)")
    return said
