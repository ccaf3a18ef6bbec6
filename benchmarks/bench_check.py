"""Wall time of ``ralph-verify check`` against the same tools by hand, on real projects.

Usage::

    python benchmarks/bench_check.py [--project boltons==26.2.0 ...] [--rounds 5]

Downloads each project's sdist from PyPI into ``~/.cache/ralph-verify-bench/`` (once) and
gives it a virtualenv of its own there that sees this interpreter's pytest, coverage, mypy and
ruff (a ``.pth`` file: the same tool versions on both sides, no download). Then, interleaved
round after round (``--rounds``, at least 5), it times on each project:

* ``hand cold`` / ``check cold``: every cache of the project cleared first (tool caches,
  project bytecode, ralph-verify's bytecode prefix and mypy cache): by hand, in sequence,
  ``coverage run -m pytest --junitxml``, ``coverage json``, ``ruff check --output-format json``,
  ``mypy -O json .``; against ``ralph-verify check --until tests,lint,types,coverage>=0``;
* ``hand warm`` / ``check warm``: the same again, caches kept;
* ``chain``: the slowest chain alone, ``coverage run -m pytest`` + ``coverage json``;
* ``re-verify``: ``check`` again on the unchanged tree;
* ``changed full`` / ``changed affected``: one module changed so that some of its tests fail,
  then ``check --until tests`` (the whole suite) against ``--until tests.select=affected``
  (``--affected-spec``; printed as not available when this ralph-verify refuses it).

Prints min and median of each, the ratios, ralph-verify's per-check times, and the load.
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
import sysconfig
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
    and ralph-verify's caches. Interpreter and site-packages bytecode stay warm."""
    for name in ("mypy", "pycache", "verification"):
        shutil.rmtree(RALPH_CACHE / name, ignore_errors=True)
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


@dataclass(frozen=True)
class Change:
    """One module changed so that some of the project's tests fail (a loop iteration)."""

    path: str
    appended: str


#: The default projects (their sdists ship their tests) and the change made to each.
PROJECTS: dict[str, Change] = {
    "boltons==26.2.0": Change("boltons/strutils.py",
                              "\n\ndef slugify(*args, **kwargs):\n    return 'broken'\n"),
    "more-itertools==11.2.1": Change("more_itertools/more.py",
                                     "\n\ndef chunked(iterable, n, strict=False):\n"
                                     "    return iter([])\n"),
    "cachetools==8.0.1": Change("src/cachetools/keys.py",
                                "\n\ndef hashkey(*args, **kwargs):\n    return 0\n"),
}


def prepare(project: Path) -> str:
    """A virtualenv for ``project`` that sees our tools (and its ``src/``); its python."""
    venv = WORK / "envs" / project.name
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python*/site-packages"))
    paths = [sysconfig.get_path("purelib")]
    if (project / "src").is_dir():
        paths.insert(0, str(project / "src"))
    (site / "bench.pth").write_text("\n".join(paths) + "\n")
    return str(python)


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


FULL = "tests,lint,types,coverage>=0"


def with_ralph(project: Path, python: str, until: str = FULL) -> tuple[float, dict[str, Any]]:
    """Wall time of one ``check`` and its ``--json`` (``{}`` when it refused the spec)."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE, "check", "--until", until, "--root", str(project),
         "--python", python, "--json"],
        capture_output=True, text=True, check=False,
        env={**os.environ, "RALPH_VERIFY_CACHE_DIR": str(RALPH_CACHE)},
    )
    elapsed = time.perf_counter() - started
    lines = proc.stdout.splitlines()
    rss = int(lines[-1]) if lines and lines[-1].isdigit() else -1
    try:
        data: dict[str, Any] = json.loads("\n".join(lines[:-1]))
    except ValueError:
        return elapsed, {"_refused": proc.stderr.strip()[-300:]}
    data["_peak_rss_kib"] = rss
    return elapsed, data


# Runs ralph-verify in-process and prints its own peak RSS (not its children's) last.
_MEASURE = """
import resource, sys
from ralph_verify.session import main
code = main(sys.argv[1:])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

SCENARIOS = ("hand cold", "check cold", "hand warm", "check warm", "chain", "re-verify",
             "changed full", "changed affected")


def one_round(project: Path, python: str, change: Change, affected: str, out: Path,
              times: dict[str, list[float]], last: dict[str, dict[str, Any]]) -> None:
    clean(project)
    times["hand cold"].append(by_hand(project, python, out))
    clean(project)
    times["check cold"].append(with_ralph(project, python)[0])
    times["hand warm"].append(by_hand(project, python, out))
    elapsed, last["check warm"] = with_ralph(project, python)
    times["check warm"].append(elapsed)
    times["chain"].append(by_hand(project, python, out, chain_only=True))
    elapsed, last["re-verify"] = with_ralph(project, python)
    times["re-verify"].append(elapsed)
    if not change.path:
        return
    module = project / change.path
    original = module.read_bytes()
    try:
        module.write_bytes(original + change.appended.encode())
        elapsed, last["changed affected"] = with_ralph(project, python, affected)
        if "_refused" not in last["changed affected"]:
            times["changed affected"].append(elapsed)
        elapsed, last["changed full"] = with_ralph(project, python, "tests")
        times["changed full"].append(elapsed)
    finally:
        module.write_bytes(original)


def figures(values: list[float]) -> str:
    if not values:
        return "not available"
    return f"{min(values):.2f} / {statistics.median(values):.2f} s"


def ratio(times: dict[str, list[float]], a: str, b: str) -> str:
    if not times[a] or not times[b]:
        return "n/a"
    return f"{statistics.median(times[a]) / statistics.median(times[b]):.2f}"


def report(name: str, times: dict[str, list[float]], last: dict[str, dict[str, Any]]) -> None:
    print(f"\n## {name}: min / median of {len(times['check warm'])} rounds")
    for scenario in SCENARIOS:
        print(f"  {scenario:<17} {figures(times[scenario])}")
    print(f"  check warm / hand warm:          {ratio(times, 'check warm', 'hand warm')}")
    print(f"  check cold / hand cold:          {ratio(times, 'check cold', 'hand cold')}")
    print(f"  check warm / chain:              {ratio(times, 'check warm', 'chain')}")
    print(f"  changed full / changed affected: {ratio(times, 'changed full', 'changed affected')}")
    refused = last.get("changed affected", {}).get("_refused")
    if refused:
        print(f"  affected-first not available: {refused.splitlines()[-1][:160]}")
    for scenario in ("check warm", "re-verify", "changed full"):
        for check in last.get(scenario, {}).get("checks", []):
            print(f"    {scenario:<13} {check['spec']:<12} {check['status']:<7} "
                  f"{check['summary'][:60]} ({check['duration_s']:.2f}s)")
    rss = last.get("check warm", {}).get("_peak_rss_kib", -1)
    print(f"  ralph-verify peak RSS (own process): {int(rss) / 1024:.1f} MiB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--project", action="append",
                        help=f"a PyPI requirement whose sdist ships its tests (repeatable; "
                             f"default: {', '.join(PROJECTS)}); others get no changed module")
    parser.add_argument("--rounds", "--repeat", type=int, default=5)
    parser.add_argument("--affected-spec", default="tests.select=affected",
                        help="the --until spec of an affected-first run")
    args = parser.parse_args()
    requirements = args.project or list(PROJECTS)
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
          f"load {os.getloadavg()[0]:.1f} at start")
    projects = [(req, fetch(req)) for req in requirements]
    pythons = {folder: prepare(folder) for _, folder in projects}
    times = {folder: {s: [] for s in SCENARIOS} for _, folder in projects}
    last: dict[Path, dict[str, dict[str, Any]]] = {folder: {} for _, folder in projects}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            for req, folder in projects:
                change = PROJECTS.get(req, Change("", ""))
                one_round(folder, pythons[folder], change, args.affected_spec, Path(tmp),
                          times[folder], last[folder])
                row = times[folder]
                print(f"round {round_ + 1} {folder.name}: " + ", ".join(
                    f"{s} {row[s][-1]:.2f}" for s in SCENARIOS if row[s]), flush=True)
    for _, folder in projects:
        clean(folder)
        report(folder.name, times[folder], last[folder])
    print(f"\nload {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
