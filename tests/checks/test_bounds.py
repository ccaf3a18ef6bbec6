"""Any tool output costs bounded time and memory: linear parsing under the check's timeout,
a cap on what is kept of each failure and of each check (saying what was cut), a capped
agent log."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ralph_verify.agents import runner
from ralph_verify.plugins import ruff
from ralph_verify.testing import Ralph
from tests.loop_helpers import agent


def test_a_120000_character_name_is_parsed_in_linear_time(ralph: Ralph) -> None:
    # One lint message 120,000 characters long took 137 s (a quadratic path pattern in the
    # fingerprint); it now takes well under a second.
    name = "test_" + "a" * 120_000
    ralph.makepyfile(long=f"def f():\n    return {name}\n")
    result = ralph.run("check", "--until", "lint", "--timeout", "25", "--json", "-")
    assert result.ret == 1, result
    assert result.duration < 30, result.duration  # generous: 137 s before the fix
    (failure,) = result.json()["checks"][0]["failures"]
    assert failure["code"] == "F821" and len(failure["message"]) <= 1100
    assert "characters cut ..." in failure["message"]


def test_every_violation_is_counted_and_only_some_are_kept(
        ralph: Ralph, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ruff, "MAX_KEPT", 50)
    ralph.makepyfile(many="".join(f"print(undefined_{i})\n" for i in range(120)))
    result = ralph.run("check", "--until", "lint", "--json", "-")
    assert result.ret == 1, result
    check = result.json()["checks"][0]
    assert check["metric"] == 120 and check["counts"]["errors"] == 120
    assert len(check["failures"]) == 50 and check["unkept"] == 70
    assert check["summary"].startswith("120 errors (120 F821)")
    assert "70 failures of lint were counted but not kept" in result.json()["feedback"]


def test_parsing_counts_against_the_checks_timeout(ralph: Ralph, tmp_path: Path) -> None:
    # A lint command that writes a million violations at once (as ruff does: json-lines, to
    # the file given with --output-file): reading them would take long after the tool has
    # finished; the timeout covers that reading too.
    output = tmp_path / "violations.jsonl"
    entry = json.dumps({"filename": "a.py", "code": "E501", "message": "long",
                        "location": {"row": 1, "column": 1}})
    output.write_text("\n".join([entry] * 1_000_000) + "\n")
    script = tmp_path / "print.py"
    script.write_text("import shutil, sys\n"
                      "report = sys.argv[sys.argv.index('--output-file') + 1]\n"
                      f"shutil.copyfile({str(output)!r}, report)\nsys.exit(1)\n")
    command = json.dumps([sys.executable, str(script)])
    ralph.makepyproject(f"[tool.ralph-verify.checks.lint]\ncommand = {command}\n")
    result = ralph.run("check", "--until", "lint", "--timeout", "2")
    assert result.ret == 3, result
    result.stdout.fnmatch_lines(["ERROR*lint*reading its output took past the check's "
                                 "timeout (2s)*"])
    assert result.duration < 60, result.duration


def test_what_is_kept_of_one_failure_is_bounded_and_says_what_was_cut(ralph: Ralph) -> None:
    text = "".join(f"traceback line {i}\n" for i in range(200_000))  # 4 MB
    ralph.makefile("junit.xml", f"""\
        <testsuite name="s" tests="1">
        <testcase classname="c" name="t"><failure message="{'m' * 100_000}">{text}
        E   ValueError: the real cause</failure></testcase>
        </testsuite>
        """)
    result = ralph.run("check", "--until", "junit:junit.xml", "--json", "-")
    assert result.ret == 1, result
    (failure,) = result.json()["checks"][0]["failures"]
    assert len(failure["message"]) <= 1100 and len(failure["detail"]) <= 8100
    assert "ValueError: the real cause" in failure["detail"]


def test_the_agent_log_is_capped_keeping_its_head_and_tail(
        ralph: Ralph, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "LOG_MAX_BYTES", 1_000_000)
    monkeypatch.setattr(runner, "LOG_TAIL_BYTES", 200_000)
    noisy = agent(ralph, """\
        print("FIRST LINE")
        for i in range(100_000):
            print(f"line {i:06d} " + "x" * 50)
        print("LAST LINE")
        """)
    result = ralph.run("run", "--agent", noisy, "--until", "files:done.txt",
                       "--max-iterations", "1", "task")
    assert result.ret == 10, result
    log = (ralph.path / ".ralph/iterations/001/agent.log").read_text()
    assert log.startswith("FIRST LINE") and log.rstrip().endswith("LAST LINE")
    assert len(log.encode()) <= 1_000_000 + 200
    note = [line for line in log.splitlines() if line.startswith("[ralph-verify: ")]
    assert len(note) == 1 and "bytes of agent output cut here" in note[0], note
    cut = int(note[0].split()[1].replace(",", ""))
    assert cut + 1_000_000 >= 100_000 * 63  # what was cut and what was kept add up
    assert sys.getsizeof(log) < 2_000_000


def test_failing_tests_not_kept_are_counted_and_said_to_be_left_out(
        ralph: Ralph, monkeypatch: pytest.MonkeyPatch) -> None:
    from ralph_verify.checks import verification

    monkeypatch.setattr(verification, "MAX_KEPT_FAILURES", 20)
    causes = ["cause A", "cause B", "cause C"]
    cases = "".join(f'<testcase classname="c" name="t{i}"><failure message="{causes[i % 3]}">'
                    f"E   ValueError: {causes[i % 3]}</failure></testcase>\n" for i in range(50))
    ralph.makefile("junit.xml", f'<testsuite name="s" tests="50">\n{cases}</testsuite>\n')
    result = ralph.run("check", "--until", "junit:junit.xml", "--json", "-")
    assert result.ret == 1, result
    check = result.json()["checks"][0]
    assert check["counts"]["failed"] == 50 and len(check["failures"]) == 20
    assert check["unkept"] == 30
    feedback = result.json()["feedback"]
    assert "nothing left out" not in feedback.lower()
    assert ("Shown: 3 of 3 failure groups (20 of 50 failures). 30 failures of junit:junit.xml "
            "were counted but not kept, so they are not shown.") in feedback


def test_the_xml_reader_keeps_a_bounded_head_and_tail_of_each_text(tmp_path: Path) -> None:
    import tracemalloc

    from ralph_verify.junit.xml_stream import iterparse_bounded

    body = "HEAD " + "x" * 5_000_000 + " TAIL"
    path = tmp_path / "big.xml"
    path.write_text(f'<testsuite><testcase name="t"><failure>{body}</failure></testcase>'
                    "</testsuite>")
    tracemalloc.start()
    try:
        with path.open("rb") as handle:
            ends = [elem for event, elem in iterparse_bounded(handle, 4000) if event == "end"]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    failure = ends[0]
    assert failure.tag == "failure" and failure.text is not None
    assert failure.text.startswith("HEAD ") and failure.text.endswith(" TAIL")
    assert f"\n[... {len(body) - 4000} characters cut ...]\n" in failure.text
    assert len(failure.text) < 4100
    assert peak < 2_000_000, peak  # the 5 MB text is never held whole
