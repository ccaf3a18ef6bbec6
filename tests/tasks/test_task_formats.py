"""The task lists of three more tools, read from files of their real shapes (written after
their docs and templates, in tests/data/tasks/): the ralph-loop skill's ``ralph-tasks.json``,
spec-kit's ``tasks.md`` and Taskmaster's ``tasks.json``; and ``tasks export`` writing each
list back for other tools in a form ``tasks import`` reads to the same tasks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ralph_verify.errors import UsageError
from ralph_verify.tasks.export import to_prd, to_tasks_md, write_back
from ralph_verify.tasks.importers import load_any, to_toml, translate
from ralph_verify.tasks.model import TaskList
from ralph_verify.testing import Ralph
from tests.loop_helpers import agent

DATA = Path(__file__).resolve().parents[1] / "data" / "tasks"


def copy(tmp_path: Path, name: str, as_name: str | None = None) -> Path:
    target = tmp_path / (as_name or name)
    shutil.copy(DATA / name, target)
    return target


def shape(tasks: TaskList) -> list[tuple[str, str, str, tuple[str, ...]]]:
    return [(t.id, t.title, t.until_text, tasks.dependencies(t)) for t in tasks.tasks]


def test_ralph_tasks_json_verify_command_is_kept_by_every_task(tmp_path: Path) -> None:
    tasks = load_any(copy(tmp_path, "ralph-tasks.json"))
    assert [(t.id, t.until_text, t.max_iterations) for t in tasks.tasks] == [
        ("task-1", "files:one.txt", 5), ("task-2", "files:two.txt", 5)]
    assert [spec.text for spec in tasks.keep] == [
        "tests:new", 'cmd:"python -c \\"import sys; sys.exit(0)\\""']
    assert "parse('90m') returns 5400" in tasks.tasks[0].prompt
    assert tasks.tasks[1].status == "todo"  # "passes": true is a claim
    # By content too, whatever the file's name.
    again = load_any(copy(tmp_path, "ralph-tasks.json", "list.json"))
    assert shape(again) == shape(tasks)


def test_spec_kit_tasks_md_phases_are_barriers_and_p_tasks_wait_only_for_them(
        tmp_path: Path) -> None:
    tasks = load_any(copy(tmp_path, "spec-kit-tasks.md", "tasks.md"))
    deps = {t.id: tasks.dependencies(t) for t in tasks.tasks}
    assert deps == {
        "T001": (), "T002": (),                        # phase 1; T002 is [P]
        "T003": ("T001", "T002"),                      # [P]: the barrier only
        "T004": ("T001", "T002", "T003"),              # after the task before it too
        "T005": ("T001", "T002", "T004"),
        "T006": ("T003", "T004", "T005")}              # phase 3 waits for phase 2
    by_id = {t.id: t for t in tasks.tasks}
    assert by_id["T001"].until_text == "files:src/demo/__init__.py"
    assert by_id["T001"].status == "todo"  # [X] is a claim the checks decide
    assert by_id["T004"].until_text == "tests:tests/test_parse.py"
    assert "accept \"2h\" and \"90m\"" in by_id["T004"].prompt
    assert by_id["T004"].title == "Implement parse in src/demo/duration.py"
    assert "[US1]" in by_id["T004"].notes and "Phase 2" in by_id["T004"].notes


def test_taskmaster_tasks_json_subtasks_dependencies_and_statuses(tmp_path: Path) -> None:
    tasks = load_any(copy(tmp_path, "taskmaster-tasks.json", "tasks.json"))
    assert shape(tasks) == [
        ("1", "Setup Development Environment", "files:one.txt", ()),
        ("2.1", "Users table", "files:users.sql", ("1",)),
        ("2.2", "Posts table", "files:posts.sql", ("1", "2.1")),
        # task 2 has no checks of its own: its subtasks stand for it
        ("3", "Implement API Endpoints", "files:api.txt", ("2.1", "2.2")),
        ("4", "Dark mode", "", ())]
    statuses = {t.id: t.status for t in tasks.tasks}
    assert statuses["1"] == "todo"  # "done" is a claim
    assert statuses["4"] == "skip"  # deferred
    assert "Part of task 2 (Create Database Schema)" in tasks.get("2.1").prompt
    assert "A post references a user" in tasks.get("2.2").prompt


def test_taskmaster_legacy_shape_and_a_task_without_checks(tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps({"tasks": [
        {"id": 1, "title": "A", "description": "a", "status": "pending", "dependencies": [],
         "details": "", "testStrategy": "Check it by hand", "subtasks": []}]}))
    task, = load_any(path).tasks
    assert task.id == "1" and task.until == ()  # done on fail-to-pass tests


def test_an_unknown_json_is_named_with_the_formats_read(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"items": []}')
    with pytest.raises(UsageError, match=r"not a task list this reads.*ralph-tasks.json.*"
                                         r"Taskmaster tasks.json.*spec-kit tasks.md"):
        load_any(path)


@pytest.mark.parametrize("name", ["ralph-tasks.json", "spec-kit-tasks.md",
                                  "taskmaster-tasks.json"])
def test_tasks_import_output_loads_the_same(tmp_path: Path, name: str) -> None:
    source = copy(tmp_path, name)
    data, _ = translate(source)
    target = tmp_path / "tasks.toml"
    target.write_text(to_toml(data))
    assert shape(load_any(target)) == shape(load_any(source))
    assert [s.text for s in load_any(target).keep] == [s.text for s in load_any(source).keep]


@pytest.mark.parametrize("name", ["ralph-tasks.json", "spec-kit-tasks.md",
                                  "taskmaster-tasks.json", "prd.json", "fix_plan.md"])
@pytest.mark.parametrize("fmt", ["prd.json", "tasks.md"])
def test_export_round_trips_with_import(tmp_path: Path, name: str, fmt: str) -> None:
    tasks = load_any(copy(tmp_path, name, "in-" + name))
    first = tasks.tasks[0].id
    status = {first: "done"}
    if fmt == "prd.json":
        text = to_prd(tasks, status)
        assert {s["id"]: s["passes"] for s in json.loads(text)["userStories"]}[first] is True
    else:
        text = to_tasks_md(tasks, status)
    out = tmp_path / ("out.json" if fmt == "prd.json" else "out.md")
    out.write_text(text)
    back = load_any(out)
    assert shape(back) == shape(tasks)
    assert [t.status for t in back.tasks] == [t.status for t in tasks.tasks]
    if fmt == "tasks.md":
        assert f"- [X] {first}" in text or f"- [X] `{first}`" in text
        assert text.count("- [X]") == 1  # only what ralph-verify verified


def test_export_into_the_tools_own_file_sets_only_the_verified_statuses(
        tmp_path: Path) -> None:
    tasks = load_any(copy(tmp_path, "spec-kit-tasks.md", "tasks.md"))
    original = (tmp_path / "tasks.md").read_text()
    text = write_back(tasks, {"T003": "done", "T001": "failed"}, original)
    assert "- [ ] T001 Create project structure" in text  # its [X] was only a claim
    assert "- [X] T003 [P] [US1] Contract test" in text
    assert text.replace("[X]", "[ ]") == original.replace("[X]", "[ ]")


SPECKIT = """\
# Tasks: demo

## Phase 1: Setup

- [ ] T001 Write one.txt until: files:one.txt

## Phase 2: User Story 1 (Priority: P1)

- [ ] T002 [P] [US1] Write two.txt
  - until: files:two.txt
- [ ] T003 [P] [US1] Write three.txt
  - until: files:three.txt
"""


def test_a_spec_kit_list_runs_as_it_is_a_ticked_box_is_no_done_and_export_writes_it_back(
        ralph: Ralph) -> None:
    ralph.makefile("specs/001/tasks.md", SPECKIT)
    ralph.git_init()
    script = agent(ralph, """\
        T = os.environ["RALPH_TASK_ID"]
        plan = pathlib.Path("specs/001/tasks.md")
        plan.write_text(plan.read_text().replace(f"- [ ] {T}", f"- [X] {T}"))  # the claim
        if N == 2:
            name = {"T001": "one", "T002": "two", "T003": "three"}[T]
            pathlib.Path(name + ".txt").write_text(T)
        """)
    result = ralph.run("run", "--tasks", "specs/001/tasks.md", "--agent", script,
                       "--max-iterations", "3", "--until", "files:specs/001/tasks.md")
    assert result.ret == 0, result
    table = ralph.run("tasks", "status", "--json").json()
    assert [(r["id"], r["status"], r["iterations"]) for r in table["tasks"]] == [
        ("T001", "done", 2), ("T002", "done", 2), ("T003", "done", 2)]
    first = ralph.git("rev-list", "--max-parents=0", "HEAD").strip()
    ralph.git("checkout", first, "--", "specs/001/tasks.md")  # the file as it was given
    assert "[X]" not in (ralph.path / "specs/001/tasks.md").read_text()
    exported = ralph.run("tasks", "export", "--to", "tasks.md")
    assert exported.ret == 0 and "3 tasks, 3 verified done" in exported.out, exported
    text = (ralph.path / "specs/001/tasks.md").read_text()
    assert text == SPECKIT.replace("- [ ] T", "- [X] T")
    as_prd = ralph.run("tasks", "export", "--to", "prd.json", "-o", "prd.json")
    assert as_prd.ret == 0, as_prd
    stories = json.loads((ralph.path / "prd.json").read_text())["userStories"]
    assert [(s["id"], s["passes"], s["dependsOn"]) for s in stories] == [
        ("T001", True, []), ("T002", True, ["T001"]), ("T003", True, ["T001"])]
    back = ralph.run("tasks", "import", "prd.json", "-o", "again.toml")
    assert back.ret == 0, back
    assert shape(load_any(ralph.path / "again.toml")) == \
        shape(load_any(ralph.path / "specs/001/tasks.md"))


def test_a_ralph_tasks_json_runs_and_every_task_keeps_its_verify_command(
        ralph: Ralph) -> None:
    ralph.makefile("ralph-tasks.json", json.dumps({
        "maxIterations": 3, "verifyCommand": "test ! -e broken.txt",
        "tasks": [
            {"id": "task-1", "description": "Write one.txt",
             "acceptance": ["until: files:one.txt"], "passes": False},
            {"id": "task-2", "description": "Write two.txt without breaking the build",
             "acceptance": ["until: files:two.txt"], "passes": False}]}))
    ralph.git_init()
    script = agent(ralph, """\
        T = os.environ["RALPH_TASK_ID"]
        if T == "task-1":
            pathlib.Path("one.txt").write_text("1")
        elif N == 1:  # its own check passes, the verify command fails
            pathlib.Path("two.txt").write_text("2")
            pathlib.Path("broken.txt").write_text("x")
        else:
            pathlib.Path("broken.txt").unlink()
        """)
    result = ralph.run("run", "--tasks", "ralph-tasks.json", "--agent", script)
    assert result.ret == 0, result
    table = ralph.run("tasks", "status", "--json").json()
    assert [(r["id"], r["status"], r["iterations"]) for r in table["tasks"]] == [
        ("task-1", "done", 1), ("task-2", "done", 2)]
    assert 'cmd:"test ! -e broken.txt"' in table["tasks"][1]["gate"]


def test_export_into_a_markdown_checklist_sets_its_boxes_by_position(tmp_path: Path) -> None:
    plan = tmp_path / "fix_plan.md"
    plan.write_text("# Fix plan\n\n- [x] Fix the parser until: files:one.txt\n"
                    "  - [ ] a sub-item stays as it is\n- [ ] Wire the CLI until: files:two.txt\n")
    tasks = load_any(plan)
    text = write_back(tasks, {"T1": "failed", "T2": "already"}, plan.read_text())
    assert text == ("# Fix plan\n\n- [ ] Fix the parser until: files:one.txt\n"
                    "  - [ ] a sub-item stays as it is\n- [X] Wire the CLI until: files:two.txt\n")
