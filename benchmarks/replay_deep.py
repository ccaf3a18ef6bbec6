"""Replay real history through integrity's third-round rules (``ralph_verify.integrity.deep``).

Each first-parent commit of a repository is one iteration against its parent: both trees are
exported with ``git archive``, the parent is pictured as a session's start and the commit as
a later verification (only the files whose hash changed are parsed again), and every flag of
the effective-settings, stand-in, cannot-fail and special-casing rules is printed with its
reason. Honest history should raise (almost) none. Run by hand:

    python benchmarks/replay_deep.py /path/to/repo.git [--commits 100] [--gate tests,lint]
"""

from __future__ import annotations

import argparse
import io
import itertools
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path


def export(git_dir: Path, commit: str, target: Path) -> list[str]:
    data = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "--format=tar", commit],
                          capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(target, filter="data")
        return sorted(m.name for m in tar.getmembers() if m.isfile())


def replay(git_dir: Path, commits: int, gate: set[str]) -> tuple[int, int, list[str], float]:
    from ralph_verify.integrity import deep
    from ralph_verify.records.integrity import Picture

    revs = subprocess.run(["git", "--git-dir", str(git_dir), "rev-list", "--first-parent",
                           "-n", str(commits + 1), "HEAD"], capture_output=True, text=True,
                          check=True).stdout.split()
    flagged, total, lines, spent = 0, 0, [], 0.0
    before: Picture | None = None
    for parent, child in itertools.pairwise(reversed(revs)):  # oldest first
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            if before is None:
                before = Picture(deep=deep.take(Path(a), export(git_dir, parent, Path(a))))
            after_files = export(git_dir, child, Path(b))
            start = time.perf_counter()
            after = Picture(deep=deep.take(Path(b), after_files, before))
            found, _ = deep.compare(before, after, Path(b), gate)
            spent += time.perf_counter() - start
        before = after  # the child is the next commit's parent
        total += 1
        if found:
            flagged += 1
            subject = subprocess.run(["git", "--git-dir", str(git_dir), "log", "-1",
                                      "--format=%s", child], capture_output=True, text=True,
                                     check=True).stdout.strip()
            lines.append(f"{child[:10]} {subject}")
            lines += [f"    {f.code}: {f.message}" for f in found]
    return flagged, total, lines, spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("git_dirs", nargs="+", type=Path)
    parser.add_argument("--commits", type=int, default=100)
    parser.add_argument("--gate", default="tests")
    args = parser.parse_args()
    gate = set(args.gate.split(","))
    all_flagged = all_total = 0
    for git_dir in args.git_dirs:
        flagged, total, lines, spent = replay(git_dir, args.commits, gate)
        all_flagged += flagged
        all_total += total
        print(f"{git_dir}: {flagged} of {total} commits flagged "
              f"({100 * flagged / max(total, 1):.1f}%), incremental take+compare "
              f"{1000 * spent / max(total, 1):.1f} ms per commit")
        print("\n".join(lines))
    print(f"all: {all_flagged} of {all_total} commits flagged "
          f"({100 * all_flagged / max(all_total, 1):.1f}%) with gate {sorted(gate)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
