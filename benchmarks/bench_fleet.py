"""``ralph-verify fleet``: 8 short kata loops, ``-j 2`` against one after another, and the
fleet's own overhead per loop on the local executor and on Dask.

    python benchmarks/bench_fleet.py [--loops 8] [--repeat 1]

Each loop is a real ``ralph-verify run --until tests`` on a small package whose one bug a
``cmd:`` agent fixes in one iteration (baseline, agent, verification). Timed, wall clock:

- by hand: ``ralph-verify run --no-branch`` in each package, one after another, each in a
  worktree made (untimed) beforehand: the work without any fleet;
- ``fleet -j 1`` and ``fleet -j 2`` (local executor): worktrees, branches, records, reports
  included;
- ``fleet --executor dask -j 1``: a LocalCluster of one worker started by the fleet, a clone
  per loop, its commits back as a bundle.

The speed-up = by hand / fleet -j 2. The fleet's own overhead per loop = (the fleet's wall time
- the time its ``ralph-verify run`` children took, ``run_s`` in fleet.json) / loops, with
``-j 1``: worktree or clone, the child's start, records, commit, bundle, reports (and for
Dask the LocalCluster's start), measured apart from the loops themselves, so that the load of
a shared machine on the loops does not blur it. The cruder (fleet -j 1 - by hand) / loops is
printed too: it also holds whatever makes a fleet's loop itself slower, and the noise of the
load between two separate runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fleet.kata import agent, git, make_monorepo  # noqa: E402  # after the path is set


def ralph_verify(*args: str, cwd: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "ralph_verify", *args], cwd=cwd,
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"ralph-verify {' '.join(args)} failed ({proc.returncode}):\n"
                         f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")


def by_hand(folders: list[Path], common: list[str]) -> None:
    for folder in folders:
        ralph_verify("run", "--no-branch", "--root", str(folder), *common, cwd=folder)


def overhead(repo: Path, wall: float, loops: int) -> float:
    """Per loop: the fleet's wall time minus what its ``run`` children took."""
    document = json.loads((repo / "fleet" / "fleet.json").read_text())
    return (wall - sum(float(loop["run_s"]) for loop in document["loops"])) / loops


def timed(action: Callable[[], None]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def fresh(base: Path, names: list[str], label: str) -> Path:
    repo = base / label
    make_monorepo(repo, names)
    return repo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loops", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask run")
    options = parser.parse_args()
    load_before = _load()
    names = [f"k{index}" for index in range(options.loops)]
    results: dict[str, list[float]] = {}
    overheads: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="ralph-bench-fleet-") as tmp:
        base = Path(tmp)
        fix = agent(base)
        prompt = base / "PROMPT.md"
        prompt.write_text("Make the tests pass.\n")
        common = ["--agent", fix, "--until", "tests", "-p", str(prompt), "-q"]
        for round_ in range(options.repeat):
            repo = fresh(base, names, f"hand-{round_}")
            trees = []
            for name in names:  # untimed: the worktrees the fleet would make
                tree = base / f"hand-{round_}-trees" / name
                git(repo, "worktree", "add", "-q", "-b", f"hand/{name}", str(tree))
                trees.append(tree / "packages" / name)

            results.setdefault("by hand, one after another", []).append(
                timed(partial(by_hand, trees, common)))
            for jobs in (1, 2):
                repo = fresh(base, names, f"fleet-j{jobs}-{round_}")
                wall = timed(partial(ralph_verify, "fleet", "--matrix", "packages/*", "-j",
                                     str(jobs), *common, cwd=repo))
                results.setdefault(f"fleet -j {jobs}", []).append(wall)
                if jobs == 1:
                    overheads.setdefault("local", []).append(
                        overhead(repo, wall, options.loops))
            if not options.no_dask:
                repo = fresh(base, names, f"dask-{round_}")
                wall = timed(partial(ralph_verify, "fleet", "--matrix", "packages/*",
                                     "--executor", "dask", "-j", "1", *common, cwd=repo))
                results.setdefault("fleet --executor dask -j 1 (LocalCluster)", []).append(wall)
                overheads.setdefault("Dask", []).append(overhead(repo, wall, options.loops))
    medians = {label: statistics.median(times) for label, times in results.items()}
    print(f"{options.loops} loops, median of {options.repeat}:")
    for label, value in medians.items():
        print(f"  {label:<45} {value:7.2f} s")
    hand = medians["by hand, one after another"]
    print(f"  speed-up of fleet -j 2 over by hand:           {hand / medians['fleet -j 2']:.2f}x")
    for label, values in overheads.items():
        print(f"  the fleet's own overhead per loop, {label + ':':<7}        "
              f"{statistics.median(values):.2f} s")
    print(f"  (fleet -j 1 - by hand) / loops, cruder:        "
          f"{(medians['fleet -j 1'] - hand) / options.loops:.2f} s")
    print(f"  load average before / after: {load_before} / {_load()}")
    return 0


def _load() -> str:
    """The 1-minute load average: the machine's business while this ran."""
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "unknown"


if __name__ == "__main__":
    raise SystemExit(main())
