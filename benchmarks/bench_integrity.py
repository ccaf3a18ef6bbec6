"""What the integrity check adds to one loop iteration on a real 700+ test project.

The same iteration is run by ``ralph-verify run`` twice, with integrity (the default) and
with ``--no-integrity``, on copies of one project (more-itertools 11.2.1: 765 tests) in git:
the session's start (baseline verification, integrity's baseline picture), then one
iteration whose ``cmd:`` agent edits one function of the project and adds a test, as an
agent would. The loop's own records (``.ralph/iterations/001/verification.json``) give
each check's time and the verification's; with integrity the ``integrity`` check is one of
them. Wall times on a shared machine move by more than the check costs, so its work is
also timed as CPU: the integrity check's comparison of that iteration's tree against the
session's frozen baseline (:func:`integrity_work`: the same calls as
``IntegrityCheck._compare``, test ids included) in a fresh process per round (a Stop hook,
a resumed session, the first iteration of ``run``) and once more in the same process (the
next iterations of ``run``). Run by hand:

    python benchmarks/bench_integrity.py [--project more-itertools==11.2.1] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench_affected import CHANGES  # the modules beside this one
from bench_projects import WORK, fetch, prepare

_AGENT = """\
import pathlib, sys
path = pathlib.Path(sys.argv[1])
path.write_text(path.read_text().replace(sys.argv[3], sys.argv[2], 1))
test = pathlib.Path(sys.argv[4])
test.write_text(test.read_text() + "\\n\\ndef test_added_by_the_agent():\\n"
                "    assert len([1, 2]) == 2\\n")
"""
#: The project -> a test file the agent adds a test to.
TEST_FILES = {"more-itertools==11.2.1": "tests/test_recipes.py",
              "boltons==26.2.0": "tests/test_strutils.py",
              "click==8.5.1": "tests/test_types.py",
              "cachetools==8.0.1": "tests/test_keys.py"}


def integrity_work(root: Path) -> tuple[float, float, int]:
    """The integrity check's work in the iteration just run at ``root``: (CPU seconds, wall
    seconds, failures), as ``IntegrityCheck._compare`` does it in a session."""
    from ralph_verify.integrity.judge import judge
    from ralph_verify.loop.frozen import thaw
    from ralph_verify.plugins.integrity import tampered
    from ralph_verify.records.integrity import picture_of

    state = json.loads((root / ".ralph/state.json").read_text())
    plugin_state = state.get("plugin_state") or state.get("session", {}).get("plugin_state")
    frozen = plugin_state["integrity"]["frozen"]
    cpu, wall = time.process_time(), time.perf_counter()
    before = picture_of(thaw(frozen))
    failures = tampered(root, before)
    failures += judge(root, before, checks=["tests", "integrity"]).failures
    return time.process_time() - cpu, time.perf_counter() - wall, len(failures)


def session(project: Path, python: str, requirement: str, integrity: bool,
            work: Path) -> dict[str, Any]:
    """The session's start and one iteration of ``run`` on a git copy of ``project``."""
    change = CHANGES[requirement]
    copy = work / f"{project.name}-{'integrity' if integrity else 'plain'}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(project, copy, ignore=shutil.ignore_patterns(
        ".ralph", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"))
    module = copy / change.path
    module.write_text(module.read_text(encoding="utf-8").replace(
        change.original, change.broken, 1), encoding="utf-8")
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=bench", "-c",
                                                "user.email=bench@example.invalid",
                                                "commit", "-q", "-m", "start"]):
        subprocess.run(["git", *args], cwd=copy, check=True)
    script = work / "agent.py"
    script.write_text(_AGENT, encoding="utf-8")
    agent = "cmd:" + shlex.join([sys.executable, str(script), change.path, change.edited,
                                 change.broken, TEST_FILES[requirement]])
    proc = subprocess.run(
        [sys.executable, "-m", "ralph_verify", "run", "--agent", agent, "--until", "tests",
         "--max-iterations", "1", "--python", python,
         *([] if integrity else ["--no-integrity"]), "change one module"],
        cwd=copy, capture_output=True, text=True, check=False,
        env={**os.environ, "RALPH_VERIFY_CACHE_DIR": str(work / "ralph-verify-cache")})
    path = copy / ".ralph/iterations/001/verification.json"
    if not path.exists():
        raise SystemExit(f"no iteration ran: {proc.stdout[-800:]}{proc.stderr[-800:]}")
    data = json.loads(path.read_text())
    checks = {c["name"]: c for c in data["checks"]}
    return {"root": copy, "verification_s": data.get("duration_s", 0.0),
            "checks_s": {name: c["duration_s"] for name, c in checks.items()},
            "integrity": checks.get("integrity", {}).get("summary", "")}


def _fresh(root: Path) -> tuple[float, float, int, float, float]:
    """:func:`integrity_work` in a new process, then again in the same process."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[2]); from bench_integrity import "
            "integrity_work; from pathlib import Path; r = Path(sys.argv[1]); "
            "a = integrity_work(r); b = integrity_work(r); print(json.dumps([*a, *b[:2]]))")
    out = subprocess.run([sys.executable, "-c", code, str(root), str(Path(__file__).parent)],
                         capture_output=True, text=True, check=True).stdout
    cpu, wall, failures, warm_cpu, warm_wall = json.loads(out.strip().splitlines()[-1])
    return cpu, wall, int(failures), warm_cpu, warm_wall


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--project", default="more-itertools==11.2.1", choices=sorted(TEST_FILES))
    parser.add_argument("--rounds", type=int, default=5,
                        help="fresh-process timings of the check's work (default 5)")
    parser.add_argument("--sessions", type=int, default=1,
                        help="pairs of loop sessions, with and without integrity (default 1)")
    args = parser.parse_args()
    project = fetch(args.project)
    python = prepare(project)
    work = WORK / "integrity"
    work.mkdir(parents=True, exist_ok=True)
    print(f"{args.project}: load average at the start {_load()}")
    with_s, without_s, check_s, tests_with, tests_without = [], [], [], [], []
    last: dict[str, Any] = {}
    for _ in range(args.sessions):
        last = session(project, python, args.project, True, work)
        plain = session(project, python, args.project, False, work)
        with_s.append(last["verification_s"])
        without_s.append(plain["verification_s"])
        check_s.append(last["checks_s"].get("integrity", 0.0))
        tests_with.append(last["checks_s"].get("tests", 0.0))
        tests_without.append(plain["checks_s"].get("tests", 0.0))
    print(f"  the iteration's integrity check: {last['integrity'][:160]}")
    rounds = [_fresh(last["root"]) for _ in range(args.rounds)]

    def mm(values: list[float]) -> str:
        return f"{min(values):.3f} / {statistics.median(values):.3f}"

    print(f"  loop, seconds min / median of {args.sessions} session pair(s):")
    print(f"    iteration's verification with integrity:    {mm(with_s)}")
    print(f"    iteration's verification without integrity: {mm(without_s)}")
    print(f"    of which the tests check, with / without:   {mm(tests_with)} | "
          f"{mm(tests_without)}")
    print(f"    the integrity check's time in the record (it waits for the shared pytest "
          f"run's test ids): {mm(check_s)}")
    print(f"  the integrity check's work in that iteration, min / median of {args.rounds}:")
    print(f"    fresh process: CPU {mm([r[0] for r in rounds])} s, wall "
          f"{mm([r[1] for r in rounds])} s ({rounds[0][2]} failures)")
    print(f"    same process again: CPU {mm([r[3] for r in rounds])} s, wall "
          f"{mm([r[4] for r in rounds])} s")
    print(f"  load average at the end {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
