"""The backup of every ref and stash entry: its cost at the start and at each checkpoint.

    python benchmarks/bench_backup.py [--commits 5000] [--branches 200] [--tags 500] [--repeat 5]

A synthetic repository (made with ``git fast-import``: COMMITS commits of a few files each,
BRANCHES branches and TAGS tags spread over them, two stash entries) gets a recovery point
(:func:`ralph_verify.loop.recovery.create`: the first push into the project's mirror sends
everything), then, as at each checkpoint, :func:`~ralph_verify.loop.recovery.backup_at`
with nothing new and with one new commit, then a second session's first point (the mirror
already holds the history). Last, ``.git`` is deleted and :func:`restore` brings every ref
and stash entry back. Wall time, min/median/max over REPEAT rounds, and the mirror's size.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path


def git(root: Path, *args: str, stdin: bytes | None = None) -> str:
    return subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True,
                          check=True).stdout.decode()


def make_repo(root: Path, commits: int, branches: int, tags: int) -> None:
    git(root, "init", "-q", "-b", "main")
    stream = []
    for number in range(1, commits + 1):
        message, body = b"commit %d\n" % number, b"line %d\n" % number
        stream.append(b"commit refs/heads/main\nmark :%d\n" % number
                      + b"committer Bench <b@example.com> %d +0000\n" % (1_600_000_000 + number)
                      + b"data %d\n%s" % (len(message), message)
                      + (b"from :%d\n" % (number - 1) if number > 1 else b"")
                      + b"M 100644 inline f%d.txt\ndata %d\n%s\n" % (number % 50, len(body),
                                                                      body))
    for number in range(branches):
        stream.append(b"reset refs/heads/b%d\nfrom :%d\n\n" % (number, 1 + number * commits
                                                                 // max(branches, 1)))
    for number in range(tags):
        stream.append(b"reset refs/tags/t%d\nfrom :%d\n\n" % (number, 1 + number * commits
                                                                // max(tags, 1)))
    git(root, "fast-import", "--quiet", stdin=b"".join(stream))
    git(root, "reset", "-q", "--hard", "main")
    git(root, "config", "user.email", "b@example.com")
    git(root, "config", "user.name", "Bench")
    for number in (1, 2):
        (root / "f1.txt").write_text(f"stashed {number}\n")
        git(root, "stash", "push", "-q", "-m", f"stash {number}")


def clock(times: dict[str, list[float]], name: str, action: Callable[[], object]) -> None:
    started = time.perf_counter()
    action()
    times.setdefault(name, []).append(time.perf_counter() - started)


def size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commits", type=int, default=5000)
    parser.add_argument("--branches", type=int, default=200)
    parser.add_argument("--tags", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    times: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-backup-") as tmp:
        os.environ["RALPH_VERIFY_CACHE_DIR"] = str(Path(tmp) / "cache")
        from ralph_verify.loop import recovery

        root = Path(tmp) / "project"
        root.mkdir()
        make_repo(root, args.commits, args.branches, args.tags)
        pristine = Path(tmp) / "pristine.git"
        shutil.copytree(root / ".git", pristine)
        mirror_size = 0
        for round_ in range(args.repeat):
            shutil.rmtree(Path(tmp) / "cache", ignore_errors=True)
            shutil.rmtree(root / ".git")
            shutil.copytree(pristine, root / ".git")
            started = time.perf_counter()
            point = recovery.create(root, f"s-{round_}")  # a new mirror: everything goes
            times.setdefault("first point (empty mirror)", []).append(
                time.perf_counter() - started)
            mirror_size = size(point.dir.parent / recovery.MIRROR)
            clock(times, "checkpoint, nothing new", partial(recovery.backup_at, root, point.dir))
            (root / "new.txt").write_text(f"round {round_}\n")
            git(root, "add", "new.txt")
            git(root, "commit", "-q", "-m", "new work")
            clock(times, "checkpoint, one new commit", partial(recovery.backup_at, root,
                                                               point.dir))
            clock(times, "next session's point (mirror warm)", partial(
                recovery.create, root, f"next-{round_}"))
            refs = git(root, "for-each-ref")
            shutil.rmtree(root / ".git")
            point = recovery.find(root, f"next-{round_}")
            clock(times, "restore after rm -rf .git", partial(recovery.restore, root, point,
                                                              point.branch))
            assert all(line in git(root, "for-each-ref") for line in refs.splitlines()
                       if "refs/stash" not in line)
            assert len(git(root, "stash", "list").splitlines()) == 2
    print(f"{args.commits} commits, {args.branches} branches, {args.tags} tags, 2 stash "
          f"entries; mirror {mirror_size / 1e6:.1f} MB; {args.repeat} rounds")
    for name, values in times.items():
        print(f"  {name:38} min {min(values):6.3f}  median {statistics.median(values):6.3f}  "
              f"max {max(values):6.3f} s")


if __name__ == "__main__":
    main()
