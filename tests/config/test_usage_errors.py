"""Usage errors are exit 2, one `ERROR:` line that names the fix, decided before anything runs:
no baseline, no branch, no .ralph/ (issue 8, items 8, 9 and 17)."""

from __future__ import annotations

import pytest

from ralph_verify.testing import Ralph

RUN = ("run", "--agent", "cmd:true")


def _project(ralph: Ralph) -> None:
    ralph.makepyfile(app="x = 1\n")
    ralph.makefile("PROMPT.md", "make it so\n")
    ralph.git_init()


def _assert_nothing_ran(ralph: Ralph, branches_before: str) -> None:
    assert not (ralph.path / ".ralph").exists()
    assert ralph.git("branch", "--list") == branches_before
    assert ralph.git("status", "--porcelain") == ""


@pytest.mark.parametrize(("args", "message"), [
    (("check", "--until", "coverage>=150"),
     "threshold 150 of 'coverage' can never be reached: it is at most 100"),
    ((*RUN, "--until", "coverage.min=101"),
     "threshold 101 of 'coverage' can never be reached"),
    (("check", "--until", "tests:new"),
     "'tests:new' judges against a session's baseline, so it works only in a loop"),
    (("check", "--until", "tests:old"), "check 'tests' accepts only tests:new"),
    (("check", "--until", "lint", "--python", "/no/such/python"),
     "--python /no/such/python: no such file"),
    (("check", "--until", "lint", "--python", "."), "--python .: is a directory"),
    ((*RUN, "--until", "lint", "--python", "/no/such/python"),
     "--python /no/such/python: no such file"),
    ((*RUN, "--until", "lint", "--max-time", "5x"),
     "argument --max-time: expected a duration such as 90m, 2h, 1h30m or seconds, got '5x'"),
    ((*RUN, "--until", "lint", "--max-cost", "-1"), "argument --max-cost: must be 0 (no limit)"),
    ((*RUN, "--until", "lint", "--max-iterations", "0"),
     "argument --max-iterations: must be at least 1, got 0"),
    ((*RUN, "--until", "lint", "--max-iterations", "-3"),
     "argument --max-iterations: must be at least 1, got -3"),
    ((*RUN, "--until", "lint", "--agent-timeout", "0"),
     "argument --agent-timeout: must be greater than 0"),
    ((*RUN, "--until", "lint", "--max-calls-per-hour", "-1"),
     "argument --max-calls-per-hour: must be 0 (no limit) or more"),
    (("check", "--until", "lint", "-p", "no:lint"),
     "-p no:lint: no plugin 'lint'; the lint check is in plugin 'ruff'"),
    (("check", "--until", "lint", "-p", "no:rufff"), "no plugin 'rufff'; did you mean 'ruff'?"),
    ((*RUN, "--until", "lint", "-p", "no:lint"), "no plugin 'lint'"),
    ((*RUN, "--until", "lint", "-P", "missing.md"), "--prompt missing.md: cannot read it"),
    (("check", "--until", ""), "empty check spec"),
    ((*RUN, "--until", ""), "empty check spec"),
    (("start", "--until", "", "fix it"), "empty check spec"),
])
def test_usage_errors_come_before_anything_runs(ralph: Ralph, args: tuple[str, ...],
                                                message: str) -> None:
    _project(ralph)
    before = ralph.git("branch", "--list")
    result = ralph.run(*args)
    assert result.ret == 2, result
    assert result.err.startswith("ERROR: ") and message in result.err, result.err
    assert "Traceback" not in result.err
    _assert_nothing_ran(ralph, before)


@pytest.mark.parametrize("command", [("check",), RUN, ("start", "fix it")])
@pytest.mark.parametrize("until", ["until = []", 'until = ""'])
def test_an_empty_until_in_pyproject_is_a_usage_error(ralph: Ralph, command: tuple[str, ...],
                                                      until: str) -> None:
    """No checks would verify nothing: `check` would pass and `run` end `complete`."""
    _project(ralph)
    ralph.makepyproject(f"\n[tool.ralph-verify]\n{until}\n")
    ralph.git("commit", "-qam", "empty until")
    before = ralph.git("branch", "--list")
    result = ralph.run(*command)
    assert result.ret == 2, result
    assert "ERROR: " in result.err
    assert "is empty" in result.err or "empty check spec" in result.err
    _assert_nothing_ran(ralph, before)


def test_a_bad_max_time_in_the_config_file_fails_first(ralph: Ralph) -> None:
    _project(ralph)
    ralph.makepyproject('\n[tool.ralph-verify]\nuntil = ["lint"]\nmax-time = "5x"\n')
    ralph.git("commit", "-qam", "bad max-time")
    before = ralph.git("branch", "--list")
    result = ralph.run(*RUN)
    assert result.ret == 2, result
    assert "ERROR: --max-time '5x': expected a duration" in result.err
    _assert_nothing_ran(ralph, before)


def test_zero_limits_that_mean_no_limit_say_so_in_help(ralph: Ralph) -> None:
    text = " ".join(ralph.run_subprocess("run", "--help").out.split())
    assert "(default 4h; 0: no limit;" in text
    assert "USD; 0: no limit;" in text
    assert "-p no:NAME disables plugin NAME" in text
    assert "the task file is -P/--prompt (-p FILE still works for one release" in text
    check = " ".join(ralph.run_subprocess("check", "--help").out.split())
    assert "-p no:NAME disables plugin NAME" in check and "task file" not in check


@pytest.mark.parametrize(("args", "message"), [
    (("--json", "out"), "--json out: is a directory; give a file name, e.g. out/result.json"),
    (("--junitxml", "out"), "--junitxml out: is a directory"),
    (("--junitxml", "/proc/ralph.xml"), "--junitxml /proc/ralph.xml: cannot write in /proc"),
    (("--json", "app.py/r.json"), "--json app.py/r.json: "),
])
def test_an_output_file_that_cannot_be_written_is_a_usage_error(
        ralph: Ralph, args: tuple[str, ...], message: str) -> None:
    _project(ralph)
    (ralph.path / "out").mkdir()
    for command in (("check",), RUN):
        result = ralph.run(*command, "--until", "lint", *args)
        assert result.ret == 2, result
        assert result.err.startswith("ERROR: ") and message in result.err, result.err
        assert "Traceback" not in result.err
        assert not (ralph.path / ".ralph").exists()


@pytest.mark.parametrize("content", [
    pytest.param(b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n", id="deeply-nested"),
    pytest.param(b"\x7fELF\x02\x01\x01\x00\xd0\xff\xfe" * 20, id="binary"),
    pytest.param("[tool.ralph-verify]\nuntil = ['lint']\n".encode("utf-16"), id="utf-16"),
])
def test_a_pyproject_that_is_not_toml_is_a_usage_error(ralph: Ralph, content: bytes) -> None:
    ralph.makepyfile(app="x = 1\n")
    (ralph.path / "pyproject.toml").write_bytes(content)
    result = ralph.run("check", "--until", "lint")
    assert result.ret == 2, result
    assert result.err.startswith(f"ERROR: {ralph.path / 'pyproject.toml'}: not valid TOML")
    assert "Traceback" not in result.err


def test_a_binary_prompt_file_is_a_usage_error(ralph: Ralph) -> None:
    _project(ralph)
    (ralph.path / "task.bin").write_bytes(b"\x00\xff\xfe\x80binary")
    ralph.git("add", "task.bin")
    ralph.git("commit", "-qm", "binary")
    result = ralph.run(*RUN, "--until", "lint", "-P", "task.bin")
    assert result.ret == 2, result
    assert "ERROR: --prompt task.bin: not a UTF-8 text file" in result.err
    assert not (ralph.path / ".ralph").exists()


@pytest.mark.parametrize(("command", "shown"), [
    ('["/tmp"]', "/tmp cannot be run"),
    ('[""]', "an empty command name cannot be run"),
    ('["./pyproject.toml"]', "./pyproject.toml cannot be run"),
])
def test_a_lint_command_that_is_not_a_program_is_a_clear_check_error(
        ralph: Ralph, command: str, shown: str) -> None:
    ralph.makepyfile(app="x = 1\n")
    ralph.makepyproject(f"\n[tool.ralph-verify.checks.lint]\ncommand = {command}\n")
    result = ralph.run("check", "--until", "lint")
    assert result.ret == 3, result  # the check could not decide (documented exit code 3)
    result.stdout.fnmatch_lines([f"ERROR*lint*{shown}*fix 'command' in "
                                 "[[]tool.ralph-verify.checks.lint[]]*"])
    assert "Traceback" not in result.out + result.err and "crashed" not in result.out


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le"])
def test_junit_in_utf16_is_read(ralph: Ralph, encoding: str) -> None:
    declaration = '<?xml version="1.0" encoding="UTF-16"?>\n' if encoding == "utf-16" else ""
    xml = (declaration + '<testsuite name="s" tests="2" failures="1">'
           '<testcase classname="a" name="t1"/><testcase classname="a" name="t2">'
           '<failure message="bad \u00e9">boom</failure></testcase></testsuite>\n')
    body = xml.encode(encoding)
    ralph.makefile("reports/r.xml")
    (ralph.path / "reports" / "r.xml").write_bytes(
        body if encoding == "utf-16" else b"\xff\xfe" + body)
    result = ralph.run("check", "--until", "junit:reports/r.xml")
    assert result.ret == 1, result
    result.stdout.fnmatch_lines(["FAILED*junit:reports/r.xml*1 failed, 1 passed*"])
    assert "Traceback" not in result.out + result.err
