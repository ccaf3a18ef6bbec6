"""Time and peak memory of ``ralph-verify check`` on pathological tool output.

    python benchmarks/bench_bounds.py [--case NAME] [--limit SECONDS]

Each case builds a small project under ``~/.cache/ralph-verify-bench/bounds/`` and runs
``python -m ralph_verify check`` under ``/usr/bin/time -v`` (wall time, peak RSS of
ralph-verify and the tools it ran). ``PYTHONPATH`` chooses the ralph-verify measured,
so the same script measures an older checkout too.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

HOME = Path.home() / ".cache" / "ralph-verify-bench" / "bounds"
PYPROJECT = '[project]\nname = "bench"\nversion = "0"\n'


def _project(name: str, extra: str = "") -> Path:
    root = HOME / name
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT + extra)
    return root


def long_name() -> tuple[Path, list[str]]:
    """One undefined name of 120,000 characters: one lint message that long."""
    root = _project("long_name")
    name = "test_" + "a" * 120_000
    (root / "test_long.py").write_text(f"def f():\n    return {name}\n")
    return root, ["--until", "lint", "--timeout", "5"]


def many_messages() -> tuple[Path, list[str]]:
    """30,000 long undefined names (60,000 ruff violations, 39 MB of JSON)."""
    root = _project("many_messages")
    body = "\n".join(f"    name_{i}_" + "q" * 400 for i in range(30_000))
    (root / "many.py").write_text(f"def f():\n{body}\n")
    return root, ["--until", "lint", "--timeout", "600"]


def junit_text() -> tuple[Path, list[str]]:
    """A JUnit file with 200 MB of failure text (200 failing tests, 1 MB each)."""
    root = _project("junit_text")
    path = root / "junit.xml"
    if not path.exists():
        chunk = ("x" * 99 + "\n") * 10_000
        with path.open("w") as out:
            out.write('<testsuite name="s" tests="200">\n')
            for i in range(200):
                out.write(f'<testcase classname="c" name="t{i}"><failure message="boom {i}">'
                          f"{chunk}</failure></testcase>\n")
            out.write("</testsuite>\n")
    return root, ["--until", "junit:junit.xml"]


def junit_one_failure() -> tuple[Path, list[str]]:
    """A JUnit file whose one failure carries 200 MB of text."""
    root = _project("junit_one_failure")
    path = root / "junit.xml"
    if not path.exists():
        line = "x" * 99 + "\n"
        with path.open("w") as out:
            out.write('<testsuite name="s" tests="1">\n<testcase classname="c" name="t">'
                      '<failure message="boom">')
            for _ in range(200):
                out.write(line * 10_000)
            out.write("E   ValueError: the cause</failure></testcase>\n</testsuite>\n")
    return root, ["--until", "junit:junit.xml"]


def huge_stdout() -> tuple[Path, list[str]]:
    """A lint command printing 1 GB: a JSON list of 2.5 million violations."""
    script = HOME / "print_gb.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(
        "import json, sys\n"
        "entry = json.dumps({'filename': 'a.py', 'code': 'E501', 'message': 'x' * 300,\n"
        "                    'location': {'row': 1, 'column': 1}})\n"
        "out = sys.stdout\n"
        "out.write('[')\n"
        "block = ','.join([entry] * 1000)\n"
        "for i in range(2500):\n"
        "    out.write(('' if i == 0 else ',') + block)\n"
        "out.write(']')\n"
        "sys.exit(1)\n")
    root = _project("huge_stdout", "\n[tool.ralph-verify.checks.lint]\ncommand = "
                    + json.dumps([sys.executable, str(script)]) + "\n")
    return root, ["--until", "lint", "--timeout", "120"]


CASES: dict[str, Callable[[], tuple[Path, list[str]]]] = {
    "long_name": long_name, "many_messages": many_messages, "junit_text": junit_text,
    "junit_one_failure": junit_one_failure, "huge_stdout": huge_stdout,
}


def measure(root: Path, args: list[str], limit: float) -> str:
    started = time.perf_counter()
    proc = subprocess.Popen(["/usr/bin/time", "-v", sys.executable, "-m", "ralph_verify",
                             "check", *args], cwd=root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=os.environ.copy(),
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the whole tree: time, ralph-verify, the tool
        proc.communicate()
        return f"stopped after {limit:.0f} s"
    wall = time.perf_counter() - started
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    lines = [ln for ln in stdout.splitlines() if ln.startswith(("FAILED ", "ERROR ",
                                                                     "PASSED "))]
    peak = f"{int(rss.group(1)) / 1024:.0f} MiB" if rss else "?"
    return f"{wall:.1f} s, peak RSS {peak}, exit {proc.returncode}: {' | '.join(lines)[:160]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--case", choices=sorted(CASES), action="append")
    parser.add_argument("--limit", type=float, default=900)
    options = parser.parse_args()
    for name in options.case or list(CASES):
        root, args = CASES[name]()
        print(f"{name}: {measure(root, args, options.limit)}", flush=True)


if __name__ == "__main__":
    main()
