"""A backup of the user's git state outside the working tree, and ``ralph-verify recover``.

At a session's start and after each checkpoint every ref and stash entry goes to a bare mirror
in the user's cache, noted in ``point.json`` with the branch tip and the uncommitted work, so
whatever the agent deletes, rewinds or rewrites in git can be brought back."""

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
from ralph_verify.loop.keys import WORK_REF
from ralph_verify.project import git
from ralph_verify.project.caches import project_key, user_cache_dir
from ralph_verify.records.codec import encode
from ralph_verify.records.files import load

#: Recovery points kept per project; older ones are removed when a session starts.
KEEP = 10
MIRROR = "refs.git"
#: Where :func:`restore` keeps a backed-up value it did not put back (the ref was rewritten).
RECOVERED = "refs/ralph-verify/recovered/{session}/"
#: The mirror keeps what it receives: no automatic gc, no pruning, and it serves any object.
_MIRROR_CONFIG = (("gc.auto", "0"), ("gc.pruneExpire", "never"), ("receive.autogc", "false"),
                  ("core.logAllRefUpdates", "false"), ("uploadpack.allowAnySHA1InWant", "true"))


def project_dir(root: Path) -> Path:
    return user_cache_dir() / "recovery" / project_key(root)


@dataclass
class StashEntry:
    """One entry of ``refs/stash``'s reflog: the stash commit and its message."""

    sha: str
    message: str


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
    #: Every ref the backups saw, at the furthest value seen.
    refs: dict[str, str] = field(default_factory=dict)
    #: Every stash entry the backups saw, oldest first.
    stash: list[StashEntry] = field(default_factory=list)


def _git(root: Path, *args: str, stdin: str | None = None,
         index: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """``git ARGS`` with ``stdin`` and a private ``index`` (``GIT_INDEX_FILE``), as bytes."""
    env = git.git_env() if index is None else git.git_env(GIT_INDEX_FILE=str(index))
    return subprocess.run(["git", *args], cwd=root, env=env, capture_output=True,
                          input=None if stdin is None else stdin.encode(),
                          stdin=None if stdin is not None else subprocess.DEVNULL, check=False)


def _run(root: Path, *args: str, stdin: str | None = None, check: bool = True,
         index: Path | None = None) -> str:
    """``git.git`` with ``stdin`` and a private ``index``."""
    proc = _git(root, *args, stdin=stdin, index=index)
    out, err = proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")
    if check and proc.returncode != 0:
        raise git.GitError(root, args, proc.returncode, (err or out).strip())
    return out


def snapshot_commit(root: Path, parent: str | None, paths: list[str], message: str) -> str:
    """A commit of ``parent``'s tree plus ``paths`` as they are in the work tree, made
    through a temporary index: neither the user's index nor any branch moves."""
    with tempfile.TemporaryDirectory(prefix="ralph-index-") as tmp:
        index = Path(tmp) / "index"
        if parent:
            _run(root, "read-tree", parent, index=index)
        tracked = set(_run(root, "ls-files", "-z", "--", *paths, index=index).split("\0")) \
            if paths else set()
        to_add = [p for p in paths if p in tracked or (root / p).exists()
                  or (root / p).is_symlink()]
        if to_add:
            _run(root, "add", "-A", "-f", "--", *to_add, index=index)
        tree = _run(root, "write-tree", index=index).strip()
        argv = ["-c", "commit.gpgsign=false", "-c", "user.name=ralph-verify",
                "-c", "user.email=ralph-verify@localhost", "commit-tree", tree, "-m", message]
        if parent:
            argv += ["-p", parent]
        return _run(root, *argv, index=index).strip()


def create(root: Path, session: str) -> Point:
    """Keep the branch tip, the uncommitted work, every ref and the stash of ``root``
    outside the tree."""
    where = project_dir(root) / session
    where.mkdir(parents=True, exist_ok=True)
    branch, tip = git.current_branch(root), git.head(root)
    dirty = git.dirty_paths(root)
    work = snapshot_commit(root, tip, dirty, f"ralph-verify recovery point of session {session}"
                                             f" (uncommitted work on {branch or 'HEAD'})")
    git.git(root, "update-ref", WORK_REF.format(session=session), work)
    point = Point(where, branch, tip, work, dirty, str(root.resolve()), session,
                  time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(time.time())))
    backup(root, point, work)
    _prune(where.parent)
    return point


def backup(root: Path, point: Point, *extra: str) -> None:
    """Push every ref and stash entry of ``root`` (and the commits ``extra``) to the
    project's mirror, only the objects it lacks, and fold them into ``point``."""
    refs, stash = _refs(root), _stash(root)
    for name, sha in refs.items():
        old = point.refs.get(name)
        if old != sha and (old is None or is_ancestor(root, old, sha)):
            point.refs[name] = sha
    known = {entry.sha for entry in point.stash}
    point.stash += [entry for entry in reversed(stash) if entry.sha not in known]
    specs = ["+refs/*:refs/*", "^refs/ralph-verify/*",
             *(f"+{sha}:refs/kept/{sha}" for sha in [*extra, *(e.sha for e in stash)])]
    _run(root, "-c", "push.gpgSign=false", "push", "-q", "--no-verify",
         "--no-recurse-submodules", str(_mirror(root, point.dir.parent)), *specs)
    (point.dir / "point.json").write_text(json.dumps(encode(point), indent=2) + "\n",
                                          encoding="utf-8")


def backup_at(root: Path, where: Path) -> None:
    """:func:`backup` into the recovery point kept in ``where`` (a checkpoint)."""
    point = _load(where / "point.json")
    if point is not None and git.is_repo(root):
        backup(root, point)


def restore_at(root: Path, where: Path, head: str | None) -> list[str]:
    """:func:`restore` of the recovery point kept in ``where`` (the session's end)."""
    point = _load(where / "point.json")
    return [] if point is None else restore(root, point, head or point.branch)


def _mirror(root: Path, base: Path) -> Path:
    """The project's bare mirror, made on first use by copying the repository's files (no
    hard links: a write through the project's link would reach the copy)."""
    mirror = base / MIRROR
    if not (mirror / "HEAD").is_file():
        _run(base, "clone", "-q", "--mirror", "--no-hardlinks", str(root), str(mirror))
        for key, value in _MIRROR_CONFIG:
            _run(base, "--git-dir", str(mirror), "config", key, value)
    return mirror


def _refs(root: Path) -> dict[str, str]:
    """Every ref of ``root`` but symbolic ones, the stash (:func:`_stash`) and our own."""
    out = _run(root, "for-each-ref", "--format=%(objectname)%00%(refname)%00%(symref)")
    refs = {}
    for line in out.splitlines():
        sha, name, symref = line.split("\0")
        if not symref and name != "refs/stash" and not name.startswith("refs/ralph-verify/"):
            refs[name] = sha
    return refs


def _stash(root: Path) -> list[StashEntry]:
    """The stash entries of ``root``, newest first."""
    out = _run(root, "log", "-g", "--format=%H%x00%gs", "refs/stash", "--", check=False)
    return [StashEntry(*line.split("\0", 1)) for line in out.splitlines() if "\0" in line]


def _prune(base: Path) -> None:
    """Keep the newest :data:`KEEP` recovery points of a project, so the cache stays bounded
    (the mirror keeps every object: it is the size of the repository)."""
    import shutil

    points = sorted((p.parent for p in base.glob("*/point.json")),
                    key=lambda d: ((d / "point.json").stat().st_mtime_ns, d.name))
    for old in points[:-KEEP]:
        shutil.rmtree(old, ignore_errors=True)


def _load(path: Path) -> Point | None:
    point = load(Point, path)
    if point is not None:
        point.dir = path.parent
    return point


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
    point = _load(path)
    if point is None:
        raise UsageError(f"the recovery point {path} is gone")
    return point


def _blob(root: Path, commit: str | None, path: str) -> tuple[bytes, str] | None:
    """The content and mode of ``path`` in ``commit``, or None when it has none."""
    if commit is None:
        return None
    line = git.git(root, "ls-tree", "-z", commit, "--", path, check=False).strip("\0")
    if not line:
        return None
    return _git(root, "cat-file", "blob", f"{commit}:{path}").stdout, line.split(" ", 1)[0]


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
    said = restore(root, point, point.branch)
    said += _back_on(root, point.branch)
    said += _restore_work(root, point.tip, point.work, point.session)
    return said


def restore(root: Path, point: Point, head: str | None) -> list[str]:
    """Bring back the repository (``.git`` re-created if gone, HEAD then on ``head``), every
    ref and every stash entry the backups saw; the lines say what was done."""
    said: list[str] = []
    if not git.is_repo(root):
        dot_git = root / ".git"
        # What the sandbox leaves of 'rm -rf .git' (its mount point, objects and read-only
        # files, no HEAD nor refs/): 'git init' makes HEAD and refs/ again beside them.
        emptied = not (dot_git / "HEAD").exists() and (dot_git / "objects").is_dir()
        if dot_git.exists() and not emptied:
            raise UsageError(f"{dot_git} exists but is not a usable repository: move it "
                             "aside, then run 'ralph-verify recover' again")
        git.git(root, "init", "-q")
        git.exclude_ralph_dir(root)
        said.append(f"re-created {dot_git} from {point.dir.parent / MIRROR}")
    wanted = [*point.refs.values(), *(e.sha for e in point.stash), point.work]
    missing = [line.split()[0] for line in _run(
        root, "cat-file", "--batch-check", stdin="\n".join(wanted) + "\n",
        check=False).splitlines() if line.endswith(" missing")]
    if missing:
        _run(root, "fetch", "-q", "--no-tags", "--no-write-fetch-head",
             "--stdin", str(point.dir.parent / MIRROR), stdin="\n".join(missing) + "\n")
    work = WORK_REF.format(session=point.session)
    git.git(root, "update-ref", work, point.work, "", check=False)  # if gone: the start's settings
    said += _restore_refs(root, point)
    said += _restore_stash(root, point)
    if head and git.head(root) is None and f"refs/heads/{head}" in point.refs:
        # a re-created .git: HEAD on the branch, the index as its tip, the tree untouched
        git.git(root, "symbolic-ref", "HEAD", f"refs/heads/{head}")
        git.git(root, "reset", "-q")
        said.append(f"HEAD is on {head}; the files of the tree were left as they are")
    return said


def _short(ref: str) -> str:
    return ref.removeprefix("refs/heads/").removeprefix("refs/")


def _listing(refs: list[str]) -> str:
    return ", ".join(map(_short, refs[:10])) + (" ..." if len(refs) > 10 else "")


def _restore_refs(root: Path, point: Point) -> list[str]:
    now, on = _refs(root), git.current_branch(root)
    checked_out = f"refs/heads/{on}" if on and git.head(root) else None
    made, moved, kept, updates = [], [], [], []
    keep = RECOVERED.format(session=point.session)
    for name, want in sorted(point.refs.items()):
        have = now.get(name)
        if have == want or (have is not None and is_ancestor(root, want, have)):
            continue  # as it was, or newer commits on top of it
        if have is None:
            made.append(name)
            updates.append(f"create {name} {want}")
        elif is_ancestor(root, have, want) and (
                name != checked_out or _git(root, "reset", "-q", "--keep", want).returncode == 0):
            moved.append(name)
            if name != checked_out:
                updates.append(f"update {name} {want} {have}")
        else:  # rewritten (or checked out with changes in the way): the user decides
            kept.append(name)
            updates.append(f"update {keep}{name.removeprefix('refs/')} {want}")
    if updates:
        _run(root, "update-ref", "--stdin", stdin="\n".join(updates) + "\n")
    said = []
    if made:
        said.append(f"re-created {len(made)} ref(s) deleted since the backup: {_listing(made)}")
    if moved:
        said.append(f"moved {len(moved)} rewound ref(s) forward to their backed-up tips "
                    f"(commits lost since): {_listing(moved)}")
    if kept:
        said.append(f"{len(kept)} ref(s) were rewritten since the backup and are left as "
                    f"they are ({_listing(kept)}); their backed-up tips are under {keep} "
                    f"('git log {keep}{kept[0].removeprefix('refs/')}' to see one)")
    return said


def _restore_stash(root: Path, point: Point) -> list[str]:
    have = {entry.sha for entry in _stash(root)}
    lost = [entry for entry in point.stash if entry.sha not in have]
    for entry in lost:  # oldest first: a cleared stash comes back in its order
        _run(root, "stash", "store", "-q", "-m", entry.message, entry.sha)
    return [f"put back {len(lost)} lost stash entr{'y' if len(lost) == 1 else 'ies'} "
            "('git stash list')"] if lost else []


def _back_on(root: Path, branch: str | None) -> list[str]:
    """HEAD back on the user's branch when the tree allows it."""
    if not branch or git.current_branch(root) == branch:
        return []
    if git.dirty_paths(root):
        return [f"HEAD is not on {branch} and the tree has changes: not switched; "
                f"'git switch {branch}' when you are ready"]
    git.git(root, "switch", "-q", branch)
    return [f"switched to {branch} (the tree was clean)"]


def is_ancestor(root: Path, older: str, newer: str) -> bool:
    return _git(root, "merge-base", "--is-ancestor", older, newer).returncode == 0


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
