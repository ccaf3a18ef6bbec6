"""Reports of a task list: the HTML report's task section (both drivers, checked in headless
Chromium), one JUnit test case per task, the task table in ``--json`` and in ``--github``'s
job summary and annotations, the current task in ``status`` and ``status --watch``."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ralph_verify import TasksState, hookimpl
from ralph_verify.testing import Ralph
from tests.drivers import Driver
from tests.reports.page import parse
from tests.reports.test_html import (
    assert_self_contained,
    check_in_browser,
    check_page_against_history,
)
from tests.task_drivers import run_list

PROMISE = "<promise>COMPLETE</promise>"
#: D already passing, A done, B failed (one iteration, no work), C skipped (it needs B).
LIST = textwrap.dedent("""\
    [defaults]
    keep = "files:tasks.toml"
    max-iterations = 1

    [[task]]
    id = "D"
    title = "there already"
    until = "files:tasks.toml"
    depends-on = []

    [[task]]
    id = "A"
    title = "write a"
    until = "files:a.txt"
    depends-on = []

    [[task]]
    id = "B"
    title = "write b"
    until = "files:b.txt"
    depends-on = []

    [[task]]
    id = "C"
    title = "needs b"
    until = "files:c.txt"
    depends-on = ["B"]

    """)
EXPECTED = {"A": ("done", 1), "B": ("failed", 1), "C": ("skipped", 0), "D": ("already", 0)}


def project(ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", LIST)
    ralph.makefile(".gitignore", ".ralph/\n")
    ralph.git_init()


def test_the_html_report_has_the_task_section(driver: Driver, tmp_path: Path) -> None:
    ralph = driver.ralph
    project(ralph)
    outcome = run_list(driver, {"A": [{"a.txt": "a\n"}]}, says={"B": [PROMISE]})
    assert outcome.status() == EXPECTED
    report = ralph.path / ".ralph" / "report.html"
    text = report.read_text(encoding="utf-8")
    assert_self_contained(text)
    page = parse(text)
    (summary,) = page.find("p", id="task-list")
    assert summary.attrs["data-verdict"] == "incomplete"
    assert (summary.attrs["data-done"], summary.attrs["data-tasks"]) == ("2", "4")
    rows = {row.attrs["data-task"]: (row.attrs["data-status"], int(row.attrs["data-iterations"]))
            for row in page.find("tr", cls="task")}
    assert rows == EXPECTED
    (current,) = [row for row in page.find("tr", cls="task") if "data-current" in row.attrs]
    assert current.attrs["data-task"] == "B"  # the last session the list ran
    points = check_page_against_history(page, ralph.path / ".ralph")
    shot = check_in_browser(report, tmp_path, points)
    assert shot.exists()


def test_junit_has_one_test_case_per_task_and_json_and_github_the_table(
        ralph: Ralph, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project(ralph)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    outcome = run_list(Driver(ralph, "run"), {"A": [{"a.txt": "a\n"}]},
                       "--junitxml", "out.xml", "--json", "out.json", "--github",
                       says={"B": [PROMISE]})
    assert outcome.started.ret == 1, outcome.started
    assert outcome.status() == EXPECTED
    suites = ET.parse(ralph.path / "out.xml").getroot()
    (tasks,) = [suite for suite in suites if suite.get("name") == "tasks"]
    assert (tasks.get("tests"), tasks.get("failures"), tasks.get("skipped")) == ("4", "1", "1")
    cases = {case.get("name"): case for case in tasks}
    cases.pop(None, None)  # <properties>
    assert set(cases) == {"A: write a", "B: write b", "C: needs b", "D: there already"}
    assert [child.tag for child in cases["A: write a"]] == ["system-out"]
    (failure,) = cases["B: write b"]
    assert failure.tag == "failure" and failure.get("type") == "failed"
    assert (failure.get("message") or "").startswith("failed: ")
    assert [child.tag for child in cases["C: needs b"]] == ["skipped"]
    data = json.loads((ralph.path / "out.json").read_text())
    assert set(data["tasks"][0]) == {"id", "title", "status", "reason", "iterations",
                                     "cost_usd", "gate", "commit"}
    shown = ralph.run("tasks", "status")
    assert shown.ret == 0 and "C          skipped" in shown.out
    assert {row["id"]: row["status"] for row in data["tasks"]} == {
        key: value[0] for key, value in EXPECTED.items()}
    markdown = summary.read_text()
    assert "## ralph-verify tasks: incomplete" in markdown
    assert "| ❌ | `B` write b | failed | 1 |" in markdown
    assert "| ⏭️ | `C` needs b | skipped | 0 |" in markdown
    assert "::error title=ralph-verify task B::task B (write b) is failed" in outcome.started.out


def test_status_and_watch_name_the_current_task_in_hook_mode(ralph: Ralph) -> None:
    project(ralph)
    started = ralph.run("start", "--tasks", "tasks.toml")
    assert started.ret == 0, started
    assert "task A first" in started.out
    status = ralph.run("status")
    assert status.ret == 0, status
    assert "task A of " in status.out and "1/4 tasks done" in status.out
    assert ralph.run("cancel").ret == 0
    table = ralph.run("tasks", "status", "--json").json()
    assert table["verdict"] == "cancelled" and table["current"] is None
    assert {row["id"]: row["status"] for row in table["tasks"]} == {
        "D": "already", "A": "todo", "B": "todo", "C": "todo"}
    watched = ralph.run("status", "--watch")
    assert "task A of tasks.toml · 1/4 tasks done" in watched.out, watched


class TaskTable:
    """A third-party reporter of task lists: what ``ralph_report_tasks`` gives it."""

    def __init__(self) -> None:
        self.seen: list[tuple[str | None, list[tuple[str, str]]]] = []

    @hookimpl
    def ralph_report_tasks(self, tasks: TasksState) -> None:
        self.seen.append((tasks.verdict, [(row.id, row.status) for row in tasks.tasks]))


def test_a_plugin_gets_the_task_table_once_when_the_list_ends(ralph: Ralph) -> None:
    ralph.makefile("tasks.toml", textwrap.dedent("""\
        [[task]]
        id = "A"
        title = "write a"
        until = "files:a.txt"

        [[task]]
        id = "B"
        title = "write b"
        until = "files:b.txt"
        """))
    ralph.makefile(".gitignore", ".ralph/\n")
    ralph.git_init()
    table = TaskTable()
    result = ralph.run("run", "--tasks", "tasks.toml", "--agent",
                       'cmd:echo done > "$(echo $RALPH_TASK_ID | tr AB ab).txt"',
                       "--no-integrity", plugins=[table])
    assert result.ret == 0, result
    assert table.seen == [("complete", [("A", "done"), ("B", "done")])]
