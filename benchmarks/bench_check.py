"""The benchmark: ``ralph-verify check`` against the same tools started by hand, on real projects.

Usage::

    python benchmarks/bench_check.py                      # 6 projects, 3 rounds, everything
    python benchmarks/bench_check.py --rounds 1 --project cachetools --scenario warm
    python benchmarks/bench_check.py --project click --scenario changed

Downloads each project's sdist from PyPI into ``~/.cache/ralph-verify-bench/`` (once) and
gives it a virtualenv of its own there that sees this interpreter's pytest, mypy and ruff (a
``.pth`` file: the same tool versions on both sides, no download; a suite's own test
dependencies, such as attrs' hypothesis, go into that virtualenv). Then, interleaved round
after round (``--rounds``, 3 by default; the order of the sides alternates), it times on each
project, wall clock and CPU (the process and all it waited for):

* ``cold``: every cache of the project cleared before each side (tool caches, project
  bytecode, ralph-verify's caches);
* ``warm``: the same again, caches kept (``check --no-cache``: the tools really run);

each with three sides: ``ralph-verify check --until tests,lint,types``; the same three tools
**started in parallel by hand** (``sh -c 'setsid -w pytest & setsid -w ruff & setsid -w mypy
& wait'``: each in its own session, as ralph-verify starts each tool); and the three one
after another (``;`` instead of ``&``). Besides:

* ``reverify``: ``check`` twice more on the unchanged tree, the cache on: the first stores
  the results, the second, timed, is the verification cache's answer;
* ``changed``: one loop iteration that changed one function's body so that some tests fail,
  ``tests.select = "affected"`` against ``"all"`` (``bench_affected.iteration``: the loop's
  own time of the tests check in that iteration).

Prints, per round, each figure; at the end the machine, the load, and Markdown tables (wall
and CPU: min / median / max per side and project, and the ratios of check to the parallel
tools, pair by pair) ready to paste. ``--json FILE`` keeps every figure. Run it by hand; it is
not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_projects import WORK, fetch, prepare  # the module beside this one

CACHES = (".mypy_cache", ".ruff_cache", ".pytest_cache", ".coverage", ".ralph")
#: ralph-verify's own caches (bytecode prefix, mypy, verifications) for the benchmark.
RALPH_CACHE = WORK / "ralph-verify-cache"
FULL = "tests,lint,types"

#: The projects, in the order of the table; the change each ``changed`` iteration makes is
#: ``bench_affected.CHANGES[requirement]`` (a function's body).
PROJECTS = ("boltons==26.2.0", "click==8.5.1", "cachetools==8.0.1", "attrs==26.1.0",
            "packaging==26.4", "more-itertools==11.2.1")

SCENARIOS = ("cold", "warm", "reverify", "changed")
SIDES = ("check", "parallel", "sequential")
#: Row label -> what is timed; the order of the table.
ROWS = {
    **{f"{side} {temp}": what for temp in ("cold", "warm") for side, what in (
        ("check", "`ralph-verify check --until tests,lint,types`"),
        ("parallel", "pytest, ruff and mypy started in parallel by hand"),
        ("sequential", "pytest, ruff and mypy one after another"))},
    "re-verify": "`check` again on the unchanged tree",
    "changed all": "one iteration that changed one module: its tests check, full suite",
    "changed affected": "the same iteration, affected tests first (`tests.select`)",
}
#: Ratios of paired runs (the same round): check / parallel and check / sequential.
RATIOS = (("check warm", "parallel warm"), ("check cold", "parallel cold"),
          ("check warm", "sequential warm"), ("check cold", "sequential cold"))


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


def timed_run(argv: list[str], **kwargs: Any) -> tuple[
        float, float, subprocess.CompletedProcess[str]]:
    """Wall and CPU seconds (user + system of the process and every process it waited for,
    and they for theirs) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(argv, check=False, text=True, **kwargs)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc


def by_hand(project: Path, python: str, joiner: str) -> tuple[float, float]:
    """The three tools by hand, each in its own session (``setsid -w``), joined by ``&`` (then
    ``wait``) or ``;``: wall and CPU seconds."""
    import shlex

    # Each in the machine format ralph-verify asks for: JSON from ruff and mypy; pytest's
    # results come from our recorder, and it writes no JUnit XML while that reports.
    commands = [
        [python, "-m", "pytest"],
        [tool("ruff"), "check", "--output-format", "json", "--no-fix"],
        [python, "-m", "mypy", "-O", "json", "."],
    ]
    script = f" {joiner} ".join("setsid -w " + shlex.join(c) + " >/dev/null 2>&1"
                                for c in commands)
    if joiner == "&":
        script += " & wait"
    wall, cpu, _ = timed_run(["sh", "-c", script], cwd=project)
    return wall, cpu


def check(project: Path, python: str, *extra: str) -> tuple[float, float, dict[str, Any]]:
    """Wall and CPU seconds of one ``ralph-verify check`` (a process of its own), its ``--json``.

    Run as a user runs it: the console script, in the project's folder."""
    script = Path(sys.executable).parent / "ralph-verify"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "ralph_verify"]
    wall, cpu, proc = timed_run(
        [*command, "check", "--until", FULL, "--python", python, "--json", *extra],
        cwd=project, capture_output=True,
        env={**os.environ, "RALPH_VERIFY_CACHE_DIR": str(RALPH_CACHE)})
    try:
        data: dict[str, Any] = json.loads(proc.stdout)
    except ValueError:
        raise SystemExit(f"check on {project.name} printed no JSON (exit {proc.returncode}): "
                         f"{proc.stderr.strip()[-500:]}") from None
    return wall, cpu, data


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


Figures = dict[str, list[tuple[float, float]]]


def one_round(project: str, folder: Path, python: str, scenarios: set[str], out: Path,
              times: Figures, last: dict[str, Any], flip: bool) -> None:
    def side(label: str, temp: str) -> None:
        if temp == "cold":
            clean(folder)
        if label == "check":
            wall, cpu, last[f"check {temp}"] = check(folder, python, "--no-cache")
        else:
            wall, cpu = by_hand(folder, python, "&" if label == "parallel" else ";")
        times[f"{label} {temp}"].append((wall, cpu))

    order = SIDES[::-1] if flip else SIDES
    if "cold" in scenarios:
        for label in order:
            side(label, "cold")
    if scenarios & {"warm", "reverify"}:
        # Each cold side cleared the others' caches: warm, uncounted, those the last one did
        # not leave warm (ralph-verify's, or the tools' own in the project).
        warmups = ["check", "parallel"] if "cold" not in scenarios else [
            "parallel" if order[-1] == "check" else "check"]
        for label in warmups:
            side(label, "warm")
            times[f"{label} warm"].pop()
        for label in order:
            side(label, "warm")
    if "reverify" in scenarios:
        check(folder, python)  # stores the results (--no-cache neither reads nor stores)
        wall, cpu, last["re-verify"] = check(folder, python)
        times["re-verify"].append((wall, cpu))
    if "changed" in scenarios:
        for select in ("affected", "all"):
            elapsed = changed(project, folder, python, select, out)
            if elapsed is not None:
                times[f"changed {select}"].append((elapsed, float("nan")))


def cell(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def paired(times: Figures, a: str, b: str, which: int) -> str:
    """Ratios a / b of the same rounds: min / median / max."""
    pairs = [x[which] / y[which] for x, y in zip(times[a], times[b], strict=False) if y[which]]
    return cell(pairs) if pairs else "-"


def table(names: list[str], times: dict[str, Figures], rounds: int, which: int) -> str:
    """The Markdown table of wall (``which`` 0) or CPU (1) seconds, then the paired ratios."""
    unit = ("wall", "CPU")[which]
    lines = [f"| {unit} s, min / median / max of {rounds} | {' | '.join(names)} |",
             "| --- |" + " --- |" * len(names)]
    for label in ROWS:
        if which and label.startswith("changed"):
            continue
        if any(times[name][label] for name in names):
            lines.append(f"| {label} | " + " | ".join(
                cell([v[which] for v in times[name][label]]) for name in names) + " |")
    for a, b in RATIOS:
        if any(times[name][a] and times[name][b] for name in names):
            lines.append(f"| **{a} / {b}** (paired) | "
                         + " | ".join(paired(times[name], a, b, which) for name in names) + " |")
    if not which and any(times[n]["changed all"] and times[n]["changed affected"] for n in names):
        lines.append("| **changed all / changed affected** (paired) | " + " | ".join(
            paired(times[n], "changed all", "changed affected", 0) for n in names) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--project", action="append", metavar="NAME",
                        help="only this project (repeatable): "
                             + ", ".join(p.split("==")[0] for p in PROJECTS)
                             + " (default: all)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--scenario", action="append", choices=SCENARIOS,
                        help="only this scenario (repeatable; default: all)")
    parser.add_argument("--json", metavar="FILE", help="keep every figure in FILE")
    args = parser.parse_args()
    wanted = set(args.project or [])
    projects = [p for p in PROJECTS if not wanted or p.split("==")[0] in wanted]
    if not projects:
        parser.error(f"no such project: {', '.join(sorted(wanted))}")
    scenarios = set(args.scenario or SCENARIOS)
    # As on a user's machine (this one sets it): the tools and ralph-verify keep bytecode.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{sys.version.split()[0]}, load {os.getloadavg()[0]:.1f} at start", flush=True)
    folders = {p: fetch(p) for p in projects}
    pythons = {p: prepare(folders[p]) for p in projects}
    names = [folders[p].name for p in projects]
    times: dict[str, Figures] = {name: {label: [] for label in ROWS} for name in names}
    last: dict[str, dict[str, Any]] = {name: {} for name in names}
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            for project, name in zip(projects, names, strict=True):  # interleaved
                one_round(project, folders[project], pythons[project],
                          scenarios, Path(tmp), times[name], last[name], bool(round_ % 2))
                loads.append(os.getloadavg()[0])
                print(f"round {round_ + 1} {name} (load {loads[-1]:.1f}): " + ", ".join(
                    f"{label} {values[-1][0]:.2f}/{values[-1][1]:.2f}"
                    for label, values in times[name].items() if values), flush=True)
    for project in projects:
        clean(folders[project])
    print()
    for name in names:
        for label in ("check warm", "re-verify"):
            for result in last[name].get(label, {}).get("checks", []):
                print(f"{name} {label}: {result['spec']} {result['status']} "
                      f"{result['summary'][:70]} ({result['duration_s']:.2f}s)")
    print(f"\n{platform.machine()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}; "
          f"load (1-minute average) {min(loads):.1f} to {max(loads):.1f}, "
          f"median {statistics.median(loads):.1f}\n")
    print(table(names, times, args.rounds, 0))
    print()
    print(table(names, times, args.rounds, 1))
    if args.json:
        Path(args.json).write_text(json.dumps({"loads": loads, "times": times}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
