"""The mutation check's cost against the affected tests' own time, by the size of the change.

Usage::

    python benchmarks/bench_mutation.py [--sizes 1,2,4,8] [--rounds 3]

A synthetic project (20 modules of 10 small functions, 2 asserts per function's test,
200 tests) in a git repository. For each size N, a loop (``run --until
tests,mutation``, one iteration, ``select = "affected"``) whose ``cmd:`` agent rewrites
N functions (a typical one-function change: a comparison, an ``and``, arithmetic, a
constant, two returns); the tests already expect the new behaviour, so the baseline
fails and the iteration passes. Printed per size: the mutants, the mutation check's own
wall time in the iteration (``duration_s`` in ``.ralph/``; the affected-tests map narrows
its tests), the same check by ``check --baseline START`` (no map: the reach pass runs the
whole suite), the affected tests' own time (plain ``pytest`` on their ids, a process,
median of ``--rounds``), and the ratios. "one process per mutant" is its lower bound: the
mutants times the affected tests' own time.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

MODULES, FUNCTIONS = 20, 10
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]


def original(k: int) -> str:
    return f"def f{k}(x, y):\n    if x > {k}:\n        return x * y\n    return x - y\n"


def changed(k: int) -> str:
    return (f"def f{k}(x, y):\n    if x >= {k} and y != 0:\n        return x * y + {k}\n"
            f"    return x - y\n")


def test(module: int, k: int, *, new: bool) -> str:
    if new:
        return (f"def test_f{k}():\n    assert m{module}.f{k}({k}, 2) == {k} * 2 + {k}\n"
                f"    assert m{module}.f{k}({k}, 0) == {k}\n"
                f"    assert m{module}.f{k}({k} - 1, 2) == {k} - 3\n\n\n")
    return (f"def test_f{k}():\n    assert m{module}.f{k}({k} + 1, 2) == ({k} + 1) * 2\n"
            f"    assert m{module}.f{k}({k}, 2) == {k} - 2\n\n\n")


def make_project(root: Path, size: int) -> list[str]:
    """The project, committed; the ids of the tests of the ``size`` functions to change."""
    (root / "shop").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "shop/__init__.py").write_text("")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "shop"\nversion = "0"\n\n[tool.ralph-verify.checks.tests]\n'
        'select = "affected"\n')
    targets = [(m, k) for m in range(MODULES) for k in range(FUNCTIONS)][:size]
    ids = []
    for m in range(MODULES):
        (root / f"shop/m{m}.py").write_text("\n\n".join(original(k) for k in range(FUNCTIONS)))
        body = f"from shop import m{m}\n\n\n" + "".join(
            test(m, k, new=(m, k) in targets) for k in range(FUNCTIONS))
        (root / f"tests/test_m{m}.py").write_text(body)
        ids += [f"tests/test_m{m}.py::test_f{k}" for k in range(FUNCTIONS) if (m, k) in targets]
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "start"], cwd=root, check=True)
    agent = root.parent / "agent.py"
    edits = {f"shop/m{m}.py": [k for mm, k in targets if mm == m] for m, _ in targets}
    agent.write_text(textwrap.dedent(f"""\
        import pathlib, re
        for rel, ks in {edits!r}.items():
            path = pathlib.Path(rel)
            text = path.read_text()
            for k in ks:
                text = text.replace({original(0)!r}.replace("f0", f"f{{k}}").replace("> 0",
                                    f"> {{k}}"), {changed(0)!r}.replace("f0", f"f{{k}}")
                                    .replace(">= 0", f">= {{k}}").replace("+ 0", f"+ {{k}}"))
            path.write_text(text)
        """))
    return ids


def affected_time(root: Path, ids: list[str], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *ids],
                       cwd=root, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def mutation_result(verification: dict[str, object]) -> dict[str, object]:
    checks = verification["checks"]
    assert isinstance(checks, list)
    found: dict[str, object] = next(c for c in checks if c["name"] == "mutation")
    return found


def measure(size: int, rounds: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-mutation-") as folder:
        root = Path(folder) / "project"
        ids = make_project(root, size)
        agent = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(root.parent / 'agent.py'))}"
        subprocess.run([sys.executable, "-m", "ralph_verify", "run", "--agent", agent,
                        "--until", "tests,mutation", "--max-iterations", "1", "--no-integrity",
                        "change the functions"], cwd=root, capture_output=True, check=False)
        loop = mutation_result(json.loads(
            (root / ".ralph/iterations/001/verification.json").read_text()))
        out = subprocess.run([sys.executable, "-m", "ralph_verify", "check", "--until",
                              "mutation", "--baseline", "main", "--json"], cwd=root,
                             capture_output=True, text=True, check=False).stdout
        check = mutation_result(json.loads(out))
        own = affected_time(root, ids, rounds)
        counts = loop["counts"]
        assert isinstance(counts, dict)
        assert isinstance(loop["duration_s"], float) and isinstance(check["duration_s"], float)
        return {"mutants": counts["mutants"], "killed": counts["killed"],
                "loop": loop["duration_s"], "check": check["duration_s"], "own": own,
                "tests": counts["tests"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,2,4,8")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{MODULES * FUNCTIONS} tests; affected = plain pytest on the changed functions' tests")
    print("functions  mutants  killed  tests  loop (map)  check (suite)  affected own  "
          "loop/own  check/own  per-process >=")
    for size in (int(s) for s in args.sizes.split(",")):
        row = measure(size, args.rounds)
        print(f"{size:9d}  {row['mutants']:7.0f}  {row['killed']:6.0f}  {row['tests']:5.0f}  "
              f"{row['loop']:9.2f}s  {row['check']:12.2f}s  {row['own']:11.2f}s  "
              f"{row['loop'] / row['own']:7.2f}x  {row['check'] / row['own']:8.2f}x  "
              f"{row['mutants'] * row['own']:12.2f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
