"""What a fleet file's task may set for its own loop: its agent and any option of ``run``
over the defaults, and another repository to clone (its branch comes back as a bundle)."""

from __future__ import annotations

import json
from pathlib import Path

from ralph_verify.testing import Ralph
from tests.fleet.kata import agent, git, make_monorepo

FLEET_FILE = """\
[fleet]
until = "tests"
prompt = "Make the tests pass."
max-iterations = 3

[[task]]
folder = "packages/a"

[[task]]
name = "idle"
folder = "packages/b"
agent = "cmd:echo nothing to do here"
args = ["--max-iterations", "1"]

[[task]]
name = "elsewhere"
repo = "{other}"
folder = "packages/x"
"""


def test_a_task_overrides_the_defaults_and_may_clone_another_repository(
        ralph: Ralph, tmp_path: Path) -> None:
    make_monorepo(ralph.path, ["a", "b"])
    other = tmp_path / "other"
    make_monorepo(other, ["x"])
    other_head = git(other, "rev-parse", "HEAD")
    ralph.makefile("fleet.toml", FLEET_FILE.format(other=other))
    result = ralph.run("fleet", "fleet.toml", "--agent", agent(tmp_path), "-j", "2",
                       "--id", "t2")
    assert result.ret == 1, result  # 'idle' did not complete
    out = ralph.path / "fleet"
    loops = {loop["name"]: loop for loop in json.loads((out / "fleet.json").read_text())["loops"]}
    assert loops["packages-a"]["verdict"] == "complete"
    # Its own agent (which fixes nothing) and its own iteration limit, not the defaults.
    idle = loops["idle"]
    assert idle["verdict"] != "complete" and idle["iterations"] == 1, idle
    assert idle["commits"] == 0
    log = (Path(idle["workdir"]) / "packages/b/.ralph/iterations/001/agent.log").read_text()
    assert "nothing to do here" in log
    # The other repository: cloned, not touched; its branch comes back as a bundle.
    elsewhere = loops["elsewhere"]
    assert elsewhere["verdict"] == "complete" and elsewhere["commits"] == 1, elsewhere
    assert elsewhere["bundle"] == "loops/elsewhere/elsewhere.bundle"
    assert git(other, "rev-parse", "HEAD") == other_head
    assert git(other, "branch", "--list", "ralph/*") == ""
    assert git(ralph.path, "branch", "--list", "ralph/fleet-t2/elsewhere") == ""
    git(other, "fetch", "-q", str(out / elsewhere["bundle"]), "refs/heads/*:refs/heads/*")
    assert "a + b" in git(other, "show", "ralph/fleet-t2/elsewhere:packages/x/calc.py")
    assert git(other, "rev-parse", "ralph/fleet-t2/elsewhere~1") == other_head
