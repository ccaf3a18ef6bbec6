"""``--github``: workflow-command annotations, line by line, and the job summary."""

from __future__ import annotations

import json
import re

import pytest

from ralph_verify.plugins.github import command, escape_data, escape_property
from ralph_verify.testing import Ralph


@pytest.mark.parametrize(("text", "data", "prop"), [
    ("plain", "plain", "plain"),
    ("100% sure", "100%25 sure", "100%25 sure"),
    ("a\r\nb", "a%0D%0Ab", "a%0D%0Ab"),
    ("src/a,b:c.py", "src/a,b:c.py", "src/a%2Cb%3Ac.py"),
    ("%0A literal", "%250A literal", "%250A literal"),
])
def test_escaping_follows_the_runner(text: str, data: str, prop: str) -> None:
    assert escape_data(text) == data
    assert escape_property(text) == prop


def test_command_leaves_out_missing_properties() -> None:
    line = command("error", "m", file="a.py", line=None, title="t")
    assert line == "::error file=a.py,title=t::m"
    assert command("error", "m") == "::error::m"


def test_annotations_for_located_and_unlocated_failures(ralph: Ralph) -> None:
    ralph.makefile("src/we,ird:name.py", "import os\n")
    ralph.makefile("src/ok.py", "")
    ralph.env["GITHUB_WORKSPACE"] = str(ralph.path.parent)
    ralph.env["GITHUB_STEP_SUMMARY"] = ""
    result = ralph.run("check", "--until", "lint,files:100%.txt,files:src/ok.py", "--github")
    assert result.ret == 1
    annotations = [line for line in result.out.splitlines() if line.startswith("::")]
    assert annotations == [
        "::error file=project/src/we%2Cird%3Aname.py,line=1,col=8,"
        "title=ralph-verify lint%3A F401::F401 `os` imported but unused%0A%0A"
        "fix (safe): Remove unused import: `os`",
        "::error title=ralph-verify files%3A100%25.txt::0 files match 100%25.txt, wanted >=1",
    ]


def test_a_check_that_errors_is_annotated_with_its_summary(ralph: Ralph) -> None:
    result = ralph.run("check", "--until", 'cmd:"sleep 5"', "--timeout", "0.3", "--github",
                       "--json")
    assert result.ret == 3
    # stdout carries the JSON, so the annotations go to stderr.
    assert result.json()["passed"] is False
    (line,) = [line for line in result.err.splitlines() if line.startswith("::")]
    assert line.startswith('::error title=ralph-verify cmd%3A"sleep 5"::')
    assert "timed out after 0.3s" in line


def test_job_summary_is_appended(ralph: Ralph) -> None:
    summary = ralph.path.parent / "summary.md"
    summary.write_text("# earlier step\n", encoding="utf-8")
    ralph.env["GITHUB_STEP_SUMMARY"] = str(summary)
    ralph.makefile("feedback.py", "print('```evil fence'); raise SystemExit(1)\n")
    result = ralph.run("check", "--until",
                       'files:pyproject.toml,cmd:"python feedback.py",promise', "--github")
    assert result.ret == 1
    lines = summary.read_text(encoding="utf-8").splitlines()
    assert lines[:7] == [
        "# earlier step",  # a skipped check is not counted as passed
        "## ralph-verify check: failed (1/3 checks passed, 1 failed, 1 skipped)",
        "",
        "| | check | status | summary |",
        "| --- | --- | --- | --- |",
        "| ✅ | `files:pyproject.toml` | passed | 1 match: pyproject.toml |",
        '| ❌ | `cmd:"python feedback.py"` | failed | exit 1: ```evil fence |',
    ]
    # The feedback sits in a fence no backtick run inside can close.
    assert "<details><summary>Feedback</summary>" in lines
    start = lines.index("<details><summary>Feedback</summary>") + 2
    opening, body = lines[start], lines[start + 1:]
    fence = opening.removesuffix("text")
    assert opening.endswith("text") and set(fence) == {"`"}
    closing = body.index(fence)
    assert "```evil fence" in "\n".join(body[:closing])
    assert all(len(run) < len(fence) for run in re.findall("`+", "\n".join(body[:closing])))


def test_nothing_without_the_option(ralph: Ralph) -> None:
    summary = ralph.path.parent / "summary.md"
    ralph.env["GITHUB_STEP_SUMMARY"] = str(summary)
    result = ralph.run("check", "--until", "files:nope")
    assert result.ret == 1
    assert "::error" not in result.out
    assert not summary.exists()


def test_a_run_annotates_its_last_verification_and_summarises_iterations(ralph: Ralph) -> None:
    ralph.makefile("app.py", "import os\n")
    ralph.git_init()
    summary = ralph.path.parent / "summary.md"
    ralph.env["GITHUB_STEP_SUMMARY"] = str(summary)
    result = ralph.run("run", "--agent", 'cmd:"python -c pass"', "--until", "lint",
                       "--max-iterations", "1", "--github", "fix it")
    assert result.ret == 10, result  # max-iterations
    annotations = [line for line in result.out.splitlines() if line.startswith("::")]
    assert annotations == [
        "::error file=app.py,line=1,col=8,title=ralph-verify lint%3A F401::F401 `os` imported "
        "but unused%0A%0Afix (safe): Remove unused import: `os`"]
    lines = summary.read_text(encoding="utf-8").splitlines()
    reason = json.loads((ralph.path / ".ralph" / "state.json").read_text())["verdict"]["reason"]
    assert lines[:6] == [
        "## ralph-verify run: max-iterations",
        "",
        reason,
        "",
        "| iteration | verification | failing checks | seconds |",
        "| --- | --- | --- | --- |",
    ]
    assert lines[6].startswith("| 1 | failed | `lint` | ")
    assert "### Last verification" in lines
