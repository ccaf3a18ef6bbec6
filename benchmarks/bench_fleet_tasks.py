"""The cost of a task switch in ``fleet FILE`` with ``depends-on``: what the graph, the
worktrees and the merge queue add on top of the tasks' own loops.

Usage::

    python benchmarks/bench_fleet_tasks.py              # a chain of 6 tasks, 2 rounds
    python benchmarks/bench_fleet_tasks.py --tasks 10 --rounds 3 --independent

A temporary git project with N tasks whose checks are ``files:`` checks (no tool run),
worked by a ``cmd:`` agent that writes the task's file at once. ``--chain`` (default): each
task depends on the one before, so every switch is on the critical path (the loop ends,
its branch is merged and verified, the next starts from the new tip); ``--independent``:
``depends-on = []`` everywhere, ``-j 2``.

Per task switch, all in = (the fleet's wall time - the sum of its loops' own ``ralph-verify
run`` time, ``run_s`` in fleet.json) / N: the worktree, the child's start, the record, the
merge and its gate, and the fleet's fixed costs (its start-up, the final check, reports)
shared out. Each round also runs a fleet of one task; beyond those fixed costs, per task
switch = (N x all in - one task's) / (N - 1). Printed beside it, the merge queue's own part
(the median ``merge_s``: merge + gate) and a job's time outside its loop. With ``-j 1`` on a
chain nothing overlaps, so the figure is not blurred by concurrency; report the load.

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


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", *args], cwd=root,
                   check=True, capture_output=True)


def fleet(count: int, *, chain: bool) -> tuple[float, float, list[float], list[float], float]:
    """(wall time, the loops' own time, each merge's time, each job's time outside its loop
    (worktree, commit, records), the final check's time) of one fleet of ``count`` tasks."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text('[project]\nname = "b"\nversion = "0"\n')
        (root / ".gitignore").write_text("fleet/\n.ralph/\n")
        agent = root.parent / f"{root.name}-agent.py"
        agent.write_text("import os, pathlib\n"
                         "pathlib.Path('f' + os.environ['RALPH_TASK_ID'][1:] + '.txt')"
                         ".write_text('x')\n")
        tables = [f'[defaults]\nagent = "cmd:{sys.executable} {agent}"\nprompt = "write it"\n'
                  "max-iterations = 2\n"]
        for n in range(1, count + 1):
            deps = f'["T{n - 1}"]' if chain and n > 1 else "[]"
            tables.append(f'[[task]]\nid = "T{n}"\nuntil = "files:f{n}.txt"\n'
                          f"depends-on = {deps}\n")
        (root / "tasks.toml").write_text("\n".join(tables))
        _git(root, "init", "-q")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", "init")
        started = time.perf_counter()
        proc = subprocess.run([*RALPH, "fleet", "tasks.toml", "-j", "1" if chain else "2",
                               "--id", "bench", "-q"], cwd=root, capture_output=True,
                              text=True, check=False,
                              env={**os.environ, "RALPH_VERIFY_SANDBOX": "off"})
        wall = time.perf_counter() - started
        agent.unlink()
        document = json.loads((root / "fleet" / "fleet.json").read_text())
        if proc.returncode != 0:
            raise SystemExit(f"fleet failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n"
                             f"{proc.stderr[-3000:]}\n{json.dumps(document, indent=1)[:3000]}")
        loops = document["loops"]
        assert all(loop["task_status"] == "done" for loop in loops), loops
        return (wall, sum(float(loop.get("run_s") or 0) for loop in loops),
                [float(loop["merge_s"]) for loop in loops],
                [float(loop["duration_s"]) - float(loop["run_s"]) for loop in loops],
                float(document["integration"]["final"]["duration_s"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--independent", action="store_true",
                        help="no dependencies, -j 2 (default: a chain, -j 1)")
    args = parser.parse_args()
    loads = [os.getloadavg()[0]]
    per_switch, merges, jobs, finals, small = [], [], [], [], []
    chain = not args.independent
    for number in range(1, args.rounds + 1):
        wall, own, merge, job, final = fleet(args.tasks, chain=chain)
        per_switch.append((wall - own) / args.tasks)
        merges += merge
        jobs += job
        finals.append(final)
        print(f"round {number}: {args.tasks} tasks in {wall:.2f} s, their loops {own:.2f} s: "
              f"{per_switch[-1]:.3f} s per task switch; medians: merge "
              f"{statistics.median(merge):.3f} s, job outside its loop "
              f"{statistics.median(job):.3f} s; final check {final:.2f} s")
        # The same with one task: what a fleet costs once (start-up, final check, reports),
        # paired with this round so that both see the same load.
        one_wall, one_own, *_ = fleet(1, chain=chain)
        small.append(one_wall - one_own)
    loads.append(os.getloadavg()[0])
    fixed = statistics.median(small)
    marginal = [(switch * args.tasks - fixed) / (args.tasks - 1) for switch in per_switch] \
        if args.tasks > 1 else per_switch
    shape = "independent, -j 2" if args.independent else "a chain, -j 1"
    print(f"\n| figure ({args.tasks} tasks, {shape}) | value |\n|---|---|\n"
          f"| per task switch, all in (median of {args.rounds}) | "
          f"{statistics.median(per_switch):.3f} s |\n"
          f"| a fleet of one task, outside its loop (start-up, final check, reports) | "
          f"{fixed:.2f} s |\n"
          f"| **per task switch beyond that** (median) | {statistics.median(marginal):.3f} s |\n"
          f"| merge + gate per task (median) | {statistics.median(merges):.3f} s |\n"
          f"| a job outside its loop: worktree, commit, records (median) | "
          f"{statistics.median(jobs):.3f} s |\n"
          f"| the final check, once per fleet (median) | {statistics.median(finals):.2f} s |\n"
          f"| load average before / after | {loads[0]:.1f} / {loads[1]:.1f} on "
          f"{os.cpu_count()} cores |")

if __name__ == "__main__":
    main()
