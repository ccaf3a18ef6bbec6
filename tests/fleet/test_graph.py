"""``fleet FILE`` with ``depends-on``, on this machine: ready tasks side by side, each from
the integration branch's tip, one merge queue verifying every merge against the gate, a task
sent back once then ``failed (merge)``, and a failed task's dependents skipped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from ralph_verify.testing import Ralph
from tests.fleet.graph_kata import DIAMOND, make_project, runs, write_agent


def _fleet(ralph: Ralph) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ralph.path / "fleet" / "fleet.json").read_text())
    return data


def setup_graph(ralph: Ralph, tmp_path: Path, mode: str) -> tuple[Path, str]:
    """The project, the agent, and where it leaves its marks (``tmp_path/graph-marks``)."""
    marks = tmp_path / "graph-marks"
    marks.mkdir(exist_ok=True)
    ralph.env.update(GRAPH_MARKS=str(marks), GRAPH_MODE=mode)
    make_project(ralph.path, ralph.git)
    return marks, write_agent(tmp_path)


def assert_diamond(ralph: Ralph, marks: Path, fleet_id: str) -> dict[str, Any]:
    """T1 and T2 ran at once, T3 on a tree holding both, every task merged and verified."""
    t1, t2 = runs(marks, "T1")[0], runs(marks, "T2")[0]
    # Side by side: their time windows overlap (each waited for the other to start).
    assert max(t1["start"], t2["start"]) < min(t1["end"], t2["end"]), (t1, t2)
    assert t1["cwd"] != t2["cwd"]
    [t3] = runs(marks, "T3")
    assert t3["start"] > max(t1["end"], t2["end"])
    assert {"a.py", "b.py"} <= set(t3["files"]), t3  # its tree held both merges
    document = _fleet(ralph)
    loops = {loop["name"]: loop for loop in document["loops"]}
    assert {name: loop["task_status"] for name, loop in loops.items()} == {
        "T1": "done", "T2": "done", "T3": "done"}, loops
    branch = f"ralph/fleet-{fleet_id}/_integration"
    integration = document["integration"]
    assert integration["branch"] == branch
    assert [m["task"] for m in integration["merged"]][-1] == "T3"
    assert sorted(m["task"] for m in integration["merged"]) == ["T1", "T2", "T3"]
    assert integration["final"]["passed"] is True, integration
    # T3 started from the tip it merged into, its loop ran the whole gate: verified once.
    assert loops["T3"]["gate_verified_by"] == "its loop"
    # The second of T1 and T2 merged on a tip that had moved: the queue verified it.
    assert "the merge queue" in {loops["T1"]["gate_verified_by"],
                                 loops["T2"]["gate_verified_by"]}
    # T3's gate held its own checks and those of the tasks done before it.
    assert set(loops["T3"]["gate"]["."]) == {"tests:tests/test_a.py", "tests:tests/test_b.py",
                                             "tests:tests/test_c.py"}
    tree = ralph.git("ls-tree", "--name-only", branch).split()
    assert {"a.py", "b.py", "c.py"} <= set(tree)
    trailers = ralph.git("log", "--format=%(trailers:key=Ralph-Task,valueonly)", branch)
    assert sorted(trailers.split()) == ["T1", "T2", "T3"]
    assert integration["commit"] == ralph.git("rev-parse", branch).strip()
    return document


def test_two_independent_tasks_side_by_side_then_the_third_on_a_tree_holding_both(
        ralph: Ralph, tmp_path: Path) -> None:
    marks, agent = setup_graph(ralph, tmp_path, "side-by-side")
    ralph.makefile("tasks.toml", DIAMOND.format(agent=agent))
    head = ralph.git("rev-parse", "HEAD")
    result = ralph.run("fleet", "tasks.toml", "-j", "2", "--id", "g1")
    assert result.ret == 0, result
    assert_diamond(ralph, marks, "g1")
    # The user's checkout and branch were never touched.
    assert ralph.git("rev-parse", "HEAD") == head
    assert ralph.git("branch", "--show-current").strip() == "main"
    assert not (ralph.path / "a.py").exists()
    result.stdout.fnmatch_lines(["*task T3: done — merged into ralph/fleet-g1/_integration as *"])


CONFLICT = """\
[defaults]
agent = {agent!r}
prompt = "Do the task named by $RALPH_TASK_ID."
max-iterations = 2

[[task]]
id = "T1"
until = "tests:tests/test_shared_a.py"
depends-on = []

[[task]]
id = "T2"
folder = "pkg"
until = "tests:tests/test_pkg_b.py"
depends-on = []
"""


def test_a_conflict_sends_the_task_back_once_then_it_fails_the_merge_with_its_branch_kept(
        ralph: Ralph, tmp_path: Path) -> None:
    marks, agent = setup_graph(ralph, tmp_path, "conflict")
    ralph.makefile("tasks.toml", CONFLICT.format(agent=agent))
    result = ralph.run("fleet", "tasks.toml", "-j", "2", "--id", "c1")
    assert result.ret == 1, result
    loops = {loop["name"]: loop for loop in _fleet(ralph)["loops"]}
    assert loops["T1"]["task_status"] == "done"
    t2 = loops["T2"]
    assert t2["task_status"] == "failed (merge)", t2
    assert "branch ralph/fleet-c1/T2 kept" in t2["task_reason"]
    first, second = runs(marks, "T2")  # sent back once, not twice
    assert "Conflicts with T1 (shared.py), merged first" not in first["prompt"]
    assert "Conflicts with T1 (shared.py), merged first: shared.py" in second["prompt"]
    # The second run started on the new tip: T1's work was in its tree.
    assert "shared.py" in second["files"] and "shared.py" not in first["files"]
    # Its second try merged, but the merged tree failed T1's checks (at the top, outside
    # its loop's folder): the gate's feedback.
    assert "failed the gate" in t2["merge_note"] and "test_shared_a" in t2["merge_note"]
    assert t2["gate"] == {".": ["tests:tests/test_shared_a.py"],
                          "pkg": ["tests:tests/test_pkg_b.py"]}
    # Both tries are kept as branches; the integration branch holds T1's work only.
    assert ralph.git("show", "ralph/fleet-c1/T2:shared.py") == "VALUE = 'B'\n"
    assert ralph.git("show", "ralph/fleet-c1/T2-try1:shared.py") == "VALUE = 'B'\n"
    assert ralph.git("show", "ralph/fleet-c1/_integration:shared.py") == "VALUE = 'A'\n"
    trailers = ralph.git("log", "--format=%(trailers:key=Ralph-Task,valueonly)",
                         "ralph/fleet-c1/_integration")
    assert trailers.split() == ["T1"]


SKIP = """\
[defaults]
agent = {agent!r}
prompt = "Do the task named by $RALPH_TASK_ID."
max-iterations = 2

[[task]]
id = "T1"
until = "tests:tests/test_a.py"
agent = "cmd:echo I looked but changed nothing"
max-iterations = 1
depends-on = []

[[task]]
id = "T2"
until = "tests:tests/test_b.py"
depends-on = []

[[task]]
id = "T3"
until = "tests:tests/test_c.py"
depends-on = ["T1", "T2"]
"""


def test_a_failed_task_skips_its_dependents_and_the_independent_ones_still_run(
        ralph: Ralph, tmp_path: Path) -> None:
    marks, agent = setup_graph(ralph, tmp_path, "")
    ralph.makefile("tasks.toml", SKIP.format(agent=agent))
    result = ralph.run("fleet", "tasks.toml", "-j", "2", "--id", "s1")
    assert result.ret == 1, result
    loops = {loop["name"]: loop for loop in _fleet(ralph)["loops"]}
    assert loops["T1"]["task_status"] == "failed"
    assert loops["T2"]["task_status"] == "done"
    t3 = loops["T3"]
    assert t3["task_status"] == "skipped" and t3["verdict"] == "skipped"
    assert t3["task_reason"] == "depends on T1, failed"
    assert runs(marks, "T3") == []  # its agent never ran
    # CI sees tasks as tests: done passes, failed fails, skipped is skipped.
    junit = ElementTree.parse(ralph.path / "fleet" / "fleet-junit.xml").getroot()
    cases = {case.get("name"): [child.tag for child in case if child.tag != "properties"]
             for case in junit.iter("testcase")}
    assert cases == {"T1": ["failure"], "T2": [], "T3": ["skipped"]}, cases
    html = (ralph.path / "fleet" / "report.html").read_text()
    assert 'data-task-status="skipped">skipped</span> depends on T1, failed' in html
    status = ralph.run("fleet", "status")
    assert status.ret == 0, status
    status.stdout.fnmatch_lines_random(["T1 *max-iterations -> failed *",
                                        "T2 *complete -> done *", "T3 *skipped *"])
    assert ralph.git("branch", "--list", "ralph/fleet-s1/T3").strip() == ""
    trailers = ralph.git("log", "--format=%(trailers:key=Ralph-Task,valueonly)",
                         "ralph/fleet-s1/_integration")
    assert trailers.split() == ["T2"]


def test_the_rulebook_s_prompt_merges_in_file_order_and_tasks_status_sees_the_fleet(
        ralph: Ralph, tmp_path: Path) -> None:
    marks, agent = setup_graph(ralph, tmp_path, "t2-first")
    ralph.makefile("tasks.toml", DIAMOND.format(agent=agent))
    result = ralph.run("fleet", "tasks.toml", "-j", "2", "--id", "o1")
    assert result.ret == 0, result
    t1, t2 = runs(marks, "T1")[0], runs(marks, "T2")[0]
    assert t2["end"] < t1["end"]  # T2 ended first, yet the list's order decides the merges
    integration = _fleet(ralph)["integration"]
    assert [m["task"] for m in integration["merged"]] == ["T1", "T2", "T3"]
    assert integration["verdict"] == "complete", integration
    status = ralph.run("tasks", "status", "--json")
    assert status.ret == 0, status
    table = status.json()
    assert table["verdict"] == "complete" and table["session"] == "o1"
    assert [(row["id"], row["title"], row["status"]) for row in table["tasks"]] == [
        ("T1", "a()", "done"), ("T2", "b()", "done"), ("T3", "c() from a() and b()", "done")]
    # run --tasks gives its cmd: agent the same task text: id, title, prompt, own checks
    # (its gate keeps tests:new besides: a fleet's default keep is none).
    ralph.env["GRAPH_MODE"] = ""
    ralph.git("add", "tasks.toml")
    ralph.git("commit", "-q", "-m", "the list")
    listed = ralph.run("run", "--tasks", "tasks.toml")
    assert listed.ret == 0, listed
    fleet_prompt, run_prompt = t1["prompt"], runs(marks, "T1")[1]["prompt"]

    def task_part(prompt: str) -> str:
        return prompt[prompt.index("# Task T1: a()"):prompt.index(" (this task's own")]

    assert task_part(fleet_prompt) == task_part(run_prompt)
    assert "Do the task named by $RALPH_TASK_ID." in task_part(run_prompt)
    assert task_part(run_prompt).endswith("does not count):\n- tests:tests/test_a.py")
