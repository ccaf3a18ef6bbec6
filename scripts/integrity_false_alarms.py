"""How often the integrity source scan would flag an honest commit: run it on a real history.

For each of the last N first-parent commits of a git repository, the changed non-test
Python files are scanned at the commit and at its parent, with the literals of the
commit's test files; a commit is flagged when the scan finds something new (what
``integrity`` would report had an agent made that commit in a session).

    python scripts/integrity_false_alarms.py PATH-TO-CLONE [--commits 300]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from typing import Any

from ralph_verify.integrity import gaming
from ralph_verify.integrity.sources import is_test_file


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True,
                          check=True, errors="replace").stdout


def blob(repo: str, spec: str) -> str | None:
    result = subprocess.run(["git", "-C", repo, "show", spec], capture_output=True, text=True,
                            errors="replace")
    return result.stdout if result.returncode == 0 else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo")
    parser.add_argument("--commits", type=int, default=300)
    options = parser.parse_args()
    repo = options.repo
    literal_cache: dict[str, set[Any]] = {}
    commits = git(repo, "rev-list", "--first-parent", "--no-merges", f"-n{options.commits}",
                  "HEAD").split()
    scanned = flagged = 0
    for commit in commits:
        parents = git(repo, "rev-list", "--parents", "-n1", commit).split()[1:]
        if not parents:
            continue
        changed = [p for p in git(repo, "diff", "--name-only", parents[0], commit).split()
                   if gaming.is_source(p)]
        scanned += 1
        if not changed:
            continue
        literals: set[Any] = set()
        for line in git(repo, "ls-tree", "-r", commit).splitlines():
            meta, path = line.split("\t", 1)
            sha = meta.split()[2]
            if path.endswith(".py") and is_test_file(path):
                if sha not in literal_cache:
                    literal_cache[sha] = gaming.test_literals([blob(repo, sha) or ""])
                literals |= literal_cache[sha]
        found = []
        for path in changed:
            new = blob(repo, f"{commit}:{path}")
            if new is None:
                continue
            old = blob(repo, f"{parents[0]}:{path}") or ""
            fresh = gaming.new_findings(gaming.scan(old, literals), gaming.scan(new, literals))
            found += [f"{path}:{line} {rule}: {source}" for rule, line, _, source in fresh]
        if found:
            flagged += 1
            print(f"{commit[:10]} {git(repo, 'log', '-1', '--format=%s', commit).strip()}")
            for item in found:
                print(f"    {item}")
    print(f"{repo}: {flagged} of {scanned} commits flagged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
