"""The command line through the front door: exit codes, output, --json."""

from __future__ import annotations

import json

from ralph_verify.testing import Ralph


def test_version(ralph: Ralph) -> None:
    result = ralph.run("--version")
    assert result.ret == 0
    assert result.out.startswith("ralph-verify 0.")


def test_help_lists_commands_and_exit_codes(ralph: Ralph) -> None:
    result = ralph.run_subprocess("--help")
    assert result.ret == 0
    for word in ("check", "checks", "plugins", "exit codes:", "-p no:NAME"):
        assert word in result.out


def test_check_help_explains_until(ralph: Ralph) -> None:
    result = ralph.run_subprocess("check", "--help")
    assert result.ret == 0
    assert "--until SPECS" in result.out and "tests,lint,types,coverage.min=80" in result.out
    assert "quote operators in a shell" in " ".join(result.out.split())


def test_missing_command_is_a_usage_error(ralph: Ralph) -> None:
    result = ralph.run()
    assert result.ret == 2
    assert result.err.startswith("ERROR: missing command")


def test_unknown_option_is_one_line_no_traceback(ralph: Ralph) -> None:
    result = ralph.run_subprocess("check", "--untill", "tests")
    assert result.ret == 2
    # A did-you-mean, and the command's own --help, which lists its options.
    assert result.err.strip() == ("ERROR: unrecognized arguments: --untill tests; did you mean "
                                  "--until? (see 'ralph-verify check --help')")
    two = ralph.run("check", "--untill", "tests", "--jsn")
    assert "did you mean --until (for --untill), --json (for --jsn)?" in two.err
    far = ralph.run("check", "--zzzzzz")
    assert far.err.strip() == ("ERROR: unrecognized arguments: --zzzzzz (see 'ralph-verify "
                               "check --help')")


def test_unknown_command_has_a_did_you_mean(ralph: Ralph) -> None:
    result = ralph.run("chek", "--until", "tests")
    assert result.ret == 2
    assert result.err.startswith("ERROR: unknown command 'chek'; did you mean 'check'? "
                                 "(commands: cancel, check, checks, ")
    assert "did you mean" not in ralph.run("zzzz").err


def test_status_without_a_session_is_an_error(ralph: Ralph) -> None:
    result = ralph.run("status")
    assert (result.ret, result.out) == (2, "")
    assert result.err.startswith("ERROR: no session in ")


def test_unknown_check_shows_caret_and_known_names(ralph: Ralph) -> None:
    result = ralph.run("check", "--until", "files:a,tset>=3")
    assert result.ret == 2
    result.stderr.fnmatch_lines([
        "ERROR: bad check spec in --until: unknown check 'tset'",
        "  files:a,tset>=3",
        "          ^",
        "did you mean 'tests'? known checks: *cmd*files*",
    ])


def test_threshold_on_a_check_without_one(ralph: Ralph) -> None:
    result = ralph.run("check", "--until", "promise>=3")
    assert result.ret == 2
    assert "check 'promise' takes no threshold" in result.err


def test_negating_a_check_that_cannot_be_negated(ralph: Ralph) -> None:
    result = ralph.run("check", "--until", "!promise")
    assert result.ret == 2
    assert "check 'promise' cannot be negated" in result.err


def test_files_and_not_files(ralph: Ralph) -> None:
    ralph.makefile("src/app.py", "")
    ralph.makefile("jest.config.js", "")
    result = ralph.run("check", "--until", "files:src/*.py,!files:jest.config.js")
    assert result.ret == 1
    # Each check's line as it is decided (either order), then the feedback and the summary.
    result.stdout.fnmatch_lines(["PASSED*files:src/*.py*1 match: src/app.py*"])
    result.stdout.fnmatch_lines([
        "FAILED*!files:jest.config.js*1 must not exist: jest.config.js*"])
    result.stdout.fnmatch_lines([
        "*jest.config.js must not exist*",
        "FAILED: 1 of 2 checks failed (!files:jest.config.js), 1 passed in *",
    ])


def test_files_threshold_counts_matches(ralph: Ralph) -> None:
    for name in "abc":
        ralph.makefile(f"src/{name}.py", "")
    assert ralph.run("check", "--until", "files:src/*.py>=3").ret == 0
    result = ralph.run("check", "--until", "files:src/*.py>=4")
    assert result.ret == 1
    assert "3 files match src/*.py, wanted >=4" in result.out


def test_cmd_passes_on_exit_zero_and_feeds_back_output(ralph: Ralph) -> None:
    assert ralph.run("check", "--until", 'cmd:"python -c \\"print(1)\\""').ret == 0
    result = ralph.run("check", "--until",
                       'cmd:"python -c \\"import sys; print(\'docs broken\'); sys.exit(2)\\""')
    assert result.ret == 1
    result.stdout.fnmatch_lines(["FAILED*exit 2: docs broken*", "  *exited 2: docs broken"])


def test_negated_cmd_passes_when_the_command_fails(ralph: Ralph) -> None:
    ralph.makefile("tests/test_a.py", "import unittest\n")
    result = ralph.run("check", "--until", '!cmd:"grep -rn \'import unittest\' tests"')
    assert result.ret == 1
    assert "tests/test_a.py:1:import unittest" in result.out
    ralph.makefile("tests/test_a.py", "import pytest\n")
    assert ralph.run("check", "--until", '!cmd:"grep -rn \'import unittest\' tests"').ret == 0


def test_timeout_is_an_error_and_kills_the_tool(ralph: Ralph) -> None:
    # The shell starts a grandchild; the process-hygiene fixture fails the test if it survives.
    result = ralph.run("check", "--until", 'cmd:"sleep 60 & sleep 60"', "--timeout", "1")
    assert result.ret == 3
    result.stdout.fnmatch_lines(["ERROR*timed out after 1s and was killed*"])


def test_per_check_timeout_from_config(ralph: Ralph) -> None:
    ralph.makepyproject('[tool.ralph-verify.checks.cmd]\ntimeout = 0.5\n')
    result = ralph.run("check", "--until", 'cmd:"sleep 30"', "--json")
    assert result.ret == 3
    (check,) = result.json()["checks"]
    assert check["status"] == "error"
    assert "timed out after 0.5s" in check["summary"]


def test_json_on_stdout_has_the_documented_fields(ralph: Ralph) -> None:
    result = ralph.run("check", "--until", "files:nothing.txt", "--json")
    assert result.ret == 1
    data = result.json()
    assert data["passed"] is False
    (check,) = data["checks"]
    assert {"name", "spec", "status", "summary", "metric", "duration_s", "failures"} <= set(check)
    (failure,) = check["failures"]
    assert {"fingerprint", "location", "message"} <= set(failure)
    assert len(failure["fingerprint"]) == 12
    # The human summary went to stderr, so stdout is pure JSON.
    assert "FAILED: 1 check failed" in result.err


def test_json_to_a_file(ralph: Ralph) -> None:
    result = ralph.run("check", "--until", "files:pyproject.toml", "--json", "out/v.json")
    assert result.ret == 0
    assert "PASSED: 1 check passed" in result.out
    data = json.loads((ralph.path / "out" / "v.json").read_text())
    assert data["passed"] is True


def test_promise_is_skipped_outside_a_loop(ralph: Ralph) -> None:
    result = ralph.run("check", "--until", "promise")
    assert result.ret == 0
    assert "judged only in a loop" in result.out


def test_qq_prints_nothing(ralph: Ralph) -> None:
    result = ralph.run("check", "--until", "files:nothing", "-qq")
    assert (result.ret, result.out) == (1, "")


def test_checks_lists_names_plugins_and_options(ralph: Ralph) -> None:
    result = ralph.run("checks")
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        "!files:ARG[[]<op>N[]]  [[]plugin files[]]",
        "*a file or glob must exist*",
        "*[[]tool.ralph-verify.checks.files[]] timeout: *",
    ])


def test_checks_and_plugins_fold_their_lines_to_the_terminal(ralph: Ralph) -> None:
    """As pytest's and argparse's help: no line past the terminal's width (``COLUMNS``)."""
    for columns in ("80", "60"):
        ralph.env["COLUMNS"] = columns
        for command in ("checks", "plugins"):
            result = ralph.run(command)
            assert result.ret == 0, result
            longest = max(result.out.splitlines(), key=len)
            assert len(longest) <= int(columns), (command, longest)
    ralph.run("checks").stdout.fnmatch_lines(["!cmd:ARG  [[]plugin cmd[]]",
                                              "    a command must exit 0 *",
                                              "      *"])


def test_plugins_lists_builtins_and_disabling(ralph: Ralph) -> None:
    ralph.env["COLUMNS"] = "10000"  # one line each
    result = ralph.run("plugins")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["core  [[]built-in[]]*ralph_verify_check*"])
    for command in ("plugins", "checks"):  # the agents, Amp marked as not tested offline
        result = ralph.run(command)
        result.stdout.fnmatch_lines(["agents (--agent NAME):",
                                     "  amp  [[]plugin agent_clis[]]*not tested offline*",
                                     "  gemini  [[]plugin agent_clis[]]*tested offline*"])
    result = ralph.run("-p", "no:files", "plugins")
    assert "files  (disabled with -p no:files)" in result.out
    result = ralph.run("check", "-p", "no:files", "--until", "files:x")
    assert result.ret == 2
    assert "unknown check 'files'" in result.err


def test_python_dash_m_works(ralph: Ralph) -> None:
    result = ralph.run_subprocess("check", "--until", "files:pyproject.toml")
    assert result.ret == 0
    assert "PASSED" in result.out


def test_output_piped_into_head_is_not_an_error(ralph: Ralph) -> None:
    import subprocess
    import sys

    proc = subprocess.run(f"'{sys.executable}' -m ralph_verify checks | head -1", shell=True,
                          cwd=ralph.path, capture_output=True, text=True, check=False)
    assert proc.stdout.count("\n") == 1
    assert "Traceback" not in proc.stderr and "INTERNAL ERROR" not in proc.stderr


def test_numbers_are_checked_before_anything_runs(ralph: Ralph) -> None:
    result = ralph.run("check", "--until", "files:x", "--timeout", "-5")
    assert result.ret == 2
    assert result.err.startswith("ERROR: argument --timeout: must be greater than 0, got -5")
    result = ralph.run("check", "--until", "files:x", "-j", "0")
    assert result.ret == 2 and "must be at least 1, got 0" in result.err
    ralph.makepyproject('[tool.ralph-verify]\ntimeout = -1\n')
    result = ralph.run("check", "--until", "files:x")
    assert result.ret == 2
    assert "[tool.ralph-verify] timeout: input should be greater than 0 (got -1)" in result.err
