"""False alarms of ``integrity`` on real history: each commit judged as one loop iteration.

For each project, the last N commits of its main line (first-parent order: what landed) are
replayed from a trimmed history kept as a git bundle: the tree of each commit's parent is
the session's start, the commit's tree the agent's iteration. Both are pictured and compared
by the same code ``run --until tests`` uses with integrity on
(:func:`ralph_verify.integrity.judge.judge`): default options (``keep = ["tests/**"]``),
no pytest run (the per-test-id part needs the project's dependencies; see --help). Every
flag is printed with its rule and reason; a wrong one is a bug with a test.

    python benchmarks/bench_integrity_history.py prepare NAME CLONE [--commits 200]
    python benchmarks/bench_integrity_history.py [--projects attrs,click] [--commits 200]

``prepare`` writes ``NAME.bundle`` (the base tree squashed into one root commit, then the N
commits on top with their own trees, messages and dates) from a local clone of the project
(``git clone URL`` of :data:`PROJECTS`); bundles live in the benchmarks' cache folder
(``$XDG_CACHE_HOME/ralph-verify-bench/histories``, or ``--bundles DIR``), outside this
repository, whose history must not carry other projects' code.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench_projects import WORK  # the module beside this one

from ralph_verify.integrity.judge import judge
from ralph_verify.plugins.integrity import IntegrityOptions
from ralph_verify.records.integrity import Gate, Picture

BUNDLES = WORK / "histories"
#: The gate of ``run --until tests`` (what the session's start records): only the tests
#: decide, so lint and type suppressions hide nothing from it.
GATE = Gate(["integrity", "tests"])
#: Name -> (public repository, the commit the replayed history ends at).
PROJECTS: dict[str, tuple[str, str]] = {
    "attrs": ("https://github.com/python-attrs/attrs", "c1dc5dcb"),
    "more-itertools": ("https://github.com/more-itertools/more-itertools", "2fe1b2e"),
    "click": ("https://github.com/pallets/click", "2c8cd3ac"),
    "cachetools": ("https://github.com/tkem/cachetools", "28d4506"),
    "packaging": ("https://github.com/pypa/packaging", "053c8846"),
    "boltons": ("https://github.com/mahmoud/boltons", "967864f"),
}


def git(repo: Path | str, *args: str, env: dict[str, str] | None = None,
        stdin: str | None = None) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=True, env=env, input=stdin, errors="replace").stdout


def prepare(name: str, clone: Path, commits: int, bundles: Path,
            head: str | None = None) -> Path:
    """``NAME.bundle`` of the last ``commits`` first-parent commits of ``clone``."""
    head = head or (PROJECTS[name][1] if name in PROJECTS else "HEAD")
    chain = git(clone, "rev-list", "--first-parent", f"-n{commits + 1}", head).split()[::-1]
    bundles.mkdir(parents=True, exist_ok=True)
    target = bundles / f"{name}.bundle"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "trim.git"
        subprocess.run(["git", "clone", "-q", "--bare", "--shared", str(clone), str(work)],
                       check=True)
        parent = ""
        for index, commit in enumerate(chain):
            fields = git(work, "log", "-1", "--format=%T%x00%an%x00%ae%x00%aI%x00%cn%x00%ce"
                                             "%x00%cI%x00%B", commit).split("\0", 7)
            tree, an, ae, ad, cn, ce, cd, body = fields
            message = (f"base of the replay: the tree of {commit}\n" if index == 0
                       else f"{body.rstrip()}\n\nReplayed-from: {commit}\n")
            env = {**os.environ, "GIT_AUTHOR_NAME": an, "GIT_AUTHOR_EMAIL": ae,
                   "GIT_AUTHOR_DATE": ad, "GIT_COMMITTER_NAME": cn, "GIT_COMMITTER_EMAIL": ce,
                   "GIT_COMMITTER_DATE": cd}
            args = ["commit-tree", tree, *(["-p", parent] if parent else [])]
            parent = git(work, *args, env=env, stdin=message).strip()
        git(work, "update-ref", "refs/heads/replay", parent)
        git(work, "bundle", "create", str(target), "refs/heads/replay")
    return target


def replay(name: str, bundle: Path, commits: int, only: set[str] | None = None
           ) -> dict[str, Any]:
    """Judge each commit of ``bundle`` against its parent; the flagged ones with reasons.
    ``only``: the original commits (prefixes) to judge, each against its parent."""
    flagged: list[dict[str, Any]] = []
    judged = noted = 0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / name
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(bundle), str(root)],
                       check=True)
        chain = git(root, "rev-list", "--first-parent", f"-n{commits + 1}",
                    "origin/replay").split()[::-1]
        picture: Picture | None = None
        if only is not None:
            chain = _only(root, chain, only)
        for index, commit in enumerate(chain):
            if only is not None and index % 2 == 0:
                picture = None  # the parent of the next commit: picture it afresh
            print(f"\r{name}: {index}/{len(chain) - 1}", end="", file=sys.stderr, flush=True)
            git(root, "checkout", "-q", "-f", commit)
            git(root, "clean", "-q", "-f", "-d", "-x")
            before = picture
            judgement = judge(root, before, keep=IntegrityOptions().keep)
            picture, failures = judgement.picture, judgement.failures
            picture.gate = GATE  # as the session's start records it
            if before is None:
                continue
            judged += 1
            noted += len(judgement.notes)
            if failures:
                body = git(root, "log", "-1", "--format=%B", commit)
                original = next((line.split(": ", 1)[1] for line in body.splitlines()
                                 if line.startswith("Replayed-from: ")), commit)
                flagged.append({"commit": original[:10], "index": index,
                                "subject": body.splitlines()[0] if body else "",
                                "flags": [{"code": f.code, "location": f.location,
                                           "message": f.message} for f in failures]})
                print(f"\r{name} {original[:10]}: {len(failures)} flag(s): "
                      + ", ".join(sorted({str(f.code) for f in failures})), file=sys.stderr)
    print(file=sys.stderr)
    return {"project": name, "commits": judged, "flagged": flagged, "notes": noted,
            "seconds": round(time.perf_counter() - started, 1)}


def _only(root: Path, chain: list[str], only: set[str]) -> list[str]:
    """Parent, commit, parent, commit... for the commits of ``chain`` replayed from ``only``."""
    pairs = []
    for index, commit in enumerate(chain[1:], 1):
        body = git(root, "log", "-1", "--format=%B", commit)
        original = next((line.split(": ", 1)[1] for line in body.splitlines()
                         if line.startswith("Replayed-from: ")), "")
        if any(original.startswith(prefix) for prefix in only):
            pairs += [chain[index - 1], commit]
    return pairs


def report(results: list[dict[str, Any]]) -> None:
    total = sum(r["commits"] for r in results)
    flagged = sum(len(r["flagged"]) for r in results)
    for result in results:
        for item in result["flagged"]:
            print(f"{result['project']} {item['commit']} {item['subject'][:70]}")
            for flag in item["flags"]:
                print(f"    [{flag['code']}] {flag['message']}")
    print()
    codes: Counter[str] = Counter()
    for result in results:
        for item in result["flagged"]:
            codes.update({f["code"] for f in item["flags"]})
        count = len(result["flagged"])
        print(f"{result['project']:>15}: {count:3d} of {result['commits']} commits flagged "
              f"({100 * count / max(result['commits'], 1):.1f}%) in {result['seconds']} s")
    print(f"{'total':>15}: {flagged:3d} of {total} commits flagged "
          f"({100 * flagged / max(total, 1):.1f}%)")
    if codes:
        print("commits flagged by rule: " + ", ".join(f"{c} {n}" for c, n in codes.most_common()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundles", type=Path, default=BUNDLES,
                        help=f"the folder of NAME.bundle files (default {BUNDLES})")
    parser.add_argument("--commits", type=int, default=200)
    sub = parser.add_subparsers(dest="command")
    make = sub.add_parser("prepare", help="write NAME.bundle from a local clone")
    make.add_argument("name")
    make.add_argument("clone", type=Path)
    make.add_argument("--head", help="the last commit (default: the pinned one, else HEAD)")
    parser.add_argument("--projects", default=",".join(PROJECTS))
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--only", help="judge only these original commits (comma-separated "
                                       "prefixes), each against its parent")
    options = parser.parse_args()
    if options.command == "prepare":
        print(prepare(options.name, options.clone, options.commits, options.bundles,
                      options.head))
        return 0
    results = []
    for name in options.projects.split(","):
        bundle = options.bundles / f"{name}.bundle"
        if not bundle.is_file():
            url = PROJECTS.get(name, ("URL", ""))[0]
            print(f"{bundle} is missing: git clone {url} and run "
                  f"'{Path(__file__).name} prepare {name} CLONE'", file=sys.stderr)
            return 2
        only = set(options.only.split(",")) if options.only else None
        results.append(replay(name, bundle, options.commits, only))
    report(results)
    if options.json:
        options.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
