"""Issue 37's overhead, in CPU seconds: ``check`` against the tools by hand, ``--help``, scale.

Usage::

    python benchmarks/bench_overhead.py                    # every part, 5 runs each
    python benchmarks/bench_overhead.py --part projects --runs 7
    python benchmarks/bench_overhead.py --part help
    python benchmarks/bench_overhead.py --part scale --row 5000:0 --row 20000:100
    python benchmarks/bench_overhead.py --part where --project tabulate
    python benchmarks/bench_overhead.py --json figures.json  # every run's figures kept
    python benchmarks/bench_overhead.py --ralph-verify ../before --ralph-verify .  # in turns

Run it with the interpreter whose ``ralph-verify``, pytest, ruff and mypy are measured (a
virtualenv with ralph-verify installed: ``.venv-test/bin/python``). Parts:

* ``projects``: three real projects from PyPI (``bench_projects``: each sdist unpacked once
  under ``~/.cache/ralph-verify-bench/``, its own virtualenv that sees this interpreter's
  tools and its suite's own test dependencies), each a different size (``--project``: any
  of :data:`PROJECTS`). The sides in turns (the order rotating; with several
  ``--ralph-verify`` checkouts, each is a side of its own), after one uncounted run of each
  that warms every tool's cache: ``ralph-verify check --until tests,lint,types --no-cache
  --json`` (the console
  script in the project's folder, as a user runs it; ``--no-cache``: the verification cache
  neither answers nor stores, the tools really run) against the same three tools started by
  hand, side by side, each in its own session (``sh -c 'setsid -w pytest --junitxml=... &
  setsid -w ruff check & setsid -w mypy PACKAGE & wait'``), with the arguments ``check``
  gives them (pytest's JUnit XML, ruff's and mypy's JSON, mypy on the same files).
* ``help``: ``ralph-verify --help`` (of each checkout, in turns), and ``python -c pass`` for
  the floor.
* ``scale``: generated suites (``bench_scale.suite``: files of 100 tests, a given share
  failing) of 5,000 and 20,000 tests, 0%, 1% and 100% failing:
  ``ralph-verify check --until tests --no-cache`` against ``python -m pytest
  --junitxml=junit.xml``, after one uncounted ``--collect-only`` run of each (bytecode).
* ``where``: where ``check``'s own process spends its CPU on one project: that process's
  own CPU (``os.times()`` at its exit, tools excluded), the import time of each top-level
  package (``PYTHONPROFILEIMPORTTIME``) and a ``cProfile`` (CPU clock) of it, grouped by
  package, with its most expensive functions.

CPU is user + system of the command and of every process under it: this process is the
children's subreaper (``PR_SET_CHILD_SUBREAPER``), so a process that outlives the command is
waited for and counted too (and reported). Figures are medians of ``--runs`` (5); the
machine's 1-minute load average is printed with them. Quote CPU on a shared machine:
load moves wall time far more. Tables are Markdown, ready to paste.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import platform
import pstats
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_projects import WORK, fetch, prepare  # the modules beside this one
from bench_scale import suite

#: The real projects, smallest suite first, and what mypy is given (what ``check`` gives it:
#: slugify's configuration names its package). The first three are measured by default
#: (none measured by an earlier benchmark when they were added); the others by ``--project``.
PROJECTS: dict[str, tuple[str, ...]] = {"xmltodict==1.0.4": ("xmltodict.py",),
                                        "toolz==1.2.0": ("toolz", "tlz"),
                                        "semver==3.1.2": ("src/semver",),
                                        "python-slugify==9.2.0": (),
                                        "tabulate==0.10.0": ("tabulate",),
                                        "idna==3.20": ("idna",)}
DEFAULT_PROJECTS = 3
ROWS = ((5_000, 0), (5_000, 1), (5_000, 100), (20_000, 0), (20_000, 1), (20_000, 100))
PARTS = ("projects", "help", "scale", "where")
CACHE = WORK / "overhead-ralph-verify-cache"
FULL = "tests,lint,types"


@dataclass
class Run:
    wall: float
    cpu: float
    code: int
    load: float
    #: processes that outlived the command (waited for here, their CPU counted)
    stragglers: int = 0


def subreaper() -> None:
    """Orphans of the measured commands are re-parented to this process, so their CPU is
    counted when they are reaped (Linux; elsewhere only what the command waited for)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def reap_rest(limit: float) -> int:
    """Wait for every process left under this one (at most ``limit`` seconds, then kill
    them); how many there were."""
    count = 0
    deadline = time.monotonic() + limit
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return count
        if pid:
            count += 1
        elif time.monotonic() > deadline:
            for entry in Path("/proc").iterdir():
                with contextlib.suppress(OSError, ValueError):
                    status = (entry / "status").read_text()
                    if re.search(rf"^PPid:\s+{os.getpid()}$", status, re.M):
                        os.kill(int(entry.name), 9)
            deadline = time.monotonic() + 60
        else:
            time.sleep(0.02)


def measure(argv: list[str], cwd: Path, env: dict[str, str], limit: float = 1800.0,
            capture: bool = False) -> tuple[Run, str]:
    """One command: wall and CPU seconds (itself and everything under it), exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, text=True, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        out, _ = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    wall = time.perf_counter() - started
    stragglers = reap_rest(limit)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu, proc.returncode, os.getloadavg()[0], stragglers), out or ""


#: ``--ralph-verify CHECKOUT`` (repeatable): that checkout's ralph-verify is measured
#: (``python -m ralph_verify`` with the checkout first on ``PYTHONPATH``), e.g. an older one
#: and a newer one in turns, for before and after at the same hour; else the installed
#: console script.
CHECKOUTS: list[str] = []


def ralph_verify() -> list[str]:
    return [sys.executable, "-m", "ralph_verify"] if CHECKOUTS else [bin_of("ralph-verify")]


def pythonpath(checkout: str | None = None) -> str:
    """``checkout`` (the first one by default, if any), then what ``PYTHONPATH`` holds
    (``prepare()`` adds ``src``)."""
    first = checkout or (CHECKOUTS[0] if CHECKOUTS else None)
    return os.pathsep.join([*filter(None, [first, os.environ.get("PYTHONPATH")])])


Side = tuple[list[str], dict[str, str]]


def check_sides(argv: list[str], env: dict[str, str]) -> dict[str, Side]:
    """``check`` of each checkout (``check NAME``), or of the installed script (``check``):
    its argv and environment."""
    if not CHECKOUTS:
        return {"check": (argv, env)}
    return {f"check {Path(c).name}": (argv, {**env, "PYTHONPATH": pythonpath(c)})
            for c in CHECKOUTS}


def bin_of(name: str) -> str:
    """A console script of this interpreter's environment (else the name, from PATH)."""
    path = Path(sys.executable).parent / name
    return str(path) if path.exists() else name


def environment() -> dict[str, str]:
    env = {**os.environ, "RALPH_VERIFY_CACHE_DIR": str(CACHE), "PYTHONPATH": pythonpath()}
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as on a user's machine: bytecode is kept
    return env


def check_argv(until: str, *extra: str) -> list[str]:
    return [*ralph_verify(), "check", "--until", until, "--no-cache", *extra]


def by_hand(python: str, targets: tuple[str, ...], junit: Path) -> list[str]:
    """The three tools side by side, each in its own session, as ``check`` starts them."""
    commands = [
        [python, "-m", "pytest", f"--junitxml={junit}", "-o", "junit_family=xunit1"],
        [bin_of("ruff"), "check", "--output-format", "json", "--no-fix"],
        [python, "-m", "mypy", "--output", "json", *targets],
    ]
    return ["sh", "-c", " & ".join(f"setsid -w {shlex.join(c)} >/dev/null 2>&1"
                                   for c in commands) + " & wait"]


def spread(values: list[float], digits: int = 2) -> str:
    """median (min-max)."""
    if not values:
        return "-"
    return (f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-"
            f"{max(values):.{digits}f})")


def loads_of(runs: list[Run]) -> str:
    loads = [r.load for r in runs]
    return f"{min(loads):.1f}-{max(loads):.1f}" if loads else "-"


def part_projects(names: list[str], runs: int, env: dict[str, str],
                  figures: dict[str, object]) -> str:
    lines = ["| project (suite) | side | tools by hand, CPU s | check, CPU s | check - tools, "
             "CPU s (paired) | check / tools (paired) | wall s, tools / check | load |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for requirement in names:
        folder = fetch(requirement)
        python = prepare(folder)
        env = {**env, "PYTHONPATH": os.environ.get("PYTHONPATH", "")}  # with prepare()'s src/
        with tempfile.TemporaryDirectory() as tmp:
            sides = {"tools": (by_hand(python, PROJECTS[requirement], Path(tmp) / "junit.xml"),
                               env),
                     **check_sides(check_argv(FULL, "--python", python, "--json"), env)}
            got: dict[str, list[Run]] = {side: [] for side in sides}
            verdict = ""
            for index in range(runs + 1):  # the first round warms every cache, uncounted
                order = list(sides)[index % len(sides):] + list(sides)[:index % len(sides)]
                for side in order:
                    argv, side_env = sides[side]
                    run, out = measure(argv, folder, side_env, capture=side != "tools")
                    if side != "tools":
                        verdict = summary(out, run.code)
                    if index:
                        got[side].append(run)
                        print(f"  {folder.name} {side}: {run.cpu:.2f} CPU s, {run.wall:.2f} "
                              f"s wall, exit {run.code}, load {run.load:.1f}"
                              + (f", {run.stragglers} outlived it" if run.stragglers else ""),
                              flush=True)
        figures[folder.name] = {side: [asdict(r) for r in got[side]] for side in got}
        print(f"  {folder.name}: {verdict}", flush=True)
        tools = [r.cpu for r in got["tools"]]
        for side in [s for s in sides if s != "tools"]:
            ours = [r.cpu for r in got[side]]
            lines.append(
                f"| {folder.name} | {side} | {spread(tools)} | {spread(ours)} | "
                f"{spread([a - b for a, b in zip(ours, tools, strict=True)], 2)} | "
                f"{spread([a / b for a, b in zip(ours, tools, strict=True)])} | "
                f"{statistics.median(r.wall for r in got['tools']):.2f} / "
                f"{statistics.median(r.wall for r in got[side]):.2f} | "
                f"{loads_of(got['tools'] + got[side])} |")
    return "\n".join(lines)


def summary(out: str, code: int) -> str:
    """The checks' statuses from ``check --json`` (that they ran, and were not cached)."""
    try:
        data = json.loads(out)
        return f"exit {code}: " + ", ".join(
            f"{c['spec']} {c['status']} ({c['summary'][:50]})" for c in data["checks"])
    except (ValueError, KeyError, TypeError):
        return f"exit {code}, no JSON: {out[-300:]!r}"


def part_help(runs: int, env: dict[str, str], figures: dict[str, object]) -> str:
    """In turns: ``--help`` of each checkout, and the floor."""
    lines = ["| command | CPU s | wall s | load |", "| --- | --- | --- | --- |"]
    sides = {f"`ralph-verify --help` ({side})": (argv, side_env) for side, (argv, side_env)
             in check_sides([*ralph_verify(), "--help"], env).items()}
    sides["`python -c pass` (the floor)"] = ([sys.executable, "-c", "pass"], env)
    got: dict[str, list[Run]] = {label: [] for label in sides}
    for index in range(runs + 1):
        for label, (argv, side_env) in sides.items():
            run = measure(argv, Path.cwd(), side_env)[0]
            if index:  # the first warms the bytecode
                got[label].append(run)
    for label in sides:
        figures[label] = [asdict(r) for r in got[label]]
        lines.append(f"| {label} | {spread([r.cpu for r in got[label]], 3)} | "
                     f"{spread([r.wall for r in got[label]], 3)} | {loads_of(got[label])} |")
        print(f"  {label}: {lines[-1]}", flush=True)
    return "\n".join(lines)


def part_scale(rows: list[tuple[int, int]], runs: int, env: dict[str, str],
               figures: dict[str, object], limit: float) -> str:
    sides = {"pytest": [sys.executable, "-m", "pytest", "--junitxml=junit.xml"],
             "check": check_argv("tests", "--timeout", str(int(limit)))}
    lines = ["| tests | failing | `pytest --junitxml`, CPU s | check, CPU s | check / pytest "
             "(paired) | wall s, pytest / check | load |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for size, rate in rows:
        root = suite(size, rate)
        for side in sides:  # bytecode of both sides, at the price of a collection
            measure(sides[side], root, {**env, "PYTEST_ADDOPTS": "--collect-only"}, limit)
        got: dict[str, list[Run]] = {"pytest": [], "check": []}
        for index in range(runs):
            for side in (("check", "pytest") if index % 2 else ("pytest", "check")):
                run, _ = measure(sides[side], root, env, limit)
                got[side].append(run)
                print(f"  {size} tests {rate}% failing, {side}: {run.cpu:.2f} CPU s, "
                      f"{run.wall:.2f} s wall, exit {run.code}, load {run.load:.1f}", flush=True)
        figures[f"{size}:{rate}"] = {side: [asdict(r) for r in got[side]] for side in got}
        plain = [r.cpu for r in got["pytest"]]
        ours = [r.cpu for r in got["check"]]
        lines.append(
            f"| {size:,} | {rate}% | {spread(plain)} | {spread(ours)} | "
            f"{spread([a / b for a, b in zip(ours, plain, strict=True)])} | "
            f"{statistics.median(r.wall for r in got['pytest']):.1f} / "
            f"{statistics.median(r.wall for r in got['check']):.1f} | "
            f"{loads_of(got['pytest'] + got['check'])} |")
    return "\n".join(lines)


#: Run as ``ralph-verify`` (the file's name: the package knows its own command by it), this
#: prints the process's own CPU at its exit (``os._exit`` included) and, with a second
#: argument, keeps a cProfile of it on the CPU clock.
WRAPPER = '''\
import os, sys, time
_out = os.environ.pop("BENCH_OWN_CPU")
_profile_to = os.environ.pop("BENCH_PROFILE", "")
_profiler = None
if _profile_to:
    import cProfile
    _profiler = cProfile.Profile(time.process_time)
def _done():
    if _profiler is not None:
        _profiler.disable()
        _profiler.dump_stats(_profile_to)
    t = os.times()
    with open(_out, "w") as f:
        f.write(f"{t.user + t.system}")
_real_exit = os._exit
def _exit(code):
    _done()
    _real_exit(code)
os._exit = _exit
if _profiler is not None:
    _profiler.enable()
try:
    from ralph_verify.cli import console_main
    console_main()
finally:
    _done()
'''


def group_of(filename: str) -> str:
    """A function's file -> what it belongs to: ralph_verify's folder, a package, stdlib."""
    if filename.startswith("<frozen"):
        return "standard library (importlib)"
    if filename.startswith(("~", "<")):
        return "built-in"
    parts = Path(filename).parts
    if "ralph_verify" in parts:
        rest = parts[parts.index("ralph_verify") + 1:]
        return "ralph_verify/" + (rest[0] if len(rest) > 1 else "*.py")
    if "site-packages" in parts:
        return parts[parts.index("site-packages") + 1].removesuffix(".py")
    return "standard library"


def part_where(requirement: str, runs: int, env: dict[str, str],
               figures: dict[str, object]) -> str:
    folder = fetch(requirement)
    python = prepare(folder)
    env = {**env, "PYTHONPATH": pythonpath()}
    argv_tail = ["check", "--until", FULL, "--no-cache", "--python", python, "-q"]
    out: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        wrapper = Path(tmp) / "ralph-verify"
        wrapper.write_text(WRAPPER)
        own_file = Path(tmp) / "own"
        own: list[float] = []
        total: list[Run] = []
        for index in range(runs + 1):
            run, _ = measure([sys.executable, str(wrapper), *argv_tail], folder,
                             {**env, "BENCH_OWN_CPU": str(own_file)})
            if index:  # the first warms the caches
                own.append(float(own_file.read_text()))
                total.append(run)
        figures["own_cpu"] = own
        out.append(f"{folder.name}: `check --until {FULL}` {spread([r.cpu for r in total])} "
                   f"CPU s in all, of which its own process (tools excluded) "
                   f"{spread(own, 3)} CPU s; load {loads_of(total)}.")
        # Import times (microseconds, wall, of this process alone: the tools' stderr is
        # theirs), summed per top-level package.
        _, err = run_stderr([*ralph_verify(), *argv_tail], folder,
                            {**env, "PYTHONPROFILEIMPORTTIME": "1"})
        per: dict[str, int] = {}
        count = 0
        for line in err.splitlines():
            found = re.match(r"import time:\s+(\d+) \|\s+\d+ \|( *)(\S+)", line)
            if found:
                count += 1
                name = found.group(3).split(".")[0]
                per[name] = per.get(name, 0) + int(found.group(1))
        stdlib = set(sys.stdlib_module_names)
        grouped: dict[str, int] = {}
        for name, us in per.items():
            key = "standard library" if name in stdlib or name.startswith("_") else name
            grouped[key] = grouped.get(key, 0) + us
        all_us = sum(per.values()) or 1
        out.append(f"\nImports ({count} modules, {all_us / 1000:.0f} ms of wall time in all, "
                   "`PYTHONPROFILEIMPORTTIME`, self time per top-level package):\n")
        out.append("| package | ms | share |\n| --- | --- | --- |")
        for name, us in sorted(grouped.items(), key=lambda kv: -kv[1])[:8]:
            out.append(f"| {name} | {us / 1000:.1f} | {100 * us / all_us:.0f}% |")
        figures["imports_ms"] = {k: v / 1000 for k, v in grouped.items()}
        # cProfile of the process on the CPU clock (profiling slows it; read shares).
        stats_file = Path(tmp) / "profile"
        measure([sys.executable, str(wrapper), *argv_tail], folder,
                {**env, "BENCH_OWN_CPU": str(own_file), "BENCH_PROFILE": str(stats_file)})
        profile = pstats.Stats(str(stats_file)).get_stats_profile().func_profiles
        by_group: dict[str, float] = {}
        for name, function in profile.items():
            # Built-ins by name: exec() is the bodies of imported modules, marshal.loads
            # their bytecode, posix.* the tools' starts.
            key = group_of(function.file_name)
            if key.startswith("built-in"):
                key = f"`{name.strip('{}<>')}`"
            if "acquire" in key:  # process_time: the other threads' CPU meanwhile
                key += " (the main thread waits: the other threads' CPU)"
            by_group[key] = by_group.get(key, 0.0) + function.tottime
        whole = sum(by_group.values()) or 1.0
        out.append(f"\ncProfile, CPU clock ({1000 * whole:.0f} ms profiled, the profiler's own "
                   "cost included; self time per group):\n")
        out.append("| where | ms | share |\n| --- | --- | --- |")
        for key, seconds in sorted(by_group.items(), key=lambda kv: -kv[1])[:14]:
            out.append(f"| {key} | {1000 * seconds:.0f} | {100 * seconds / whole:.0f}% |")
        figures["profile_ms"] = {k: 1000 * v for k, v in by_group.items()}
        # Cumulative times on a process-wide clock also hold the other threads' CPU while
        # the main thread waits, so they are given in ms, not as shares of the whole.
        ours = sorted(((f.cumtime, name, f) for name, f in profile.items()
                       if "ralph_verify" in f.file_name), key=lambda t: -t[0])[:14]
        out.append("\nOur functions by cumulative CPU (profiled, ms):\n")
        out.append("| function | ms |\n| --- | --- |")
        for seconds, name, f in ours:
            short = f.file_name[f.file_name.index("ralph_verify"):]
            out.append(f"| `{short}:{f.line_number} {name}` | {1000 * seconds:.0f} |")
    return "\n".join(out)


def run_stderr(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    proc = subprocess.run(argv, cwd=cwd, env=env, text=True, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    reap_rest(60)
    return proc.returncode, proc.stderr


def row_spec(text: str) -> tuple[int, int]:
    size, _, rate = text.partition(":")
    try:
        return int(size.replace("_", "").replace(",", "")), int(rate.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a row: give TESTS:PERCENT, e.g. 20000:100") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", action="append", choices=PARTS,
                        help="only this part (repeatable; default: projects, help, scale, "
                             "where)")
    parser.add_argument("--runs", type=int, default=5, help="measured runs of each side (5)")
    parser.add_argument("--project", action="append", metavar="NAME",
                        help="only this project (repeatable): "
                             + ", ".join(p.split("==")[0] for p in PROJECTS)
                             + "; for --part where the first one (default tabulate)")
    parser.add_argument("--row", type=row_spec, action="append", metavar="TESTS:PERCENT",
                        help="only this generated suite (repeatable; default: 5000 and "
                             "20000 tests, 0, 1 and 100 percent failing)")
    parser.add_argument("--limit", type=float, default=1800.0,
                        help="seconds before one run is killed (default 1800)")
    parser.add_argument("--json", metavar="FILE", help="keep every run's figures in FILE")
    parser.add_argument("--ralph-verify", metavar="CHECKOUT", action="append",
                        help="measure the ralph-verify of this checkout (python -m "
                             "ralph_verify, the checkout first on PYTHONPATH); repeatable: "
                             "the checkouts in turns (projects, help), e.g. before and after")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    wanted = args.project or []
    names = [p for p in PROJECTS if p.split("==")[0] in wanted] if wanted else \
        list(PROJECTS)[:DEFAULT_PROJECTS]
    if not names:
        parser.error(f"no such project: {', '.join(wanted)}")
    parts = args.part or list(PARTS)
    for given in args.ralph_verify or []:
        checkout = Path(given).resolve()
        if not (checkout / "ralph_verify" / "__init__.py").is_file():
            parser.error(f"{checkout} holds no ralph_verify package")
        CHECKOUTS.append(str(checkout))
    subreaper()
    env = environment()
    versions = subprocess.run(
        [sys.executable, "-c", "import importlib.metadata as m; print(', '.join("
         "f'{n} {m.version(n)}' for n in ('pytest', 'ruff', 'mypy', 'pluggy')))"],
        capture_output=True, text=True, check=False).stdout.strip()
    head = (f"{platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}, {versions}; ralph-verify from "
            f"{', '.join(CHECKOUTS) if CHECKOUTS else bin_of('ralph-verify')}")
    print(f"# {head}; load {os.getloadavg()[0]:.1f} at start", flush=True)
    tables: dict[str, str] = {}
    figures: dict[str, dict[str, object]] = {part: {} for part in parts}
    for part in parts:
        print(f"## {part}", flush=True)
        if part == "projects":
            tables[part] = part_projects(names, args.runs, env, figures[part])
        elif part == "help":
            tables[part] = part_help(max(args.runs, 10), env, figures[part])
        elif part == "scale":
            tables[part] = part_scale(args.row or list(ROWS), args.runs, env, figures[part],
                                      args.limit)
        else:
            where = names[0] if wanted else "tabulate==0.10.0"
            tables[part] = part_where(where, args.runs, env, figures[part])
    print(f"\n# {head}; load {os.getloadavg()[0]:.1f} at the end; "
          f"median (min-max) of {args.runs} runs\n")
    for part, text in tables.items():
        print(f"### {part}\n\n{text}\n")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
