"""A monorepo of small katas for the fleet tests and benchmarks: each package has a bug its
tests catch, and a ``cmd:`` agent that fixes it (optionally slowly, to be caught mid-loop)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

CALC = "def add(a, b):\n    return a - b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
PYPROJECT = '[project]\nname = "{name}"\nversion = "0.0.1"\n'

#: The agent: waits ``FLEET_AGENT_SLEEP`` seconds (a file ``started-<task>`` in
#: ``FLEET_AGENT_MARKS`` says it began, with its pid), or until the file ``FLEET_AGENT_GATE``
#: exists (a test opens the gate when it is ready, instead of guessing a sleep), then fixes
#: calc.py.
AGENT = """\
import os, pathlib, time
marks = os.environ.get("FLEET_AGENT_MARKS")
if marks:
    name = os.environ.get("RALPH_TASK_ID", "task")
    # Written whole, then renamed: a test polling for the mark never reads it half-written.
    part = pathlib.Path(marks, f".part-{name}-{os.getpid()}")
    part.write_text(f"{os.getpid()} {os.getcwd()}")
    os.replace(part, pathlib.Path(marks, f"started-{name}"))
gate = os.environ.get("FLEET_AGENT_GATE")
deadline = time.monotonic() + 600
while gate and not os.path.exists(gate) and time.monotonic() < deadline:
    time.sleep(0.1)
time.sleep(float(os.environ.get("FLEET_AGENT_SLEEP", "0")))
path = pathlib.Path("calc.py")
path.write_text(path.read_text().replace("a - b", "a + b"))
print("fixed calc.py")
"""

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
           "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}).stdout


def make_monorepo(repo: Path, names: list[str]) -> None:
    """``packages/<name>`` for each name, committed on ``main``."""
    repo.mkdir(parents=True, exist_ok=True)
    for name in names:
        package = repo / "packages" / name
        (package / "tests").mkdir(parents=True)
        (package / "pyproject.toml").write_text(PYPROJECT.format(name=name))
        (package / "calc.py").write_text(CALC)
        (package / "tests" / "test_calc.py").write_text(TESTS)
    (repo / ".gitignore").write_text("fleet*/\n__pycache__/\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "katas")


def agent(where: Path) -> str:
    """The ``--agent`` value of the fixing agent (its script lives outside the repository)."""
    script = where / "fix_agent.py"
    script.write_text(AGENT)
    return f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


#: A stand-in for the ``claude`` CLI (``--agent claude:PATH``) that reports what each run cost
#: the way Claude Code does (``total_cost_usd`` in its stream-json result), so the loop's budget
#: and the fleet's ``--total-cost`` see real reported costs. Its first run costs
#: ``FLEET_AGENT_COST`` and leaves a note without fixing anything; later runs mark their start
#: (as :data:`AGENT` does), wait ``FLEET_AGENT_SLEEP`` seconds, then fix calc.py (from run
#: ``FLEET_AGENT_FIX_AT``, default 2). Each run appends the budget it was given
#: (``--max-budget-usd``) to the file ``FLEET_AGENT_CALLS``, if set.
PRICED_CLAUDE = """\
import json, os, pathlib, sys, time
sys.stdin.read()
iteration = int(os.environ.get("RALPH_ITERATION", "1"))
calls = os.environ.get("FLEET_AGENT_CALLS")
if calls:
    budget = sys.argv[sys.argv.index("--max-budget-usd") + 1] \\
        if "--max-budget-usd" in sys.argv else None
    with open(calls, "a") as log:
        log.write(json.dumps({"task": os.environ.get("RALPH_TASK_ID"),
                              "iteration": iteration, "budget": budget}) + "\\n")
if iteration == 1:
    pathlib.Path("NOTES.md").write_text("looked at calc.add: it subtracts\\n")
elif iteration >= int(os.environ.get("FLEET_AGENT_FIX_AT", "2")):
    marks = os.environ.get("FLEET_AGENT_MARKS")
    if marks:
        name = os.environ.get("RALPH_TASK_ID", "task")
        part = pathlib.Path(marks, f".part-{name}-{os.getpid()}")
        part.write_text(f"{os.getpid()} {os.getcwd()}")
        os.replace(part, pathlib.Path(marks, f"started-{name}"))
    time.sleep(float(os.environ.get("FLEET_AGENT_SLEEP", "0")))
    path = pathlib.Path("calc.py")
    path.write_text(path.read_text().replace("a - b", "a + b"))
print(json.dumps({"type": "result", "subtype": "success", "is_error": False, "num_turns": 1,
                  "result": f"iteration {iteration} done", "session_id": "priced",
                  "total_cost_usd": float(os.environ.get("FLEET_AGENT_COST", "1"))}))
"""


def priced_agent(where: Path) -> str:
    """The ``--agent`` value of the priced stand-in for Claude Code (an executable script)."""
    script = where / "claude"
    script.write_text(f"#!{sys.executable}\n{PRICED_CLAUDE}")
    script.chmod(0o755)
    return f"claude:{script}"
