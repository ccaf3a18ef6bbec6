"""Wall time of ``ralph-verify check`` against running the same tools by hand, in sequence.

Usage::

    python benchmarks/bench_check.py [--project boltons==26.2.0] [--repeat 3]

Downloads the project's sdist from PyPI into ``~/.cache/ralph-verify-bench/`` (once),
then, ``--repeat`` times each, with caches (.mypy_cache, .ruff_cache,
.pytest_cache, coverage data) removed before every run so both sides do the
same work from cold:

* by hand: ``coverage run -m pytest --junitxml`` then ``coverage json``,
  ``ruff check --output-format json``, ``mypy -O json`` — one after another,
  as a person or a naive script would;
* ``ralph-verify check --until tests,lint,types,coverage>=0`` (one pytest run
  feeds tests and coverage; the pytest run, ruff and mypy overlap).

Prints the median wall time of each side, the ratio, and ralph-verify's peak
memory (RSS of the ralph-verify process itself, without the tools it runs).
Run it by hand; it is not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

#: Outside any repository: ruff and mypy look for their configuration in parent folders,
#: so a project unpacked inside this checkout would be checked with our settings.
WORK = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ralph-verify-bench"
CACHES = (".mypy_cache", ".ruff_cache", ".pytest_cache", ".coverage")


def fetch(requirement: str) -> Path:
    """Download and unpack the sdist of ``requirement``; return the project folder."""
    name = requirement.split("==")[0]
    WORK.mkdir(parents=True, exist_ok=True)
    existing = sorted(p for p in WORK.iterdir() if p.is_dir() and p.name.startswith(f"{name}-"))
    if existing and "==" not in requirement:
        return existing[-1]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary",
                        ":all:", "-q", "-d", tmp, requirement], check=True)
        (archive,) = Path(tmp).glob("*.tar.gz")
        with tarfile.open(archive) as tar:
            tar.extractall(WORK, filter="data")
        folder = WORK / archive.name.removesuffix(".tar.gz")
    return folder


#: ralph-verify's own caches (bytecode prefix, mypy) for the benchmark, kept apart from yours.
RALPH_CACHE = WORK / "ralph-verify-cache"


def clean(project: Path) -> None:
    """Cold project caches for both sides: the tools' caches in the project, its bytecode,
    and ralph-verify's mypy cache. Interpreter and site-packages bytecode stay warm."""
    shutil.rmtree(RALPH_CACHE / "mypy", ignore_errors=True)
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


def by_hand(project: Path, out: Path) -> float:
    started = time.perf_counter()
    py = sys.executable
    commands = [
        [py, "-m", "coverage", "run", f"--data-file={out}/cov", "-m", "pytest", "-q",
         f"--junitxml={out}/junit.xml"],
        [py, "-m", "coverage", "json", f"--data-file={out}/cov", "-o", f"{out}/cov.json"],
        [tool("ruff"), "check", "--output-format", "json", "--no-fix"],
        [py, "-m", "mypy", "-O", "json", "."],
    ]
    for command in commands:
        subprocess.run(command, cwd=project, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def with_ralph(project: Path) -> tuple[float, dict[str, object]]:
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE, "check", "--until", "tests,lint,types,coverage>=0",
         "--root", str(project), "--json"],
        capture_output=True, text=True, check=False,
        env={**os.environ, "RALPH_VERIFY_CACHE_DIR": str(RALPH_CACHE)},
    )
    elapsed = time.perf_counter() - started
    lines = proc.stdout.splitlines()
    rss = int(lines[-1]) if lines and lines[-1].isdigit() else -1
    data = json.loads("\n".join(lines[:-1]))
    data["_peak_rss_kib"] = rss
    return elapsed, data


# Runs ralph-verify in-process and prints its own peak RSS (not its children's) last.
_MEASURE = """
import resource, sys
from ralph_verify.session import main
code = main(sys.argv[1:])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--project", default="boltons==26.2.0",
                        help="a PyPI requirement whose sdist ships its tests")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    project = fetch(args.project)
    print(f"project: {project.name} ({project})")
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    hand, ralph = [], []
    last: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.repeat):
            clean(project)
            hand.append(by_hand(project, Path(tmp)))
            clean(project)
            elapsed, last = with_ralph(project)
            ralph.append(elapsed)
            print(f"  round {round_ + 1}: by hand {hand[-1]:.2f}s, ralph-verify {ralph[-1]:.2f}s")
    clean(project)
    h, r = statistics.median(hand), statistics.median(ralph)
    print(f"median by hand (sequential): {h:.2f}s")
    print(f"median ralph-verify check:   {r:.2f}s")
    print(f"ratio ralph-verify / by hand: {r / h:.2f}")
    print(f"ralph-verify peak RSS (own process): {int(last['_peak_rss_kib']) / 1024:.1f} MiB")
    checks = last.get("checks", [])
    assert isinstance(checks, list)
    for check in checks:
        print(f"  {check['spec']:<12} {check['status']:<7} {check['summary'][:70]} "
              f"({check['duration_s']:.2f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
