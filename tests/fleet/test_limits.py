"""Fleet-wide limits: ``--total-cost`` adds up what the loops' agents report and, once the
fleet reaches it, stops every running loop cleanly (state and commits kept) and starts no
other; the fleet's files say why."""

from __future__ import annotations

import html
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from ralph_verify.testing import Ralph
from tests.fleet.kata import git, make_monorepo, priced_agent

REASON = "the fleet's total cost reached 1.5 USD"


def test_total_cost_stops_the_fleet_once_its_loops_together_reach_it(ralph: Ralph,
                                                                    tmp_path: Path) -> None:
    """Two loops at once, each agent run reported as $1: after both first runs the fleet has
    spent $2 of its $1.50, while each loop alone ($1) is still under its own share. The fleet
    stops both in their second run (which would otherwise take 4 minutes), and never starts
    the other two loops."""
    make_monorepo(ralph.path, ["a", "b", "c", "d"])
    prompt = tmp_path / "PROMPT.md"
    prompt.write_text("Make the tests pass.")
    summary = tmp_path / "summary.md"
    ralph.env |= {"FLEET_AGENT_COST": "1", "FLEET_AGENT_SLEEP": "240",
                 "GITHUB_STEP_SUMMARY": str(summary)}
    started = time.monotonic()
    result = ralph.run("fleet", "--matrix", "packages/*", "--agent", priced_agent(tmp_path),
                       "--until", "tests", "-p", str(prompt), "-j", "2", "--id", "cost",
                       "--total-cost", "1.5", "--github")
    assert time.monotonic() - started < 200, "the fleet waited for the agents to finish"
    assert result.ret == 1, result  # not every loop completed
    result.stdout.fnmatch_lines([f"*stopping every loop: {REASON}*", "*0/4 loops complete*"])
    out = ralph.path / "fleet"
    document: dict[str, Any] = json.loads((out / "fleet.json").read_text())
    assert document["cancelled"] == REASON
    loops = {loop["name"]: loop for loop in document["loops"]}
    ran, never = ["packages-a", "packages-b"], ["packages-c", "packages-d"]
    for name in ran:
        loop = loops[name]
        assert loop["verdict"] == "cancelled", loop
        # Stopped in its second run, or (if the cap struck between the two) before it.
        assert loop["cost_usd"] == 1.0 and loop["iterations"] in (1, 2), loop
        # Its state is kept where it ran ('fleet --resume' goes on from it)...
        state = json.loads((Path(loop["workdir"]) / loop["folder"] / ".ralph/state.json")
                           .read_text())
        assert state["verdict"]["verdict"] == "cancelled"
        assert state["plugin_state"]["budget"]["cost_usd"] == 1.0
        # ...and so is its work: the first run's note is on its branch.
        assert "it subtracts" in git(ralph.path, "show",
                                     f"{loop['branch']}:{loop['folder']}/NOTES.md")
    for name in never:
        assert loops[name]["verdict"] == "not-run" and loops[name]["reason"] == REASON
        assert git(ralph.path, "branch", "--list", f"ralph/fleet-cost/{name}") == ""
    assert document["totals"]["cost_usd"] == 2.0
    assert document["totals"]["verdicts"] == {"cancelled": 2, "not-run": 2}
    page = html.unescape((out / "report.html").read_text())  # REASON has an apostrophe
    assert f"<strong>Cancelled:</strong> {REASON}" in page
    assert f"\nStopped: {REASON}\n" in summary.read_text()


def test_a_loop_stopped_before_it_could_record_a_verdict_is_cancelled(ralph: Ralph,
                                                                     tmp_path: Path) -> None:
    """A cancel or a fleet-wide limit can strike while a loop's process is still starting,
    before it handles signals: that loop is ``cancelled`` (resume runs it), not an error."""
    from ralph_verify.fleet.job import LoopJob, run_job

    make_monorepo(ralph.path, ["a"])
    base = git(ralph.path, "rev-parse", "HEAD").strip()
    job = LoopJob(fleet_id="s1", name="packages-a", folder="packages/a",
                  branch="ralph/fleet-s1/packages-a", prompt="Make the tests pass.",
                  run_args=["--agent", "cmd:true", "--until", "tests"], source=str(ralph.path),
                  base=base, workdir=str(tmp_path / "trees"))

    def stop_at_once(proc: subprocess.Popen[bytes]) -> None:
        os.killpg(proc.pid, signal.SIGTERM)  # its own process group: only the loop

    result = run_job(job, on_start=stop_at_once)
    assert result.record.exit_code == -signal.SIGTERM
    assert result.record.verdict == "cancelled", result.record
    assert result.record.reason == "stopped by SIGTERM before the loop recorded a verdict"


OWN_LIMITS = """\
[fleet]
until = "tests"
total-cost = 10
jobs = 1

[[task]]
name = "capped"
folder = "packages/a"
max-cost = 1

[[task]]
name = "default"
folder = "packages/b"
"""


def _calls(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_each_loop_keeps_its_own_limits_under_the_fleets_total(ralph: Ralph,
                                                              tmp_path: Path) -> None:
    """The fleet's total does not replace a loop's own --max-cost: 'capped' stops at its own
    $1 though the fleet allows $10; 'default' gets what is left of the fleet's $10 ($9) as
    its agent's budget, which is below its own default of $20."""
    make_monorepo(ralph.path, ["a", "b"])
    ralph.makefile("fleet.toml", OWN_LIMITS)
    calls = tmp_path / "calls.jsonl"
    ralph.env |= {"FLEET_AGENT_COST": "1", "FLEET_AGENT_CALLS": str(calls)}
    result = ralph.run("fleet", "fleet.toml", "--agent", priced_agent(tmp_path), "-p",
                       "fleet.toml", "--id", "own")
    assert result.ret == 1, result
    loops = {loop["name"]: loop for loop in
             json.loads((ralph.path / "fleet/fleet.json").read_text())["loops"]}
    assert loops["capped"]["verdict"] == "budget", loops["capped"]
    assert loops["capped"]["reason"] == "the agent reported $1.00, the limit is $1.00 (--max-cost)"
    assert loops["default"]["verdict"] == "complete", loops["default"]
    assert _calls(calls) == [
        {"task": "capped", "iteration": 1, "budget": "1.00"},
        {"task": "default", "iteration": 1, "budget": "9.00"},
        {"task": "default", "iteration": 2, "budget": "8.00"},
    ]


def test_a_loop_stops_itself_at_its_share_of_the_fleets_total(ralph: Ralph,
                                                             tmp_path: Path) -> None:
    """What a fleet's loop sees (on a Dask worker too, where the fleet cannot read its cost
    while it runs): its share of the total lowers the agent's budget and ends the loop."""
    make_monorepo(ralph.path, ["a"])
    calls = tmp_path / "calls.jsonl"
    ralph.env |= {"FLEET_AGENT_COST": "1", "FLEET_AGENT_FIX_AT": "3",
                 "FLEET_AGENT_CALLS": str(calls), "RALPH_FLEET_COST_SHARE": "1.5"}
    result = ralph.run("run", "Fix it.", "--root", "packages/a", "--no-branch", "--agent",
                       priced_agent(tmp_path), "--until", "tests", "-p", "no:breaker")
    assert result.ret == 13, result  # budget
    state = json.loads((ralph.path / "packages/a/.ralph/state.json").read_text())
    assert state["verdict"]["verdict"] == "budget"
    assert state["verdict"]["reason"] == ("the agent reported $2.00, this loop's share of the "
                                          "fleet's --total-cost was $1.50")
    assert [call["budget"] for call in _calls(calls)] == ["1.50", "0.50"]
