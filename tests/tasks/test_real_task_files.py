"""The real files of other tools, read as their users mean them (copies in tests/tasks/data/,
each with its licence note): frankbria's ``fix_plan.md`` template, spec-kit's
``tasks-template.md`` and a ``ralph-tasks.json`` of the ralph-loop skill's schema; the
statuses a list verified written back into the user's own file (``tasks export``); and
``tasks.toml`` written by a TOML writer."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ralph_verify.tasks.export import write_back
from ralph_verify.tasks.importers import load_any
from ralph_verify.testing import Ralph
from tests.loop_helpers import agent

DATA = Path(__file__).resolve().parent / "data"


def test_frankbrias_template_without_its_completed_section_and_meta_lines(
        ralph: Ralph) -> None:
    text = (DATA / "fix_plan.md").read_text()
    ralph.makefile("fix_plan.md", text + "\n## Definition of Done\n"
                   "- [ ] All tasks above marked [x]\n- [ ] `ruff check` is clean\n")
    result = ralph.run("tasks", "import", "fix_plan.md", "-o", "tasks.toml")
    assert result.ret == 0, result
    assert "wrote tasks.toml: 14 tasks" in result.out
    assert ("not tasks, under 'Completed': done before this list: line 29 'Project "
            "initialization'") in result.err
    assert ("not tasks, speaks of the other items: ralph-verify decides when they are done: "
            "line 37 'All tasks above marked [x]'") in result.err
    tasks = load_any(ralph.path / "tasks.toml").tasks
    titles = [task.title for task in tasks]
    assert titles[0] == "Set up basic project structure and build system"
    assert "Project initialization" not in titles and len(titles) == 14
    assert (tasks[12].title, tasks[12].status) == ("Nice-to-have enhancements (non-blocking)",
                                                   "skip")  # "## Optional"
    assert tasks[13].title == "`ruff check` is clean"
    assert "Issue #239" not in tasks[12].prompt  # an HTML comment is not read


def test_spec_kit_template_placeholder_ids_are_said_and_become_tasks(ralph: Ralph) -> None:
    shutil.copy(DATA / "tasks-template.md", ralph.path / "tasks.md")
    result = ralph.run("tasks", "check", "tasks.md")
    assert result.ret == 0, result
    assert "tasks.md: 34 tasks, valid" in result.out
    assert ("6 tasks have a placeholder for an id (TXXX, as in spec-kit's template; lines 154, "
            "155, 156, 157, 158, 159): read as T029..T034") in result.err
    assert "34. T034 [todo] Run quickstart.md validation  after T024, T025, T026, T027, " \
           "T028" in result.out  # the last phase waits for the phase before it
    tasks = load_any(ralph.path / "tasks.md")
    text = (ralph.path / "tasks.md").read_text()
    back = write_back(tasks, {"T029": "done", "T002": "failed"}, text)
    assert "- [X] TXXX [P] Documentation updates in docs/" in back
    assert back.replace("- [X] TXXX [P] Documentation", "- [ ] TXXX [P] Documentation") == text


def skill_project(ralph: Ralph) -> None:
    for name in ("ralph-tasks.json", "ralph-prompt.md"):
        shutil.copy(DATA / "ralph-loop" / name, ralph.path / name)


def test_ralph_loop_skill_tasks_keep_their_criteria_priority_and_prompt_file(
        ralph: Ralph) -> None:
    skill_project(ralph)
    result = ralph.run("tasks", "import", "ralph-tasks.json", "-o", "tasks.toml")
    assert result.ret == 0, result
    assert "no check of their own" in result.err and result.err.rstrip().endswith("T-003")
    tasks = load_any(ralph.path / "tasks.toml")
    assert [(t.id, t.until_text, [s.text for s in t.keep]) for t in tasks.tasks] == [
        ("T-001", "files:one.txt", ["types"]),  # priority 1 first; "Typecheck passes" kept
        ("T-002", "files:two.txt", ["lint"]),
        ("T-003", "", [])]
    first = tasks.tasks[0]
    assert "parse('90m') returns 5400" in first.prompt and "until:" not in first.prompt
    assert "# Durations - Ralph Execution Context" in first.prompt  # promptFile, shared
    assert first.status == "todo"  # "status": "completed" is a claim
    (ralph.path / "ralph-prompt.md").unlink()
    missing = ralph.run("tasks", "check", "ralph-tasks.json")
    assert missing.ret == 2, missing
    assert "promptFile 'ralph-prompt.md' cannot be read" in missing.err
    assert "Traceback" not in missing.err


def test_tasks_toml_is_written_by_a_toml_writer(ralph: Ralph) -> None:
    odd = 'a DEL \x7f, a "quote", a back\\slash, a tab\t and\nlines'
    ralph.makefile("prd.json", json.dumps({"userStories": [
        {"id": "US-001", "title": "Odd \x7f title", "description": odd, "priority": 1,
         "acceptanceCriteria": ["until: files:one.txt"], "passes": False}]}))
    assert ralph.run("tasks", "import", "prd.json", "-o", "tasks.toml").ret == 0
    checked = ralph.run("tasks", "check", "tasks.toml")
    assert checked.ret == 0, checked  # its checks fail now: real work
    task, = load_any(ralph.path / "tasks.toml").tasks
    assert (task.title, task.prompt) == ("Odd \x7f title", odd)


PRD = {"project": "Demo", "userStories": [
    {"id": "US-001", "title": "Write one", "description": "one.txt", "priority": 1,
     "acceptanceCriteria": ["until: files:one.txt"], "passes": False, "notes": ""},
    {"id": "US-002", "title": "Write two", "description": "two.txt", "priority": 2,
     "acceptanceCriteria": ["until: files:two.txt"], "passes": True, "notes": "claimed"}]}


def test_after_a_list_export_puts_the_verified_statuses_into_the_users_prd_json(
        ralph: Ralph) -> None:
    ralph.makefile("prd.json", json.dumps(PRD, indent=2))
    ralph.git_init()
    before = ralph.run("tasks", "export", "prd.json")
    assert before.ret == 2 and "no list of prd.json ran here" in before.err, before
    # A watcher started before the list waits for it, then follows it to its end.
    watch = subprocess.Popen([sys.executable, "-m", "ralph_verify", "tasks", "status",
                              "--watch", "--interval", "0.1"], cwd=ralph.path,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env={**os.environ, **ralph.env})
    try:
        assert watch.stdout is not None
        first = watch.stdout.readline()  # the list starts once the watcher waits
        assert first.startswith("no task list in ") and "waiting for one to start" in first
        script = agent(ralph, """\
            import json
            prd = pathlib.Path("prd.json")
            data = json.loads(prd.read_text())
            for story in data["userStories"]:
                story["passes"] = True  # the agent's tick, for every story
            prd.write_text(json.dumps(data))
            if os.environ["RALPH_TASK_ID"] == "US-001":  # US-002's work is never done
                pathlib.Path("one.txt").write_text("1")
            """)
        result = ralph.run("run", "--tasks", "prd.json", "--agent", script,
                           "--max-iterations", "2")
        assert result.ret == 1, result
        out, _ = watch.communicate(timeout=60)
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.wait()
    assert watch.returncode == 1, out
    assert "incomplete" in out.split("task list ")[-1], out
    assert json.loads((ralph.path / "prd.json").read_text()) == PRD  # put back as given
    table = ralph.run("tasks", "status")
    assert "'ralph-verify tasks export' writes these verified statuses into prd.json" \
        in table.out, table
    status = ralph.run("status")
    assert "task US-002 of prd.json · 1/2 tasks done · list incomplete" in status.out, status
    exported = ralph.run("tasks", "export")
    assert exported.ret == 0 and "wrote prd.json: 2 tasks, 1 verified done" in exported.out
    stories = json.loads((ralph.path / "prd.json").read_text())["userStories"]
    assert [(s["id"], s["passes"]) for s in stories] == [("US-001", True), ("US-002", False)]
    assert stories[1]["notes"] == "claimed"  # every other field kept
    copy = ralph.run("tasks", "export", "--to", "tasks.md")
    assert copy.ret == 0 and "- [X] `US-001` Write one" in copy.out, copy


def test_a_ralph_loop_skill_list_runs_and_export_sets_its_statuses(ralph: Ralph) -> None:
    ralph.makefile("ralph-tasks.json", json.dumps({
        "project": "demo", "promptFile": "ralph-prompt.md", "tasks": [
            {"id": "T-002", "title": "Write two", "description": "two.txt", "priority": 2,
             "acceptanceCriteria": ["until: files:two.txt"], "status": "completed"},
            {"id": "T-001", "title": "Write one", "description": "one.txt", "priority": 1,
             "acceptanceCriteria": ["until: files:one.txt"], "status": "pending"}]}, indent=2))
    ralph.makefile("ralph-prompt.md", "Shared context: keep files small.\n")
    ralph.git_init()
    prompts = ralph.path.parent / "prompts"
    script = agent(ralph, f"""\
        T = os.environ["RALPH_TASK_ID"]
        with open({str(prompts)!r}, "a") as log:
            log.write(T + " " + str("keep files small" in sys.stdin.read()) + "\\n")
        if T == "T-001":
            pathlib.Path("one.txt").write_text("1")
        """)
    result = ralph.run("run", "--tasks", "ralph-tasks.json", "--agent", script,
                       "--max-iterations", "1")
    assert result.ret == 1, result
    assert prompts.read_text().split("\n")[:2] == ["T-001 True", "T-002 True"]
    assert ralph.run("tasks", "export").ret == 0
    written = json.loads((ralph.path / "ralph-tasks.json").read_text())["tasks"]
    assert [(t["id"], t["status"]) for t in written] == [("T-002", "pending"),
                                                         ("T-001", "completed")]


def test_export_into_a_taskmaster_file_sets_done_only_where_verified(tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    document = {"master": {"tasks": [
        {"id": 1, "title": "A", "status": "done", "dependencies": [],
         "details": "until: files:a.txt", "subtasks": []},
        {"id": 2, "title": "B", "status": "pending", "dependencies": [1], "subtasks": [
            {"id": 1, "title": "B1", "status": "done", "details": "until: files:b1.txt"},
            {"id": 2, "title": "B2", "status": "pending", "details": "until: files:b2.txt"}]},
        {"id": 3, "title": "C", "status": "deferred", "details": "until: files:c.txt"}]}}
    path.write_text(json.dumps(document))
    tasks = load_any(path)
    written = json.loads(write_back(tasks, {"2.1": "done", "2.2": "already"},
                                    path.read_text()))["master"]["tasks"]
    assert [(t["id"], t["status"]) for t in written] == [(1, "pending"), (2, "done"),
                                                         (3, "deferred")]
    assert [s["status"] for s in written[1]["subtasks"]] == ["done", "done"]
