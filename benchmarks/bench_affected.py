"""A loop iteration that changed one module: affected tests first against the full suite.

Usage::

    python benchmarks/bench_affected.py [--project more-itertools==11.2.1] [--rounds 1]
    python benchmarks/bench_affected.py --recording [--project click==8.5.1] [--rounds 5]

(``--project``: one of :data:`CHANGES`.) For the benchmark command (``bench_check.py``)
to call, with the project it fetched and the virtualenv it prepared: :func:`iteration` runs
``ralph-verify run`` with a ``cmd:`` agent that edits one module (:class:`Change`),
on a copy of the project whose ``[tool.ralph-verify.checks.tests]`` sets ``select``,
for one iteration, and returns what the loop recorded: the wall time of the tests
check in the baseline (the full run that also records the map, with
``select = "affected"``) and in the iteration (the partial run when the affected
tests fail, else the full suite). Those are the loop's own figures (``duration_s``
in ``.ralph/``), so the baseline, the same for both sides, does not dilute them.

``--recording`` (:func:`recording`) measures only what recording the map costs: the CPU
time of plain ``pytest`` in the project against pytest with ralph-verify's recorder (what
every run of the tests check loads), with the recorder and the plugin that records the map
(``RALPH_VERIFY_DEPS=1``: ``sys.monitoring`` from Python 3.12, cProfile before), and with
the call profiler instead (``RALPH_VERIFY_DEPS=profile``), in turn, after one uncounted
round that fills every side's bytecode caches.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Change:
    """One function's body changed so that some of the project's tests fail: ``broken``
    replaces the body line ``original`` before the loop starts (the baseline must fail, or
    the loop ends there), and the agent replaces ``broken`` with ``edited`` in its
    iteration: the affected tests still fail."""

    path: str
    broken: str
    edited: str
    original: str


#: Requirement -> a change of one function's body that some tests catch.
CHANGES = {
    # 765 tests (and ~21,000 subtests); recipes.py is one module of two, and more.py
    # imports it: nearly every test runs some of its code.
    "more-itertools==11.2.1": Change(
        "more_itertools/recipes.py", "    return -1 + sum(map(pred, iterable))\n",
        "    return 1 + sum(map(pred, iterable))\n", "    return sum(map(pred, iterable))\n"),
    "boltons==26.2.0": Change(
        "boltons/strutils.py", "    return newline.join(indented_lines[1:])\n",
        "    return newline.join(indented_lines[:-1])\n",
        "    return newline.join(indented_lines)\n"),
    # 2,434 tests; types.py's number ranges are described in help texts and reprs.
    "click==8.5.1": Change(
        "src/click/types.py", '        return f"{self.min}{lop}X{rop}{self.max}"\n',
        '        return f"{self.min}{lop} x{rop}{self.max}"\n',
        '        return f"{self.min}{lop}x{rop}{self.max}"\n'),
    "cachetools==8.0.1": Change(
        "src/cachetools/keys.py", "    return key + tuple(map(type, args[1:]))\n",
        "    return key + tuple(map(type, args[:-1]))\n",
        "    return key + tuple(map(type, args))\n"),
}
DEFAULT = "more-itertools==11.2.1"

_AGENT = """\
import pathlib, sys
path = pathlib.Path(sys.argv[1])
path.write_text(path.read_text().replace(sys.argv[3], sys.argv[2], 1))
"""


def iteration(project: Path, python: str, change: Change, select: str,
              work: Path, until: str = "tests") -> dict[str, Any]:
    """Baseline + one iteration of ``run`` on a copy of ``project``; the loop's figures."""
    copy = work / f"{project.name}-{select}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(project, copy, ignore=shutil.ignore_patterns(
        ".ralph", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"))
    module = copy / change.path
    text = module.read_text(encoding="utf-8")
    if change.original not in text:
        raise SystemExit(f"{change.path} has no line {change.original.strip()!r}")
    module.write_text(text.replace(change.original, change.broken, 1), encoding="utf-8")
    pyproject = copy / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8") if pyproject.exists() else ""
    pyproject.write_text(text + f'\n[tool.ralph-verify.checks.tests]\nselect = "{select}"\n',
                         encoding="utf-8")
    script = work / "agent.py"
    script.write_text(_AGENT, encoding="utf-8")
    agent = "cmd:" + shlex.join([sys.executable, str(script), change.path, change.edited,
                                 change.broken])
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "ralph_verify", "run", "--agent", agent, "--until", until,
         "--max-iterations", "1", "--python", python, "--no-integrity",
         "change one module"], cwd=copy, capture_output=True, text=True, check=False,
        env={**os.environ, "RALPH_VERIFY_CACHE_DIR": str(work / "ralph-verify-cache")})
    wall = time.perf_counter() - started
    history = copy / ".ralph/history.jsonl"
    lines = history.read_text().splitlines() if history.exists() else []
    if not lines:
        raise SystemExit(f"no iteration ran: {proc.stdout[-500:]}{proc.stderr[-500:]}")
    baseline = json.loads((copy / ".ralph/iterations/000/verification.json").read_text())
    tests = json.loads((copy / ".ralph/iterations/001/verification.json").read_text())[
        "checks"][0]
    return {"select": select, "wall_s": wall,
            "baseline_tests_s": baseline["checks"][0]["duration_s"],
            "iteration_tests_s": tests["duration_s"], "summary": tests["summary"],
            "partial": bool(tests["counts"].get("partial"))}


def recording(project: Path, python: str, rounds: int) -> dict[str, list[float]]:
    """CPU seconds of each side, per counted round (see the module docstring)."""
    from ralph_verify.recorder.sources import AFFECTED_PLUGIN_NAME, PLUGIN_NAME, write_sources

    sides: dict[str, dict[str, str]] = {"pytest": {}, "recorder": {"RALPH_VERIFY_DEPS": ""},
                                        "deps": {"RALPH_VERIFY_DEPS": "1"},
                                        "profile": {"RALPH_VERIFY_DEPS": "profile"}}
    cpu: dict[str, list[float]] = {side: [] for side in sides}
    with tempfile.TemporaryDirectory() as tmp:
        plugins = Path(tmp) / "plugins"
        plugins.mkdir()
        write_sources(plugins)
        for round_ in range(rounds + 1):
            for side, extra in sides.items():
                record = Path(tmp) / f"record-{side}-{round_}"
                record.mkdir()
                env = {**os.environ, **extra, "RALPH_VERIFY_RECORD_DIR": str(record),
                       "PYTHONPATH": os.pathsep.join(filter(None, [
                           str(plugins), os.environ.get("PYTHONPATH")]))}
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                ours = ([] if not extra else ["-p", PLUGIN_NAME] if side == "recorder" else
                        ["-p", PLUGIN_NAME, "-p", AFFECTED_PLUGIN_NAME])
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *ours],
                               cwd=project, env=env, capture_output=True, check=False)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                if round_:
                    cpu[side].append(used)
                    print(f"round {round_} {side}: {used:.2f} CPU-s", flush=True)
    return cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--project", default=DEFAULT, choices=sorted(CHANGES))
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--coverage", action="store_true",
                        help="--until 'tests,coverage>=0': the run under coverage")
    parser.add_argument("--recording", action="store_true",
                        help="only the CPU time of recording the map against plain pytest")
    args = parser.parse_args()
    until = "tests,coverage>=0" if args.coverage else "tests"
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_projects import fetch, prepare  # the module beside this one

    change = CHANGES[args.project]
    project = fetch(args.project)
    python = prepare(project)
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
          f"load {os.getloadavg()[0]:.1f} at start; change: {change.path}")
    if args.recording:
        cpu = recording(project, python, args.rounds)
        for side, base in (("recorder", "pytest"), ("deps", "pytest"), ("profile", "pytest"),
                           ("deps", "recorder")):
            ratios = sorted(a / b for a, b in zip(cpu[side], cpu[base], strict=True))
            print(f"{side} / {base}, CPU, paired: median {statistics.median(ratios):.3f} "
                  f"(min {ratios[0]:.3f}, max {ratios[-1]:.3f}); medians "
                  f"{statistics.median(cpu[side]):.2f} / "
                  f"{statistics.median(cpu[base]):.2f} CPU-s")
        print(f"load {os.getloadavg()[0]:.1f} at the end")
        return 0
    figures: dict[str, list[dict[str, Any]]] = {"affected": [], "all": []}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            for select in ("affected", "all"):  # interleaved
                row = iteration(project, python, change, select, Path(tmp), until)
                figures[select].append(row)
                print(f"round {round_ + 1} {select}: baseline tests "
                      f"{row['baseline_tests_s']:.1f} s, iteration tests "
                      f"{row['iteration_tests_s']:.1f} s ({row['summary'][:90]})", flush=True)
    for key in ("baseline_tests_s", "iteration_tests_s"):
        medians = {s: statistics.median(r[key] for r in rows) for s, rows in figures.items()}
        print(f"{key}: affected {medians['affected']:.1f} s, all {medians['all']:.1f} s, "
              f"all/affected {medians['all'] / medians['affected']:.2f}")
    both = {s: statistics.median(r["baseline_tests_s"] + r["iteration_tests_s"] for r in rows)
            for s, rows in figures.items()}
    print(f"baseline + first iteration: affected {both['affected']:.1f} s, all "
          f"{both['all']:.1f} s, all/affected {both['all'] / both['affected']:.2f}")
    print(f"load {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
