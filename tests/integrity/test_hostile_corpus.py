"""A corpus of corrupted and hostile inputs (options, config files, ``.ralph/`` files, tool
output): every one gives a clear answer, never a traceback (exit 4), and no hostile tool
output is ever reported PASSED. Real parts: the fake tools are executables the test writes."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from ralph_verify.testing import Ralph

#: pyproject.toml bodies (after a minimal [project] table); each must be refused (exit 2) naming
#: the key (second item) it is about.
CONFIGS: list[tuple[str, str]] = [
    ("[tool.ralph-verify]\ntimeout = inf", "timeout"),
    ("[tool.ralph-verify]\ntimeout = -inf", "timeout"),
    ("[tool.ralph-verify]\ntimeout = nan", "timeout"),
    ("[tool.ralph-verify]\ntimeout = 1e400", "timeout"),
    ("[tool.ralph-verify]\ntimeout = true", "timeout"),
    ("[tool.ralph-verify]\ntimeout = false", "timeout"),
    ("[tool.ralph-verify]\ntimeout = 0", "timeout"),
    ("[tool.ralph-verify]\ntimeout = -3", "timeout"),
    # A string is a duration, as on the command line ("90", "10m"); nothing else.
    ("[tool.ralph-verify]\ntimeout = \"90 parsecs\"", "timeout"),
    ("[tool.ralph-verify]\ntimeout = \"inf\"", "timeout"),
    ("[tool.ralph-verify]\ntimeout = \"0s\"", "timeout"),
    ("[tool.ralph-verify.checks.lint]\ntimeout = \"-5m\"", "timeout"),
    ("[tool.ralph-verify]\ntimeout = [1]", "timeout"),
    ("[tool.ralph-verify]\njobs = 0", "jobs"),
    ("[tool.ralph-verify]\njobs = true", "jobs"),
    ("[tool.ralph-verify]\njobs = 2.5", "jobs"),
    ("[tool.ralph-verify]\nfeedback-budget = -1", "feedback-budget"),
    ("[tool.ralph-verify]\nmax-iterations = 0", "max-iterations"),
    ("[tool.ralph-verify]\nmax-iterations = true", "max-iterations"),
    ("[tool.ralph-verify]\nmax-cost = inf", "max-cost"),
    ("[tool.ralph-verify]\nmax-cost = -1", "max-cost"),
    ("[tool.ralph-verify]\nagent-timeout = nan", "agent-timeout"),
    ("[tool.ralph-verify]\nagent-timeout = true", "agent-timeout"),
    ("[tool.ralph-verify]\nmax-calls-per-hour = -1", "max-calls-per-hour"),
    ("[tool.ralph-verify]\nmax-calls-per-hour = false", "max-calls-per-hour"),
    ("[tool.ralph-verify]\nstall-no-change = -1", "stall-no-change"),
    ("[tool.ralph-verify]\nstall-same-errors = -2", "stall-same-errors"),
    ("[tool.ralph-verify]\nstall-no-progress = true", "stall-no-progress"),
    ("[tool.ralph-verify]\nhook-timeout = -5", "hook-timeout"),
    ("[tool.ralph-verify]\nhook-timeout = 0", "hook-timeout"),
    ("[tool.ralph-verify]\nhook-block-cap = -1", "hook-block-cap"),
    ("[tool.ralph-verify]\nmax-agent-retries = -1", "max-agent-retries"),
    ("[tool.ralph-verify]\nmax-agent-failures = 0", "max-agent-failures"),
    ("[tool.ralph-verify.checks.lint]\ncommand = []", "command"),
    ("[tool.ralph-verify.checks.types]\ncommand = []", "command"),
    ("[tool.ralph-verify.checks.lint]\ntimeout = inf", "timeout"),
    ("[tool.ralph-verify.checks.lint]\ntimeout = true", "timeout"),
    ("[tool.ralph-verify.checks.tests]\ntimeout = nan", "timeout"),
    ("[tool.ralph-verify.checks.tests]\ntimeout = -1", "timeout"),
    ("[tool.ralph_verify]\nuntil = \"lint\"", "[tool.ralph-verify]"),
    ("[tool.ralphverify]\nuntil = \"lint\"", "[tool.ralph-verify]"),
    ("[tool.ralph-verfy]\nuntil = \"lint\"", "[tool.ralph-verify]"),
    ("[tool.ralph-verify]\nuntil = [\"cmd:a\\u0000b\"]", "NUL"),
    ("[tool.ralph-verify]\nuntil = \"lint<0\"", "never"),
    ("[tool.ralph-verify]\nuntil = 5", "until"),
    ("[tool.ralph-verify]\ntimout = 5", "did you mean 'timeout'"),
]

#: ``--until`` values that can never pass or are not specs: exit 2, the message says why.
SPECS: list[tuple[str, str]] = [
    ("lint<0", "can never pass"),
    ("types<0", "can never pass"),
    ("tests>=" + "1" * 400, "can never be reached"),
    ("tests.min=" + "9" * 40, "can never be reached"),
    ("lint<=" + "9" * 400, "can never be reached"),
    ("tests>=1%", "not a percentage"),
    ("lint<=5%", "not a percentage"),
    ("coverage>=101", "can never be reached"),
    ("coverage.min=100.5", "can never be reached"),
    ("tests>=-1", "expected a number"),
    ("tests>=1e3", "unexpected text"),
    ("tests>=inf", "expected a number"),
    ("cmd:", "empty argument"),
    ("lint,,tests", "empty check spec"),
    ("lint>", "expected a number"),
    ("nosuchcheck", "unknown check"),
    ('cmd:"unterminated', "unterminated quote"),
    ("!lint", "cannot be negated"),
]


@pytest.mark.parametrize(("body", "named"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_a_bad_config_value_is_refused_naming_it(ralph: Ralph, body: str, named: str) -> None:
    ralph.makepyproject(body + "\n")
    # A spec in the file is read only when the command line gives none.
    until = () if "until" in body else ("--until", "cmd:true")
    result = ralph.run("check", *until)
    assert result.ret == 2, result
    assert "Traceback" not in result.err + result.out
    assert named in result.err, result.err


def test_a_nul_in_a_configured_spec_is_pointed_at(ralph: Ralph) -> None:
    ralph.makepyproject('[tool.ralph-verify]\nuntil = ["cmd:echo a\\u0000b"]\n')
    result = ralph.run("check")
    assert result.ret == 2, result
    assert "a NUL character cannot be part of a check spec" in result.err
    assert "^" in result.err


@pytest.mark.parametrize(("spec", "why"), SPECS, ids=[s[0][:30] for s in SPECS])
def test_a_spec_that_can_never_pass_is_refused(ralph: Ralph, spec: str, why: str) -> None:
    result = ralph.run("check", "--until", spec)
    assert result.ret == 2, result
    assert why in result.err, result.err


def test_thresholds_that_can_pass_are_still_accepted(ralph: Ralph) -> None:
    ralph.makepyfile(a="x = 1\n")
    for spec in ("lint<=0", "lint<1", "coverage>=0%"):
        assert ralph.run("check", "--until", spec).ret != 2, spec


def test_a_second_until_is_refused_saying_how_to_give_both(ralph: Ralph) -> None:
    result = ralph.run("check", "--until", "lint", "--until", "tests")
    assert result.ret == 2, result
    assert "--until given twice ('lint' and 'tests')" in result.err
    assert "--until 'lint,tests'" in result.err


# --- Hostile tool output: never PASSED ------------------------------------------------------

DEEP = "[" * 100_000 + "]" * 100_000
#: (tool, what it prints on stdout, its exit code)
OUTPUTS: list[tuple[str, str, int]] = [
    ("mypy", "hello garbage\n", 0),
    ("mypy", "Segmentation fault\n", 0),
    ("mypy", "<html>502 Bad Gateway</html>\n", 0),
    ("mypy", "\x00\x01\x02\n", 0),
    ("mypy", '{"file": "a.py"\n', 0),
    ("mypy", DEEP + "\n", 0),
    ("mypy", "{" + '"a":' * 50_000 + "1" + "}" * 50_000 + "\n", 0),
    ("mypy", '{"file": 5, "message": "x", "severity": "error"}\n', 1),
    ("mypy", "[]\n", 0),
    ("mypy", "1" * 5000 + "\n", 0),
    ("mypy", "garbage\n", 1),
    ("mypy", "", 1),
    ("mypy", "", 2),
    ("ruff", DEEP, 0),
    ("ruff", DEEP, 1),
    ("ruff", "", 0),
    ("ruff", "not json", 0),
    ("ruff", "{}", 0),
    ("ruff", "[1, 2]", 0),
    ("ruff", "[" + "1" * 5000 + "]", 0),
    ("ruff", '[{"filename": 5}]', 1),
    ("ruff", "[", 0),
    ("ruff", "[]  trailing", 0),
    ("ruff", '[{"filename": "a.py", "message": "m", "location": []}]', 1),
    ("ruff", "\xff\xfe garbage", 0),
]


def _fake_tool(folder: Path, name: str, stdout: str, code: int) -> Path:
    """A real executable that prints ``stdout`` whatever it is asked (``format`` too)."""
    data = folder / f"{name}.out"
    data.write_text(stdout, encoding="utf-8", errors="surrogateescape")
    tool = folder / name
    tool.write_text(f"#!/bin/sh\ncat '{data}'\nexit {code}\n", encoding="utf-8")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return tool


@pytest.mark.parametrize(("tool", "stdout", "code"), OUTPUTS,
                         ids=[f"{t}-{c}-{o[:20]!r}" for t, o, c in OUTPUTS])
def test_hostile_tool_output_is_never_passed(ralph: Ralph, tmp_path: Path, tool: str,
                                             stdout: str, code: int) -> None:
    fake = _fake_tool(tmp_path, tool, stdout, code)
    check = {"mypy": "types", "ruff": "lint"}[tool]
    ralph.makepyfile(a="x = 1\n")
    ralph.makepyproject(f"[tool.ralph-verify.checks.{check}]\n"
                                 f"command = [{json.dumps(str(fake))}]\n")
    result = ralph.run("check", "--until", check, "--no-cache", "--json", "-")
    assert result.ret in (1, 3), result
    assert "Traceback" not in result.out + result.err
    assert result.json()["checks"][0]["status"] != "passed"


def test_garbage_from_mypy_with_exit_0_is_an_error_showing_its_first_bytes(
        ralph: Ralph, tmp_path: Path) -> None:
    fake = _fake_tool(tmp_path, "mypy", "hello garbage\nmore\n", 0)
    ralph.makepyproject(f"[tool.ralph-verify.checks.types]\n"
                                 f"command = [{json.dumps(str(fake))}]\n")
    result = ralph.run("check", "--until", "types", "--no-cache")
    assert result.ret == 3, result
    result.stdout.fnmatch_lines(["ERROR*types*mypy exited 0 but printed what is not mypy's "
                                 "output: 'hello garbage'*"])
