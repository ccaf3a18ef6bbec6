"""Synthetic scale: ``ralph-verify check --until tests`` against ``pytest`` (and with JUnit).

Usage::

    python benchmarks/bench_scale.py                 # 1k 5k 20k 50k x 0% 1% 10% 100%, 3 pairs
    python benchmarks/bench_scale.py --quick         # 1k and 5k, 0% and 100%, 1 pair
    python benchmarks/bench_scale.py --tests 20000 --fail 100 --pairs 3
    python benchmarks/bench_scale.py --row 20000:10 --row 20000:100 --limit 3600

Generates suites of N tests (files of 100 tests each, under
``~/.cache/ralph-verify-bench/scale/``) of which a given share fails, each failure an
``assert`` comparing two values with a message of its own, as a migration breaks them. For
every suite it runs three sides in rounds (the order turning from round to round):

* junit: ``python -m pytest --junitxml=junit.xml -o junit_family=xunit1``, issue 24's
  yardstick, from when ralph-verify had pytest write JUnit XML at every run;
* plain: ``python -m pytest``, what ralph-verify's run does short of its own plugin (pytest
  writes JUnit XML only when the plugin does not report), and what a user types;
* check: ``python -m ralph_verify check --until tests --no-cache`` (its cache off: the
  tests really run).

``PYTHONDONTWRITEBYTECODE`` is unset for both sides, as on a user's machine (with it set,
every run compiles ralph-verify, and both sides rewrite every test file, again). Before the
pairs, ``--warmups`` runs of each side (1 by default) with ``PYTEST_ADDOPTS=--collect-only``
write the bytecode both keep between runs (pytest's ``__pycache__`` of the rewritten tests,
ralph-verify's own prefix and probes) at the price of a collection, not of a whole run.

Each run is its own process, reaped with ``os.wait4``: wall time, CPU (user + system,
the process and the processes it waited for) and peak RSS (the largest of them). It prints,
per suite, each figure's ratio check/junit and check/plain as min / median / max over the
rounds (each round's check against the same round's other sides), and the
machine and its load; on a shared machine quote CPU, which load moves least. A run that
passes ``--limit`` seconds is killed and marked as not finished.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

WORK = Path.home() / ".cache" / "ralph-verify-bench" / "scale"
SIZES = (1_000, 5_000, 20_000, 50_000)
RATES = (0, 1, 10, 100)
SIDES = ("junit", "plain", "check")
PER_FILE = 100
PYPROJECT = ('[project]\nname = "scale"\nversion = "0"\n\n[tool.pytest.ini_options]\n'
             'pythonpath = ["."]\ntestpaths = ["tests"]\n')
MODULE = '''\
"""What the tests test: a record, a parser, a rule."""


def parse(text):
    key, _, value = text.partition("=")
    return {"key": key.strip(), "value": value.strip()}


def score(values):
    return sum(v * v for v in values) % 97
'''


def failing(index: int, rate: int) -> bool:
    """Test ``index`` fails at ``rate`` percent: spread evenly through the suite."""
    return rate > 0 and (index * rate) // 100 != ((index + 1) * rate) // 100


def test_source(first: int, count: int, rate: int) -> str:
    lines = ["from app import parse, score\n"]
    for index in range(first, first + count):
        wanted = -1 if failing(index, rate) else (index * index) % 97
        lines.append(
            f"\n\ndef test_case_{index}():\n"
            f"    record = parse('k{index} = v{index}')\n"
            f"    assert record['key'] == 'k{index}'\n"
            f"    assert score([{index}]) == {wanted}, 'score of {index}: ' + record['value']\n")
    return "".join(lines)


def suite(size: int, rate: int, per_file: int = PER_FILE) -> Path:
    """The project with ``size`` tests, ``rate`` percent failing (built once)."""
    root = WORK / (f"n{size}-f{rate}" + (f"-p{per_file}" if per_file != PER_FILE else ""))
    done = root / ".built"
    if done.exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "app.py").write_text(MODULE)
    for first in range(0, size, per_file):
        (root / "tests" / f"test_part_{first // per_file:05d}.py").write_text(
            test_source(first, min(per_file, size - first), rate))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".gitignore").write_text(".ralph/\n.pytest_cache/\n__pycache__/\njunit.xml\n")
    done.write_text("")
    return root


@dataclass
class Figures:
    wall: float
    cpu: float
    rss_mib: float
    finished: bool


def measure(argv: list[str], cwd: Path, limit: float, env: dict[str, str]) -> Figures:
    """One run as its own process (group): wall, CPU and peak RSS of it and its children."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    finished = True
    deadline = start + limit
    while True:
        pid, _status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            finished = False
            pid, _status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.02)
    proc.returncode = 0  # reaped above; "finished" means it ended before ``limit``
    wall = time.perf_counter() - start
    return Figures(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, finished)


def commands(python: str) -> dict[str, list[str]]:
    return {"junit": [python, "-m", "pytest", "--junitxml=junit.xml", "-o",
                      "junit_family=xunit1"],
            "plain": [python, "-m", "pytest"],
            "check": [python, "-m", "ralph_verify", "check", "--until", "tests", "--no-cache",
                      "--timeout", "3600"]}


def chosen_rows(args: argparse.Namespace) -> list[tuple[int, int]]:
    """``--row SIZE:RATE`` as given, else every ``--tests`` with every ``--fail``."""
    if args.row:
        return list(args.row)
    sizes = args.tests or ([1_000, 5_000] if args.quick else list(SIZES))
    rates = args.fail or ([0, 100] if args.quick else list(RATES))
    return [(size, rate) for size in sizes for rate in rates]


def row_spec(text: str) -> tuple[int, int]:
    """``20000:100`` -> (20000, 100); a clear error otherwise."""
    size, sep, rate = text.partition(":")
    try:
        pair = (int(size.replace(",", "").replace("_", "")), int(rate.rstrip("%")))
    except ValueError:
        pair = (0, -1)
    if not sep or pair[0] < 1 or not 0 <= pair[1] <= 100:
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a row: give SIZE:PERCENT, e.g. 20000:100 (20,000 tests, all "
            "failing)")
    return pair


def ratios(rounds: list[dict[str, Figures]], name: str, base: str) -> str:
    values = [getattr(got["check"], name) / getattr(got[base], name) for got in rounds
              if getattr(got[base], name) > 0]
    if not values:
        return "-"
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def machine() -> str:
    load = os.getloadavg()
    return (f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, action="append", help="suite size (repeatable)")
    parser.add_argument("--fail", type=int, action="append", help="percent failing (repeatable)")
    parser.add_argument("--per-file", type=int, default=PER_FILE,
                        help="tests per file (pytest parses a failing test's whole file)")
    parser.add_argument("--row", type=row_spec, action="append", metavar="SIZE:PERCENT",
                        help="one suite to measure, e.g. 20000:100 (repeatable; instead of "
                             "--tests x --fail)")
    parser.add_argument("--warmups", type=int, default=1,
                        help="collect-only runs of each side before the pairs (bytecode)")
    parser.add_argument("--pairs", type=int, default=None,
                        help="rounds per suite (each runs the three sides)")
    parser.add_argument("--quick", action="store_true", help="1k and 5k, 0%% and 100%%, 1 pair")
    parser.add_argument("--limit", type=float, default=600.0,
                        help="wall seconds before a run (of either side) is killed and its row "
                             "marked as not finished")
    parser.add_argument("--python", default=sys.executable, help="the interpreter of both sides")
    parser.add_argument("--ralph-verify", metavar="CHECKOUT",
                        help="measure the ralph-verify of this checkout (PYTHONPATH of the check "
                             "side), e.g. an older one for before/after")
    args = parser.parse_args(argv)
    pairs = args.pairs or (1 if args.quick else 3)
    env = {**os.environ, "RALPH_VERIFY_CACHE_DIR": str(WORK / "ralph-verify-cache")}
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as on a user's machine: bytecode is kept
    argvs = commands(args.python)
    envs = {"junit": env, "plain": env, "check": dict(env)}
    if args.ralph_verify:
        envs["check"]["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(Path(args.ralph_verify).resolve()), env.get("PYTHONPATH")) if p)
    print(f"# {machine()}", flush=True)
    rows = []
    for size, rate in chosen_rows(args):
        root = suite(size, rate, args.per_file)
        for _ in range(args.warmups):  # bytecode of both sides, ralph-verify's probes
            for side in SIDES:
                measure(argvs[side], root, args.limit,
                        {**envs[side], "PYTEST_ADDOPTS": "--collect-only"})
        runs: list[dict[str, Figures]] = []
        for index in range(pairs):
            order = SIDES[index % 3:] + SIDES[:index % 3]
            got = {side: measure(argvs[side], root, args.limit, envs[side]) for side in order}
            runs.append(got)
            print(f"{size:>6} tests {rate:>3}% failing  " + " | ".join(
                f"{side} {got[side].wall:6.2f}s {got[side].cpu:6.2f} cpu "
                f"{got[side].rss_mib:4.0f} MiB" for side in SIDES)
                + ("" if all(f.finished for f in got.values()) else "  (killed at --limit)"),
                flush=True)
        rows.append((size, rate, runs))
    print(f"\n# {machine()}")
    print("| tests | failing | junit CPU s | plain CPU s | wall / junit | CPU / junit | "
          "CPU / plain | peak RSS / junit |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for size, rate, runs in rows:
        cpu = {side: statistics.median(got[side].cpu for got in runs) for side in SIDES}
        unfinished = "" if all(f.finished for got in runs for f in got.values()) else " (killed)"
        print(f"| {size:,} | {rate}% | {cpu['junit']:.2f} | {cpu['plain']:.2f} | "
              f"{ratios(runs, 'wall', 'junit')}{unfinished} | {ratios(runs, 'cpu', 'junit')} | "
              f"{ratios(runs, 'cpu', 'plain')} | {ratios(runs, 'rss_mib', 'junit')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
