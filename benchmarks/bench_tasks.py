"""The cost of a task list on top of the agent: the time of a task switch, the pytest runs
of a gate holding many ``tests:PATH`` checks, and a list's pytest runs against a plain run.

Usage::

    python benchmarks/bench_tasks.py            # 8 tasks, 3 rounds
    python benchmarks/bench_tasks.py --tasks 20 --rounds 5
    python benchmarks/bench_tasks.py --ralph-verify ../older-checkout   # before

``switch``: a temporary git project with N tasks whose checks are ``files:`` checks (no
tool run), worked by a ``cmd:`` agent that writes the task's file at once. Each task is a
session of the loop; its own time (baseline, one iteration, verification, commit) is in
``.ralph/tasks/state.json``. The run's wall time less the sum of the tasks' own times is
what the list adds: start-up, reading the file, the state, the final check. Target: under
0.5 s per task switch.

``pytest-runs``: a project with N test files and one gate of N ``tests:PATH`` checks plus
``tests``: a conftest counts pytest's sessions. Target: one run per verification.

``list-vs-plain``: a project with a suite of ``--tests`` tests (a conftest counts pytest's
sessions); N tasks whose gate holds ``tests`` (``keep``) and a ``files:`` check of their own,
each done in one iteration by a ``cmd:`` agent; against one plain ``run --until tests,files:...``
whose agent makes the same edits, one an iteration. Per task switch: (the list's wall and
CPU - the plain run's) / N. CPU is user + system of ralph-verify and everything it started.
Target: the list's pytest runs at most the plain run's plus one.

Run it by hand; it is not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RALPH = [sys.executable, "-m", "ralph_verify"]
#: ``PYTHONPATH`` for ``--ralph-verify CHECKOUT``: that checkout's ralph-verify is measured.
ENV = dict(os.environ)


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
                       capture_output=True, env=ENV)
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
                       check=True, env={**ENV, "BENCH_RUNS": str(runs)})
        found = len(runs.read_text())
        runs.unlink()
        return found


def _timed(args: list[str], root: Path) -> tuple[float, float]:
    """(wall, CPU) of one command and everything under it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(args, cwd=root, env=ENV, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{' '.join(args)}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def list_vs_plain(count: int, tests: int) -> dict[str, tuple[int, float, float]]:
    """(pytest runs, wall, CPU) of a list of ``count`` one-iteration tasks and of one plain
    run making the same edits."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        (root / "tests").mkdir(parents=True)
        runs = Path(tmp) / "runs"
        (root / "pyproject.toml").write_text('[project]\nname = "b"\nversion = "0"\n'
                                             "[tool.ralph-verify.checks.tests]\nrerun = 0\n")
        (root / "conftest.py").write_text(
            f"def pytest_sessionstart(session):\n    with open({str(runs)!r}, 'a') as f:\n"
            "        f.write('x')\n")
        for n in range(tests):
            (root / "tests" / f"test_{n}.py").write_text(
                f"def test_{n}():\n    assert sum(range({n})) == {sum(range(n))}\n")
        (root / "tasks.toml").write_text('[defaults]\nkeep = "tests"\n' + "".join(
            f'\n[[task]]\nid = "T{n}"\nuntil = "files:m{n}.py"\n' for n in range(1, count + 1)))
        agent = Path(tmp) / "agent.py"
        agent.write_text("import os, pathlib\nn = os.environ.get('RALPH_TASK_ID', "
                         "'T' + os.environ['RALPH_ITERATION'])[1:]\n"
                         "pathlib.Path(f'm{n}.py').write_text('x = 1\\n')\n")
        _git(root)
        start = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, check=True,
                               capture_output=True, text=True).stdout.strip()
        found = {}
        until = ",".join(["tests", *(f"files:m{n}.py" for n in range(1, count + 1))])
        for side, args in (("plain", ["run", "--until", until, "--max-iterations", str(count),
                                      "--no-branch", "write the modules"]),
                           ("list", ["run", "--tasks", "tasks.toml"])):
            subprocess.run(["git", "reset", "-q", "--hard", start], cwd=root, check=True)
            subprocess.run(["git", "clean", "-qfdx"], cwd=root, check=True)
            runs.write_text("")
            wall, cpu = _timed([*RALPH, *args, "--agent", f"cmd:{sys.executable} {agent}",
                                "--no-cache", "-q"], root)
            found[side] = (len(runs.read_text()), wall, cpu)
        return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tests", type=int, default=200, help="the list-vs-plain suite")
    parser.add_argument("--ralph-verify", metavar="CHECKOUT", type=Path)
    parser.add_argument("--part", choices=("all", "list-vs-plain"), default="all")
    args = parser.parse_args()
    if args.ralph_verify:
        ENV["PYTHONPATH"] = str(args.ralph_verify.resolve())
    sides = [list_vs_plain(args.tasks, args.tests) for _ in range(args.rounds)]
    (list_runs, _, _), (plain_runs, _, _) = sides[0]["list"], sides[0]["plain"]
    wall = statistics.median((s["list"][1] - s["plain"][1]) / args.tasks for s in sides)
    cpu = statistics.median((s["list"][2] - s["plain"][2]) / args.tasks for s in sides)
    print(f"| list of {args.tasks} / plain run, pytest runs | {list_runs} / {plain_runs} |\n"
          f"| per task switch beyond the plain run (median of {args.rounds}) | "
          f"{wall:.2f} s wall, {cpu:.2f} s CPU |")
    if args.part != "all":
        return
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
