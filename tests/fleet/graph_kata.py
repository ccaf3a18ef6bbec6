"""A project for the fleet's task graph (tests/fleet/test_graph*.py, benchmarks): tasks that
each add a module its tests import, and a ``cmd:`` agent that does a task by the name the
fleet gives it (``$RALPH_TASK_ID``), recording when it ran and what its tree held.

The agent's modes (``GRAPH_MODE``):

- ``side-by-side``: T1 writes ``a.py``, T2 ``b.py`` (each waits, up to a minute, until the
  other has started: run one after the other, they cannot overlap), T3 ``c.py`` using both;
- ``conflict``: T1 writes ``shared.py`` = A; T2 (whose folder is ``pkg``) waits until T1 is
  merged on the integration branch, then writes ``shared.py`` = B at the top (an add/add
  conflict; on its second run, on the new tip, its loop's checks in ``pkg`` pass, its tree
  merges, but breaks T1's tests at the top);
- ``hang``: mark its start, then sleep (until the fleet stops it);
- ``t2-first``: T1 waits, up to a minute, until T2 has ended, then writes ``a.py``;
- anything else: write the module of the task at once.

Each run leaves ``GRAPH_MARKS/<task>.<n>.json``: its start and end (wall clock), the
``.py`` files of its tree when it started, its prompt and its folder.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

AGENT = '''\
import json, os, pathlib, subprocess, sys, time
task = os.environ["RALPH_TASK_ID"]
marks = pathlib.Path(os.environ["GRAPH_MARKS"])
mode = os.environ.get("GRAPH_MODE", "")
prompt = sys.stdin.read()
run = len(list(marks.glob(f"{task}.*.json"))) + 1
top = pathlib.Path(subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                                  text=True).stdout.strip())
record = {"task": task, "start": time.time(), "cwd": os.getcwd(), "prompt": prompt,
          "files": sorted(p.name for p in top.glob("*.py"))}
(marks / f"{task}.started").write_text("")
if mode == "hang":  # until the fleet stops it
    time.sleep(600)
if mode == "t2-first" and task == "T1":  # T1 ends after T2: still merged first
    deadline = time.monotonic() + 60
    while not (marks / "T2.1.json").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
partner = {"T1": "T2", "T2": "T1"}.get(task)
if mode == "side-by-side" and partner:
    deadline = time.monotonic() + 60
    while not (marks / f"{partner}.started").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
body = {"T1": "def a():\\n    return 1\\n", "T2": "def b():\\n    return 2\\n",
        "T3": "from a import a\\nfrom b import b\\n\\n\\ndef c():\\n    return a() + b()\\n"}
name = {"T1": "a.py", "T2": "b.py", "T3": "c.py"}
if mode == "conflict":
    if task == "T2" and run == 1:
        branch = "refs/heads/ralph/fleet-" + os.environ["RALPH_VERIFY_FLEET"] + "/_integration"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            log = subprocess.run(["git", "log", "--format=%B", branch], capture_output=True,
                                 text=True).stdout
            if "Ralph-Task: T1" in log:
                break
            time.sleep(0.1)
    (top / "shared.py").write_text(f"VALUE = {'A' if task == 'T1' else 'B'!r}\\n")
elif task in name:
    pathlib.Path(name[task]).write_text(body[task])
record["end"] = time.time()
(marks / f"{task}.{run}.json").write_text(json.dumps(record))
print(f"{task}: done (run {run})")
'''

TESTS = {
    "tests/test_a.py": "from a import a\n\n\ndef test_a():\n    assert a() == 1\n",
    "tests/test_b.py": "from b import b\n\n\ndef test_b():\n    assert b() == 2\n",
    "tests/test_c.py": "from c import c\n\n\ndef test_c():\n    assert c() == 3\n",
    "tests/test_shared_a.py": "def test_a():\n    from shared import VALUE\n\n"
                              "    assert VALUE == 'A'\n",
    "pkg/pyproject.toml": '[project]\nname = "pkg"\nversion = "0"\n',
    "pkg/tests/test_pkg_b.py": "import pathlib\n\n\ndef test_b():\n"
                               "    top = pathlib.Path(__file__).resolve().parents[2]\n"
                               "    assert (top / 'shared.py').read_text() == \"VALUE = 'B'\\n\"\n",
}

#: T1 and T2 independent, T3 needs both.
DIAMOND = """\
[defaults]
agent = {agent!r}
prompt = "Do the task named by $RALPH_TASK_ID."
max-iterations = 2

[[task]]
id = "T1"
title = "a()"
until = "tests:tests/test_a.py"
depends-on = []

[[task]]
id = "T2"
title = "b()"
until = "tests:tests/test_b.py"
depends-on = []

[[task]]
id = "T3"
title = "c() from a() and b()"
until = "tests:tests/test_c.py"
depends-on = ["T1", "T2"]
"""


def write_agent(where: Path) -> str:
    """The ``agent =`` value of the graph agent (its script lives outside the project)."""
    script = where / "graph_agent.py"
    script.write_text(AGENT)
    return f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def make_project(root: Path, git: Any) -> None:
    """The tests of every task, failing (no module yet), committed on ``main``."""
    for name, text in TESTS.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / ".gitignore").write_text("fleet/\n__pycache__/\n.ralph/\nmarks/\n")
    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "the tasks' tests")


def runs(marks: Path, task: str) -> list[dict[str, Any]]:
    """The agent's records of ``task``, in run order."""
    found = sorted(marks.glob(f"{task}.*.json"), key=lambda p: int(p.name.split(".")[1]))
    return [json.loads(path.read_text()) for path in found]
