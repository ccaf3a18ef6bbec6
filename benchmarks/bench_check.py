"""The benchmark: ``ralph-verify check`` against the same tools by hand, on real projects.

Usage::

    python benchmarks/bench_check.py                      # 3 projects, 5 rounds, everything
    python benchmarks/bench_check.py --project more-itertools --scenario changed  # a 4th
    python benchmarks/bench_check.py --rounds 1 --project cachetools --scenario warm

Downloads each project's sdist from PyPI into ``~/.cache/ralph-verify-bench/`` (once) and
gives it a virtualenv of its own there that sees this interpreter's pytest, coverage, mypy and
ruff (a ``.pth`` file: the same tool versions on both sides, no download). Then, interleaved
round after round (``--rounds``, 5 by default), it times on each project:

* ``cold``: every cache of the project cleared first (tool caches, project bytecode,
  ralph-verify's caches): by hand, in sequence, ``coverage run -m pytest --junitxml``,
  ``coverage json``, ``ruff check --output-format json``, ``mypy -O json .``; against
  ``ralph-verify check --until tests,lint,types,coverage>=0``;
* ``warm``: the same again, caches kept (``check --no-cache``: the tools really run, with
  their caches and ours warm);
* ``reverify``: ``check`` twice more on the unchanged tree, the cache on: the first stores
  the results, the second, timed, is the verification cache's answer;
* ``chain``: the slowest chain alone, ``coverage run -m pytest`` + ``coverage json``;
* ``changed``: one loop iteration that changed one function's body so that some tests fail,
  ``tests.select = "affected"`` against ``"all"`` (``bench_affected.iteration``: the loop's
  own time of the tests check in that iteration).

Prints, per round, each figure; at the end a Markdown table (min and median per scenario and
project, and the ratios) ready to paste, with the machine and the load. Run it by hand; it
is not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_projects import WORK, fetch, prepare  # the module beside this one

CACHES = (".mypy_cache", ".ruff_cache", ".pytest_cache", ".coverage", ".ralph")
#: ralph-verify's own caches (bytecode prefix, mypy, verifications) for the benchmark.
RALPH_CACHE = WORK / "ralph-verify-cache"
FULL = "tests,lint,types,coverage>=0"


#: The projects, in the order of the table; the change each ``changed`` iteration makes is
#: ``bench_affected.CHANGES[requirement]`` (a function's body).
PROJECTS = ("boltons==26.2.0", "click==8.5.1", "cachetools==8.0.1")
#: Also at hand with ``--project`` (not by default: its ~21,000 subtests take 2-3 minutes
#: under coverage on a small machine, about 20 minutes a round).
MORE = ("more-itertools==11.2.1",)

SCENARIOS = ("cold", "warm", "reverify", "chain", "changed")
#: Row label -> what is timed; the order of the table.
ROWS = {
    "hand cold": "the four tools by hand, in sequence, caches cold",
    "check cold": "`ralph-verify check --until tests,lint,types,coverage>=0`, caches cold",
    "hand warm": "the four tools by hand, caches warm",
    "check warm": "the same check, caches warm",
    "re-verify": "`check` again on the unchanged tree",
    "chain": "the slowest chain alone: `coverage run -m pytest` + `coverage json`",
    "changed all": "one iteration that changed one module: its tests check, full suite",
    "changed affected": "the same iteration, affected tests first (`tests.select`)",
}
RATIOS = (("check warm", "hand warm"), ("check cold", "hand cold"), ("check warm", "chain"),
          ("changed all", "changed affected"))


def clean(project: Path) -> None:
    """Cold project caches for both sides: the tools' caches in the project, its bytecode,
    and ralph-verify's caches. Interpreter and site-packages bytecode stay warm."""
    shutil.rmtree(RALPH_CACHE, ignore_errors=True)
    for pycache in project.rglob("__pycache__"):
        shutil.rmtree(pycache, ignore_errors=True)
    for name in CACHES:
        target = project / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    for data in project.glob(".coverage.*"):
        data.unlink()


def tool(name: str) -> str:
    path = Path(sys.executable).parent / name
    return str(path) if path.exists() else name


def by_hand(project: Path, python: str, out: Path, *, chain_only: bool = False) -> float:
    started = time.perf_counter()
    commands = [
        [python, "-m", "coverage", "run", f"--data-file={out}/cov", "-m", "pytest", "-q",
         f"--junitxml={out}/junit.xml"],
        [python, "-m", "coverage", "json", f"--data-file={out}/cov", "-o", f"{out}/cov.json"],
    ]
    if not chain_only:
        commands += [[tool("ruff"), "check", "--output-format", "json", "--no-fix"],
                     [python, "-m", "mypy", "-O", "json", "."]]
    for command in commands:
        subprocess.run(command, cwd=project, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def check(project: Path, python: str, *extra: str) -> tuple[float, dict[str, Any]]:
    """Wall time of one ``ralph-verify check`` (a process of its own) and its ``--json``."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "ralph_verify", "check", "--until", FULL, "--root", str(project),
         "--python", python, "--json", *extra],
        capture_output=True, text=True, check=False,
        env={**os.environ, "RALPH_VERIFY_CACHE_DIR": str(RALPH_CACHE)})
    elapsed = time.perf_counter() - started
    try:
        data: dict[str, Any] = json.loads(proc.stdout)
    except ValueError:
        raise SystemExit(f"check on {project.name} printed no JSON (exit {proc.returncode}): "
                         f"{proc.stderr.strip()[-500:]}") from None
    return elapsed, data


def changed(requirement: str, folder: Path, python: str, select: str,
            work: Path) -> float | None:
    """One loop iteration that changed one function's body: the loop's time of its tests
    check (None, and why printed, when the loop ran no iteration)."""
    from bench_affected import CHANGES, iteration  # the script beside this one

    try:
        row = iteration(folder, python, CHANGES[requirement], select, work)
    except SystemExit as exc:
        print(f"{folder.name} changed {select}: {str(exc)[-300:]}", flush=True)
        return None
    return float(row["iteration_tests_s"])


def one_round(project: str, folder: Path, python: str, scenarios: set[str], out: Path,
              times: dict[str, list[float]], last: dict[str, Any]) -> None:
    def timed(label: str, run: Callable[[], float]) -> None:
        times[label].append(run())

    def checked(label: str, *extra: str) -> float:
        elapsed, last[label] = check(folder, python, *extra)
        return elapsed

    if "cold" in scenarios:
        clean(folder)
        timed("hand cold", lambda: by_hand(folder, python, out))
        clean(folder)
        timed("check cold", lambda: checked("check cold", "--no-cache"))
    if scenarios & {"warm", "reverify"}:
        timed("hand warm", lambda: by_hand(folder, python, out))
        timed("check warm", lambda: checked("check warm", "--no-cache"))
    if "reverify" in scenarios:
        checked("re-verify")  # stores the results (--no-cache above neither reads nor stores)
        timed("re-verify", lambda: checked("re-verify"))
    if "chain" in scenarios:
        timed("chain", lambda: by_hand(folder, python, out, chain_only=True))
    if "changed" in scenarios:
        for select in ("affected", "all"):
            elapsed = changed(project, folder, python, select, out)
            if elapsed is not None:
                times[f"changed {select}"].append(elapsed)


def cell(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{min(values):.2f} / {statistics.median(values):.2f}"


def ratio(times: dict[str, list[float]], a: str, b: str) -> str:
    if not times[a] or not times[b]:
        return "-"
    return f"{statistics.median(times[a]) / statistics.median(times[b]):.2f}"


def table(names: list[str], times: dict[str, dict[str, list[float]]], rounds: int) -> str:
    """The Markdown table: seconds min / median per scenario and project, then the ratios."""
    lines = [f"| seconds, min / median of {rounds} | {' | '.join(names)} |",
             "| --- |" + " --- |" * len(names)]
    for label in ROWS:
        if any(times[name][label] for name in names):
            lines.append(f"| {label} | " + " | ".join(cell(times[name][label])
                                                     for name in names) + " |")
    for a, b in RATIOS:
        if any(times[name][a] and times[name][b] for name in names):
            lines.append(f"| **{a} / {b}** (medians) | "
                         + " | ".join(ratio(times[name], a, b) for name in names) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--project", action="append", metavar="NAME",
                        help="only this project (repeatable): "
                             + ", ".join(p.split("==")[0] for p in PROJECTS + MORE)
                             + " (default: all but the last)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--scenario", action="append", choices=SCENARIOS,
                        help="only this scenario (repeatable; default: all)")
    args = parser.parse_args()
    wanted = set(args.project or [])
    projects = [p for p in PROJECTS + MORE
                if p.split("==")[0] in wanted or (not wanted and p in PROJECTS)]
    if not projects:
        parser.error(f"no such project: {', '.join(sorted(wanted))}")
    scenarios = set(args.scenario or SCENARIOS)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{sys.version.split()[0]}, load {os.getloadavg()[0]:.1f} at start", flush=True)
    folders = {p: fetch(p) for p in projects}
    pythons = {p: prepare(folders[p]) for p in projects}
    names = [folders[p].name for p in projects]
    times: dict[str, dict[str, list[float]]] = {name: {label: [] for label in ROWS}
                                                for name in names}
    last: dict[str, dict[str, Any]] = {name: {} for name in names}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            for project, name in zip(projects, names, strict=True):  # interleaved
                one_round(project, folders[project], pythons[project],
                          scenarios, Path(tmp), times[name], last[name])
                print(f"round {round_ + 1} {name}: " + ", ".join(
                    f"{label} {values[-1]:.2f}" for label, values in times[name].items()
                    if values), flush=True)
    for project in projects:
        clean(folders[project])
    print()
    for name in names:
        for label in ("check warm", "re-verify"):
            for result in last[name].get(label, {}).get("checks", []):
                print(f"{name} {label}: {result['spec']} {result['status']} "
                      f"{result['summary'][:70]} ({result['duration_s']:.2f}s)")
    load = os.getloadavg()[0]
    print(f"\n{platform.machine()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}; "
          f"load {load:.1f} at the end\n")
    print(table(names, times, args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
