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
    ((*RUN, "--until", "lint", "--max-calls-per-hour", "0"),
     "argument --max-calls-per-hour: must be at least 1"),
    (("check", "--until", "lint", "-p", "no:lint"),
     "-p no:lint: no plugin 'lint'; the lint check is in plugin 'ruff'"),
    (("check", "--until", "lint", "-p", "no:rufff"), "no plugin 'rufff'; did you mean 'ruff'?"),
    ((*RUN, "--until", "lint", "-p", "no:lint"), "no plugin 'lint'"),
    ((*RUN, "--until", "lint", "-p", "missing.md"), "--prompt missing.md: cannot read it"),
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
    assert "-p no:NAME" in text
