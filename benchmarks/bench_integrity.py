"""What the integrity check costs an iteration on a real project, and what round three adds.

A repository's HEAD tree is exported into a temporary folder and pictured as a session's
start; one source file and one test file are then edited, as an agent's iteration would, and
the comparison the ``integrity`` check makes is timed (picture of the tree reusing the
baseline's per-file findings, every rule's comparison), with and without the third-round
rules (``ralph_verify.integrity.deep``). Run by hand:

    python benchmarks/bench_integrity.py /path/to/repo.git [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from replay_deep import export


def _edit(root: Path, files: list[str]) -> None:
    source = next(f for f in files if f.endswith(".py") and "test" not in f
                  and f.count("/") >= 1 and (root / f).stat().st_size > 2000)
    test = next(f for f in files if f.rsplit("/", 1)[-1].startswith("test_"))
    for rel in (source, test):
        path = root / rel
        path.write_text(path.read_text() + "\n\ndef _added_by_the_agent(x):\n    return x\n")


def main() -> int:
    from ralph_verify.integrity import baseline, deep

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("git_dir", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        files = export(args.git_dir, "HEAD", root)
        tests = sum((root / f).read_text(errors="replace").count("def test")
                    for f in files if f.endswith(".py") and "test" in f)
        start = time.perf_counter()
        before = baseline.take(root, protected=[], keep=["tests/**"])
        took = time.perf_counter() - start
        _edit(root, files)
        gate = {"tests", "lint", "types", "coverage"}
        full, added = [], []
        for _ in range(args.rounds):
            start = time.perf_counter()
            after = baseline.take(root, protected=[], keep=["tests/**"], previous=before)
            failures = baseline.compare(before, after, root)
            found, judged = deep.compare(before, after, root, gate)
            deep.merge(failures, found, judged, gate)
            full.append(time.perf_counter() - start)
            start = time.perf_counter()
            now: dict[str, Any] = {"deep": deep.take(root, baseline.list_files(root), before)}
            deep.compare(before, now, root, gate)
            added.append(time.perf_counter() - start)
    print(f"{args.git_dir}: ~{tests} test functions, {len(files)} files")
    print(f"  baseline picture at the session's start: {took:.3f} s")
    print(f"  an iteration's integrity (picture + compare, median of {args.rounds}): "
          f"{statistics.median(full):.3f} s")
    print(f"  of which round three (its picture of the changed files + compare, median): "
          f"{statistics.median(added):.3f} s (file listing included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
