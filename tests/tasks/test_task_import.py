"""Task lists of other tools read in memory for ``run --tasks``: a ``prd.json`` runs as it
is when its criteria name checks (``until: SPECS``), and the agent ticking ``passes`` or a
box changes nothing."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from ralph_verify.tasks.importers import load_any
from ralph_verify.tasks.prompt import task_body
from ralph_verify.testing import Ralph
from tests.loop_helpers import agent

# The shape of snarktank/ralph's prd.json (its README's example), with inline checks.
PRD = {
    "project": "Demo",
    "branchName": "ralph/demo",
    "description": "Durations",
    "userStories": [
        {"id": "US-002", "title": "Use parse() for --timeout", "priority": 2,
         "description": "As a user I pass --timeout 2h.",
         "acceptanceCriteria": ["until: files:two.txt", "Typecheck passes"],
         "passes": False, "notes": ""},
        {"id": "US-001", "title": "Parse durations", "priority": 1,
         "description": "As a developer I parse 90m.",
         "acceptanceCriteria": ["parse('90m') == 5400", "until: files:one.txt"],
         "passes": False, "notes": ""},
    ],
}

CHECKLIST = """\
# Fix plan

- [ ] Fix the parser until: files:one.txt
- [x] Wire the CLI
  - until: files:two.txt,lint
  - keep --timeout working

## Optional

- [ ] Colour output
"""


def test_a_prd_json_in_priority_order_with_its_inline_checks(tmp_path: Path) -> None:
    path = tmp_path / "prd.json"
    path.write_text(json.dumps(PRD))
    tasks = load_any(path)
    first, second = tasks.tasks
    assert (first.id, first.until_text) == ("US-001", "files:one.txt")
    # "Typecheck passes" maps to types: it keeps the project green, it is no evidence.
    assert second.until_text == "files:two.txt"
    assert [spec.text for spec in second.keep] == ["types"]
    assert "parse('90m') == 5400" in first.prompt and "until:" not in first.prompt
    assert tasks.dependencies(second) == ("US-001",)


def test_a_markdown_checklist(tmp_path: Path) -> None:
    path = tmp_path / "fix_plan.md"
    path.write_text(CHECKLIST)
    first, second, third = load_any(path).tasks
    assert (first.title, first.until_text) == ("Fix the parser", "files:one.txt")
    assert second.until_text == "files:two.txt,lint" and "keep --timeout" in second.prompt
    assert second.status == "todo"  # a ticked box is a claim: the checks decide
    assert third.status == "skip"  # under "Optional"


def test_an_imported_task_without_checks_is_done_on_fail_to_pass_tests(
        tmp_path: Path) -> None:
    path = tmp_path / "fix_plan.md"
    path.write_text("- [ ] Fix the parser\n  - Typecheck passes\n")
    task, = load_any(path).tasks
    assert task.until == () and [spec.text for spec in task.keep] == ["types"]
    assert "no check of its own: add tests that show it" in task_body(task)


def test_an_agent_ticking_passes_in_prd_json_gets_another_iteration(ralph: Ralph) -> None:
    prd = json.loads(json.dumps(PRD))
    prd["userStories"][0]["acceptanceCriteria"] = ["until: files:two.txt"]
    ralph.makefile("prd.json", json.dumps(prd, indent=2))
    ralph.makefile("pyproject.toml", textwrap.dedent("""\
        [project]
        name = "demo"
        version = "0"
        """))
    ralph.git_init()
    script = agent(ralph, """\
        import json
        T = os.environ["RALPH_TASK_ID"]
        prd = json.loads(pathlib.Path("prd.json").read_text())
        for story in prd["userStories"]:
            if story["id"] == T:
                story["passes"] = True  # the claim, every time
        pathlib.Path("prd.json").write_text(json.dumps(prd))
        print("<promise>COMPLETE</promise>")
        if N == 2:
            pathlib.Path({"US-001": "one.txt", "US-002": "two.txt"}[T]).write_text("x\\n")
        """)
    result = ralph.run("run", "--tasks", "prd.json", "--agent", script, "--until",
                       "files:prd.json", "--max-iterations", "3", "--json", "out.json")
    assert result.ret == 0, result
    out = json.loads((ralph.path / "out.json").read_text())
    rows = {row["id"]: (row["status"], row["iterations"]) for row in out["tasks"]}
    assert rows == {"US-001": ("done", 2), "US-002": ("done", 2)}
    assert any("prd.json was edited" in note for note in out["notes"])


def test_tasks_import_writes_a_tasks_toml_that_loads_the_same(ralph: Ralph) -> None:
    ralph.makefile("prd.json", json.dumps(PRD))
    ralph.makefile("fix_plan.md", "- [ ] Needs checks\n- [ ] Has them until: files:x.txt\n")
    result = ralph.run("tasks", "import", "prd.json", "-o", "tasks.toml")
    assert result.ret == 0, result
    imported = load_any(ralph.path / "tasks.toml")
    original = load_any(ralph.path / "prd.json")
    assert [(t.id, t.title, t.prompt, t.until_text) for t in imported.tasks] == \
        [(t.id, t.title, t.prompt, t.until_text) for t in original.tasks]
    partial = ralph.run("tasks", "import", "fix_plan.md")
    assert partial.ret == 0 and "no check of their own: each is done only on fail-to-pass" \
        in partial.err
    assert "T1" in partial.err.splitlines()[-1] and 'title = "Needs checks"' in partial.out


def test_the_task_list_example_runs_its_prd_to_done(ralph: Ralph) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "task-list"
    (ralph.path / "pyproject.toml").unlink()
    ralph.copy_example(example)
    ralph.git_init()
    checked = ralph.run("tasks", "check", "prd.json")
    assert checked.ret == 0 and "each task is real work" in checked.out, checked
    result = ralph.run("run", "--tasks", "prd.json", "--agent", f"replay:{ralph.path / 'replay'}")
    assert result.ret == 0, result
    status = ralph.run("tasks", "status", "--json").json()
    assert [(row["id"], row["status"], row["iterations"]) for row in status["tasks"]] == [
        ("US-001", "done", 2), ("US-002", "done", 1), ("US-003", "done", 2)]
    assert any("prd.json was edited" in note for note in status["notes"])
