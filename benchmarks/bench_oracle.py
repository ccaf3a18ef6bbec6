"""The frozen oracle's cost per verification (docs/integrity.md, issue 38).

What a verification in a session pays for it, on a small project (``calc`` and 20 test
files) in git, with and without a ``.venv`` of some 1,500 files inside it (ignored by
``.gitignore``, or not):

- ``plan``: deciding whether a test-side file changed (``git diff`` and ``git ls-files``
  against the session's start): paid by every verification in a session;
- ``tree``: building and removing the judging tree, when one did;
- ``pytest here`` / ``pytest in tree``: the suite in the project and in the judging tree;
- ``agent pass``: the extra process, pytest on the agent's one changed test module.

Medians of ``--runs`` runs after one warm-up, in CPU seconds (user + system, of this
process and the processes it waited for), so a busy machine does not blur them. Run with
the interpreter that has pytest (``.venv-test/bin/python benchmarks/bench_oracle.py``).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ralph_verify.plugins.pytest_run.oracle import is_test_side
from ralph_verify.project.judging_tree import changed_since, judging_tree


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", *args], cwd=root,
                   check=True, capture_output=True)


def project(where: Path, venv: str) -> Path:
    """``venv``: "none", "ignored" or "untracked"."""
    root = where / f"calc-{venv}"
    (root / "tests").mkdir(parents=True)
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    for n in range(20):
        (root / "tests" / f"test_{n}.py").write_text(
            "from calc import add\n\n\n"
            + "".join(f"def test_{i}():\n    assert add({i}, 1) == {i + 1}\n\n\n"
                      for i in range(10)))
    (root / ".gitignore").write_text(".venv/\n" if venv == "ignored" else "")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "start")
    if venv != "none":
        subprocess.run([sys.executable, "-m", "venv", str(root / ".venv")], check=True)
    # The agent's work: the product fixed, one test edited (so the oracle is on).
    (root / "tests" / "test_0.py").write_text((root / "tests" / "test_0.py").read_text()
                                              + "def test_more():\n    assert add(0, 0) == 0\n")
    return root


def _cpu() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def median(runs: int, work: Callable[[], object]) -> float:
    """Median CPU seconds (ours and our children's): the machine may be busy."""
    work()
    times = []
    for _ in range(runs):
        started = _cpu()
        work()
        times.append(_cpu() - started)
    return statistics.median(times)


def pytest(cwd: Path, *args: str) -> None:
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                   cwd=cwd, check=True, capture_output=True)


def measure(root: Path, runs: int) -> dict[str, float]:
    def keep(rel: str) -> bool:
        return not is_test_side(rel)

    def build() -> None:
        with judging_tree(root, "HEAD", keep_now=keep):
            pass

    with judging_tree(root, "HEAD", keep_now=keep) as built:
        there = median(runs, lambda: pytest(built))
    return {"files": sum(1 for _ in root.rglob("*")),
            "plan": median(runs, lambda: changed_since(root, "HEAD")),
            "tree": median(runs, build), "pytest here": median(runs, lambda: pytest(root)),
            "pytest in tree": there,
            "agent pass": median(runs, lambda: pytest(root, "tests/test_0.py"))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'project':<22}{'files':>7}{'plan':>8}{'tree':>8}{'pytest':>9}"
              f"{'in tree':>9}{'agent pass':>12}   (CPU s, medians of {args.runs})")
        for venv in ("none", "ignored", "untracked"):
            got = measure(project(Path(tmp), venv), args.runs)
            print(f"{'calc, venv ' + venv:<22}{got['files']:>7.0f}{got['plan']:>8.3f}"
                  f"{got['tree']:>8.3f}{got['pytest here']:>9.3f}{got['pytest in tree']:>9.3f}"
                  f"{got['agent pass']:>12.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
