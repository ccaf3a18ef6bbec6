"""The cost of a task list on top of the agent: the time of a task switch, and the pytest
runs of a gate holding many ``tests:PATH`` checks.

Usage::

    python benchmarks/bench_tasks.py            # 8 tasks, 3 rounds
    python benchmarks/bench_tasks.py --tasks 20 --rounds 5

``switch``: a temporary git project with N tasks whose checks are ``files:`` checks (no
tool run), worked by a ``cmd:`` agent that writes the task's file at once. Each task is a
session of the loop; its own time (baseline, one iteration, verification, commit) is in
``.ralph/tasks/state.json``. The run's wall time less the sum of the tasks' own times is
what the list adds: start-up, reading the file, the state, the final check. Target: under
0.5 s per task switch.

``pytest-runs``: a project with N test files and one gate of N ``tests:PATH`` checks plus
``tests``: a conftest counts pytest's sessions. Target: one run per verification.

Run it by hand; it is not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RALPH = [sys.executable, "-m", "ralph_verify"]


def _git(root: Path) -> None:
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@b",
                                                 "commit", "-qm", "init"]):
        subprocess.run(["git", *args], cwd=root, check=True)


def switch(count: int) -> tuple[float, float]:
    """(wall time, the tasks' own time) of one run of ``count`` tasks."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text('[project]\nname = "b"\nversion = "0"\n')
        tables = ['[defaults]\nkeep = "files:tasks.toml"\n']
        tables += [f'[[task]]\nid = "T{n}"\nuntil = "files:f{n}.txt"\n'
                   for n in range(1, count + 1)]
        (root / "tasks.toml").write_text("\n".join(tables))
        agent = root.parent / f"{root.name}-agent.py"
        agent.write_text("import os, pathlib\n"
                         "pathlib.Path('f' + os.environ['RALPH_TASK_ID'][1:] + '.txt')"
                         ".write_text('x')\n")
        _git(root)
        started = time.perf_counter()
        subprocess.run([*RALPH, "run", "--tasks", "tasks.toml", "--agent",
                        f"cmd:{sys.executable} {agent}", "-q"], cwd=root, check=True,
                       capture_output=True)
        wall = time.perf_counter() - started
        agent.unlink()
        state = json.loads((root / ".ralph/tasks/state.json").read_text())
        assert state["verdict"] == "complete", state
        return wall, sum(row["duration_s"] for row in state["tasks"])


def pytest_runs(count: int) -> int:
    """pytest sessions of one ``check`` whose gate holds ``count`` ``tests:PATH`` checks."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text(
            '[project]\nname = "b"\nversion = "0"\n[tool.ralph-verify.checks.tests]\n'
            "rerun = 0\n")
        (root / "tests").mkdir()
        for n in range(count):
            (root / "tests" / f"test_{n}.py").write_text(f"def test_{n}():\n    assert True\n")
        runs = root.parent / f"{root.name}-runs"
        (root / "conftest.py").write_text(
            "import os\n\ndef pytest_sessionstart(session):\n"
            "    with open(os.environ['BENCH_RUNS'], 'a') as f:\n        f.write('x')\n")
        specs = ",".join(f"tests:tests/test_{n}.py" for n in range(count)) + ",tests"
        subprocess.run([*RALPH, "check", "--until", specs, "--no-cache", "-q"], cwd=root,
                       check=True, env={**os.environ, "BENCH_RUNS": str(runs)})
        found = len(runs.read_text())
        runs.unlink()
        return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    per_switch = []
    for number in range(1, args.rounds + 1):
        wall, own = switch(args.tasks)
        per_switch.append((wall - own) / args.tasks)
        print(f"round {number}: {args.tasks} tasks in {wall:.2f} s, their own {own:.2f} s: "
              f"{per_switch[-1]:.3f} s per task switch")
    runs = pytest_runs(args.tasks)
    load = os.getloadavg()[0]
    print(f"\n| figure | value |\n|---|---|\n"
          f"| per task switch (median of {args.rounds}) | {statistics.median(per_switch):.3f} s |"
          f"\n| pytest runs, {args.tasks} tests:PATH + tests | {runs} |\n"
          f"| load average | {load:.1f} on {os.cpu_count()} cores |")


if __name__ == "__main__":
    main()
